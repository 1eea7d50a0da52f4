"""(h) Categorical splits: what they cost next to the plain fit of the same data (chapter 8).

One data set of 1 000 000 rows and 28 features, four of them categorical
(codes 0 … K − 1 with K = 8, 40, 120 and 250, their effects on the label in no
order related to the codes), fitted twice by boostlib's Newton loop
(``direction="newton"``, ``step="constant"``, 100 depth-3 trees, learning rate
0.1, ``HistTreeRegressor``): once with ``categorical_features`` naming the
four columns, once without (the codes read as ordered numbers, the plain
fit). The two fits take turns (A, B, A, B, …; the median of 3 runs is
reported), on one thread (``n_jobs=1``, ``OMP_NUM_THREADS=1``) and then on
every core, after one untimed fit on 1000 rows that compiles numba's kernels
or loads them from their cache. CPU seconds (``time.process_time``) and wall
seconds are recorded, with the test log loss of both fits on 100 000 fresh
rows (the work is not the same: the categorical fit should also fit better).

Target: the categorical fit at most 1.2 × the plain fit's time.

Timings mean something on a quiet machine only. Run alone
(``.venv/bin/python benchmarks/categorical_speed.py [--quick] [--no-save]``;
``--quick``: 20 000 rows and 5 trees, to check that it runs) or from ``run_all.py``.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import harness

if __name__ == "__main__":  # before numpy is imported: one thread for OpenMP and BLAS
    harness.single_threaded()

import numpy as np  # noqa: E402

NAME = "categorical_speed"
TARGET = 1.2
SETTINGS = {"n_estimators": 100, "max_depth": 3, "learning_rate": 0.1}
N_ROWS = 1_000_000
N_TEST = 100_000
N_FEATURES = 28
CARDINALITIES = (8, 40, 120, 250)  # the categorical columns 0 … 3
QUICK = {"n_estimators": 5, "n_rows": 20_000}


def data(n_rows, n_test=N_TEST, seed=0):
    """Four categorical columns (codes) and 24 normal ones; a binary label from an
    additive score in which each category has an effect of its own."""
    rng = np.random.RandomState(seed)
    n = n_rows + n_test
    codes = [rng.randint(0, k, n) for k in CARDINALITIES]
    effects = [rng.randn(k) for k in CARDINALITIES]
    numeric = rng.randn(n, N_FEATURES - len(CARDINALITIES))
    score = sum(e[c] for e, c in zip(effects, codes, strict=True)) + numeric[:, :4] @ [
        1.0, -0.5, 0.5, 0.25]
    y = (rng.rand(n) < 1 / (1 + np.exp(-score))).astype(int)
    X = np.c_[np.column_stack(codes).astype(float), numeric]
    return X[:n_rows], y[:n_rows], X[n_rows:], y[n_rows:]


def effective_n_threads(n_jobs):
    from boostlib.trees.threads import effective_n_threads as threads

    return threads(n_jobs)


def model(categorical, n_estimators, n_jobs):
    from boostlib import BoostingClassifier, HistTreeRegressor

    features = list(range(len(CARDINALITIES))) if categorical else None
    return BoostingClassifier(
        direction="newton", step="constant", n_estimators=n_estimators,
        learning_rate=SETTINGS["learning_rate"], random_state=0,
        learner=HistTreeRegressor(max_depth=SETTINGS["max_depth"], n_jobs=n_jobs,
                                  categorical_features=features))


def log_loss(fitted, X, y):
    p = np.clip(fitted.predict_proba(X)[:, 1], 1e-15, 1 - 1e-15)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def run(quick=False, save=True):
    n_estimators = QUICK["n_estimators"] if quick else SETTINGS["n_estimators"]
    n_rows = QUICK["n_rows"] if quick else N_ROWS
    repeat = 1 if quick else 3
    X, y, X_test, y_test = data(n_rows)
    rows = []
    for n_jobs in (1, None):
        for categorical in (True, False):  # compile (or load the cached kernels) untimed
            model(categorical, 2, n_jobs).fit(X[:1000], y[:1000])
        runs = harness.alternating({
            "categorical": partial(model(True, n_estimators, n_jobs).fit, X, y),
            "plain": partial(model(False, n_estimators, n_jobs).fit, X, y),
        }, repeat=repeat)
        cpu = {k: harness.median(v["seconds"]) for k, v in runs.items()}
        wall = {k: harness.median(v["wall"]) for k, v in runs.items()}
        fitted = {k: v["result"] for k, v in runs.items()}
        rows.append({
            "n_rows": n_rows, "n_features": X.shape[1], "cardinalities": str(CARDINALITIES),
            "n_trees": n_estimators, "threads": effective_n_threads(n_jobs),  # numba may be pinned
            "repeats": repeat, "categorical_cpu_s": cpu["categorical"],
            "plain_cpu_s": cpu["plain"], "ratio_cpu": cpu["categorical"] / cpu["plain"],
            "categorical_wall_s": wall["categorical"], "plain_wall_s": wall["plain"],
            "ratio_wall": wall["categorical"] / wall["plain"],
            "categorical_test_log_loss": log_loss(fitted["categorical"], X_test, y_test),
            "plain_test_log_loss": log_loss(fitted["plain"], X_test, y_test),
        })
    if not save:
        import pandas as pd

        return pd.DataFrame(rows)
    return harness.write_csv(NAME, rows, notes=[
        "boostlib BoostingClassifier(newton, constant, HistTreeRegressor(max_depth=3)), "
        f"{SETTINGS}; categorical_features=[0, 1, 2, 3] vs none on the same codes; "
        "median over alternating repeats; cpu = time.process_time",
    ])


def summary(frame):
    one = frame[frame["threads"] == 1]
    worst = one["ratio_cpu"].max()
    verdict = "meets" if worst <= TARGET else "misses"
    shown = frame[["n_rows", "n_trees", "threads", "categorical_cpu_s", "plain_cpu_s",
                   "ratio_cpu", "ratio_wall", "categorical_test_log_loss",
                   "plain_test_log_loss"]]
    return (f"Categorical fit / plain fit (target <= {TARGET} on one thread; CPU ratio "
            f"{worst:.2f} {verdict} it).\n\n" + harness.markdown_table(shown))


def main(argv=None):
    return harness.cli(run, summary, __doc__.splitlines()[0], NAME, QUICK, argv)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
