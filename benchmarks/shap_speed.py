"""(g) SHAP values: boostlib's TreeSHAP against XGBoost's ``pred_contribs`` (chapter 10).

One model, fitted twice: boostlib's Newton loop with ``HistTreeRegressor``
(log loss, ``direction="newton"``, ``step="constant"``, no start) and XGBoost's
``hist`` booster with the same settings: 100 trees of depth 6, learning rate
0.3, λ = 1, ``min_child_weight`` 10, on integer features (32 values each, every
bin a value), so that the two grow the same trees (chapter 8). The same 10 000
fresh rows are then explained by both, single-threaded (``OMP_NUM_THREADS=1``,
XGBoost ``nthread=1``): :func:`boostlib.explain.shap_values` and
``Booster.predict(pred_contribs=True)``, in turns (A, B, A, B, …; the median
of 3 CPU-second runs is reported), after one untimed call that compiles
numba's kernel or loads it from its cache. The same model (decision
functions) and the same values (φ) are asserted, and the largest difference
recorded next to the times: the work compared is the same.

Target: boostlib at most 2 × XGBoost's CPU time.

Run alone (``.venv/bin/python benchmarks/shap_speed.py [--quick] [--no-save]``)
or from ``run_all.py``.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import harness

if __name__ == "__main__":  # before numpy is imported: one thread for OpenMP and BLAS
    harness.single_threaded()

import numpy as np  # noqa: E402

NAME = "shap_speed"
TARGET = 2.0
SETTINGS = {"n_estimators": 100, "max_depth": 6, "learning_rate": 0.3, "lambda": 1.0,
            "min_child_weight": 10.0}
N_ROWS = 10_000
N_FEATURES = 28
QUICK = {"n_estimators": 5, "n_rows": 2000}


def data(n_rows, n_features=N_FEATURES, levels=32, seed=0):
    """Integer features and a binary label from an additive score with one interaction."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, levels, size=(2 * n_rows, n_features)).astype(float)
    score = (X[:, 0] - levels / 2) / 4 + (X[:, 1] > levels / 2) * (X[:, 2] - levels / 2) / 4
    y = (rng.rand(2 * n_rows) < 1 / (1 + np.exp(-score))).astype(int)
    return X[:n_rows], y[:n_rows], X[n_rows:]


def fit_both(X, y, n_estimators):
    """boostlib's model and XGBoost's booster at the shared settings."""
    import xgboost

    from boostlib import BoostingClassifier, HistTreeRegressor

    s = SETTINGS
    ours = BoostingClassifier(
        direction="newton", step="constant", init="zero", n_estimators=n_estimators,
        learning_rate=s["learning_rate"],
        learner=HistTreeRegressor(max_depth=s["max_depth"], l2_regularization=s["lambda"],
                                  min_child_weight=s["min_child_weight"])).fit(X, y)
    theirs = xgboost.XGBClassifier(
        tree_method="hist", n_estimators=n_estimators, max_depth=s["max_depth"],
        learning_rate=s["learning_rate"], reg_lambda=s["lambda"],
        min_child_weight=s["min_child_weight"], gamma=0, base_score=0.5, n_jobs=1).fit(X, y)
    booster = theirs.get_booster()
    booster.set_param({"nthread": 1})
    return ours, booster


def run(quick=False, save=True):
    import xgboost

    from boostlib.explain import shap_values

    n_estimators = QUICK["n_estimators"] if quick else SETTINGS["n_estimators"]
    n_rows = QUICK["n_rows"] if quick else N_ROWS
    repeat = 1 if quick else 3
    X, y, X_explain = data(n_rows)
    ours, booster = fit_both(X, y, n_estimators)
    matrix = xgboost.DMatrix(X_explain)
    margin = booster.predict(matrix, output_margin=True)
    gap_F = float(np.max(np.abs(ours.decision_function(X_explain) - margin)))
    assert gap_F < 1e-4, f"not the same model: max |F difference| = {gap_F}"
    shap_values(ours, X_explain[:10])  # compile (or load the cached kernel) untimed
    runs = harness.alternating({
        "boostlib": partial(shap_values, ours, X_explain),
        "xgboost": partial(booster.predict, matrix, pred_contribs=True),
    }, repeat=repeat)
    phi, expected = runs["boostlib"]["result"]
    contributions = runs["xgboost"]["result"]
    gap_phi = float(np.max(np.abs(phi - contributions[:, :-1])))
    assert gap_phi < 1e-4, f"not the same values: max |φ difference| = {gap_phi}"
    cpu = {k: harness.median(v["seconds"]) for k, v in runs.items()}
    wall = {k: harness.median(v["wall"]) for k, v in runs.items()}
    leaves = int(sum(tree.get_n_leaves() for tree in ours.estimators_))
    row = {"n_rows": n_rows, "n_features": X.shape[1], "n_trees": n_estimators,
           "max_depth": SETTINGS["max_depth"], "leaves": leaves, "repeats": repeat,
           "boostlib_cpu_s": cpu["boostlib"], "xgboost_cpu_s": cpu["xgboost"],
           "ratio_cpu": cpu["boostlib"] / cpu["xgboost"],
           "boostlib_wall_s": wall["boostlib"], "xgboost_wall_s": wall["xgboost"],
           "max_abs_phi_difference": gap_phi, "max_abs_F_difference": gap_F}
    if not save:
        import pandas as pd

        return pd.DataFrame([row])
    return harness.write_csv(NAME, [row], notes=[
        "SHAP values of one model, boostlib.explain.shap_values vs XGBoost "
        "Booster.predict(pred_contribs=True), nthread=1; newton + HistTreeRegressor = "
        f"XGBoost hist, {SETTINGS}; integer features; median over alternating "
        "repeats; cpu = time.process_time",
    ])


def summary(frame):
    worst = frame["ratio_cpu"].max()
    verdict = "meets" if worst <= TARGET else "misses"
    shown = frame[["n_rows", "n_trees", "max_depth", "leaves", "boostlib_cpu_s",
                   "xgboost_cpu_s", "ratio_cpu", "max_abs_phi_difference"]]
    return (f"SHAP values, boostlib / XGBoost pred_contribs on one thread (target <= {TARGET}; "
            f"CPU ratio {worst:.2f} {verdict} it). Same model and same values asserted.\n\n"
            + harness.markdown_table(shown))


def main(argv=None):
    return harness.cli(run, summary, __doc__.splitlines()[0], NAME, QUICK, argv)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
