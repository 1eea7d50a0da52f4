"""(e) boostlib next to its peers at equal settings (chapter 7).

Data: ``make_hastie_10_2`` with ``n`` training rows (10k, 100k), drawn with
``random_state = seed`` for every seed in ``harness.SPLITS``, and the same
100 000 test rows (``random_state=12345``) for every size and seed; labels in
{0, 1}. Every model: depth-3 trees, 100 stages, learning rate 0.1, one thread,
and, wherever the library allows it, the same tree: split on the Newton gain
``G_L²/H_L + G_R²/H_R − G²/H`` with λ = 0, no minimum Hessian sum in a child
(``min_child_weight = 0``), leaves of one row allowed, 255 bins for the
histogram methods, starting from the log-odds of the base rate. What cannot be
made equal is in ``NOT_EQUAL`` (chapter 7 prints it under the table). No stage
is tuned: all run the same 100 stages.

Two rows split on the gradient instead (least squares on ``y − p``, then Newton
leaf values: Friedman's TreeBoost), because scikit-learn's
``GradientBoostingClassifier`` cannot split on anything else: it and boostlib's
default.

Saved per model, size and seed: the test accuracy and log loss. No timing is
taken by ``run``: the benchmark ``peers_timing`` (``run_all.py peers_timing``,
:func:`run_timing`) writes ``peers_timing.csv`` (CPU and wall seconds,
alternating repeats, the load average before and after), to be run on a quiet
machine.
"""

from __future__ import annotations

from functools import partial

import harness
import numpy as np
from lightgbm import LGBMClassifier
from sklearn.datasets import make_hastie_10_2
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
from sklearn.metrics import log_loss
from sklearn.tree import DecisionTreeRegressor
from xgboost import XGBClassifier

from boostlib import BoostingClassifier, HistTreeRegressor

NAME = "peers"
SIZES = (10_000, 100_000)
TIMING_SIZES = (10_000, 100_000, 1_000_000)
N_TEST = 100_000
BINS = 255
SETTINGS = {"n_estimators": 100, "learning_rate": 0.1, "random_state": 0}
GRADIENT_SPLIT = ("boostlib, gradient split (TreeBoost)", "sklearn GradientBoosting")
NOT_EQUAL = {
    "sklearn GradientBoosting": "splits on the gradient (friedman_mse), never on the Newton"
                                " gain; shown with boostlib's gradient split",
    "sklearn HistGradientBoosting": "a child needs a Hessian sum of at least 1e-3"
                                    " (min_hessian_to_split, not a parameter)",
    "XGBoost exact": "refuses a split whose gain is below 1e-6 (kRtEps)",
    "XGBoost hist": "refuses a split whose gain is below 1e-6 (kRtEps); its own quantile sketch",
    "LightGBM": "grows leaf-wise (num_leaves=8 with max_depth=3 is the same tree when every"
                " split has a gain); its own binning (min_data_in_bin=3)",
    "all histogram methods": "each library places its 255 bin thresholds its own way",
}


def peers(y_train):
    """The competitors; ``y_train`` fixes XGBoost's start (the others start there by default)."""
    newton = {"loss": "log_loss", "direction": "newton", "step": "constant", **SETTINGS}
    return {
        "boostlib, exact": BoostingClassifier(
            learner=DecisionTreeRegressor(max_depth=3), **newton),
        "XGBoost exact": XGBClassifier(
            tree_method="exact", max_depth=3, reg_lambda=0.0, min_child_weight=0.0,
            base_score=float(np.mean(y_train)), n_jobs=1, **SETTINGS),
        "boostlib, histogram": BoostingClassifier(
            learner=HistTreeRegressor(max_depth=3, max_bins=BINS, min_child_weight=0.0,
                                      n_jobs=1),  # None: numba's whole pool
            **newton),
        "XGBoost hist": XGBClassifier(
            tree_method="hist", max_bin=BINS, max_depth=3, reg_lambda=0.0, min_child_weight=0.0,
            base_score=float(np.mean(y_train)), n_jobs=1, **SETTINGS),
        "sklearn HistGradientBoosting": HistGradientBoostingClassifier(
            max_depth=3, max_leaf_nodes=None, max_iter=100, learning_rate=0.1,
            min_samples_leaf=1, l2_regularization=0.0, max_bins=BINS, early_stopping=False,
            random_state=0),
        "LightGBM": LGBMClassifier(
            num_leaves=8, max_depth=3, min_child_samples=1, min_child_weight=0.0,
            reg_lambda=0.0, max_bin=BINS, n_jobs=1, verbose=-1, **SETTINGS),
        GRADIENT_SPLIT[0]: BoostingClassifier(loss="log_loss", **SETTINGS),
        GRADIENT_SPLIT[1]: GradientBoostingClassifier(max_depth=3, **SETTINGS),
    }


def splits_of(name):
    return "exact" if "exact" in name or name in GRADIENT_SPLIT else "histogram"


def hastie(n_train, random_state=0):
    """``n_train`` training rows and the fixed ``N_TEST`` test rows, labels in {0, 1}."""
    X_test, y_test = make_hastie_10_2(n_samples=N_TEST, random_state=12345)
    X, y = make_hastie_10_2(n_samples=n_train, random_state=random_state)
    return X, (y > 0).astype(int), X_test, (y_test > 0).astype(int)


def run(quick=False):
    sizes = SIZES[:1] if quick else SIZES
    seeds = harness.SPLITS[:1] if quick else harness.SPLITS
    rows = []
    for n in sizes:
        for seed in seeds:
            done = harness.resumed(NAME, f"{n}_{seed}")
            if done is not None:
                rows += done
                continue
            first = len(rows)
            X, y, X_test, y_test = hastie(n, random_state=seed)
            for name, model in peers(y).items():
                proba = model.fit(X, y).predict_proba(X_test)[:, 1]
                rows.append({"n_train": n, "seed": seed, "library": name,
                             "splits": splits_of(name),
                             "split_criterion": "gradient" if name in GRADIENT_SPLIT
                             else "Newton gain",
                             "test_accuracy": float(np.mean((proba > 0.5) == y_test)),
                             "test_log_loss": float(log_loss(y_test, proba))})
            harness.resumed(NAME, f"{n}_{seed}", rows[first:])
            print(f"[peers] n={n} seed {seed} done", flush=True)
    return harness.write_csv(NAME, rows, notes=[
        "make_hastie_10_2, n_train rows (random_state = seed), test 100000 rows (random_state"
        " 12345); depth 3, 100 stages, lr 0.1, one thread; Newton-gain split, lambda 0,"
        " min_child_weight 0, min leaf 1 row, 255 bins, wherever the library allows"
        " (peers.NOT_EQUAL lists the rest); no timing"])


def run_timing(quick=False):
    """Fit seconds at ``TIMING_SIZES`` (seed 0), for a quiet machine: ``peers_timing.csv``."""
    import os

    sizes = TIMING_SIZES[:1] if quick else TIMING_SIZES
    rows, load_before = [], os.getloadavg()[0]
    for n in sizes:
        X, y, _, _ = hastie(n)
        models = peers(y)
        slow = ("boostlib, exact", *GRADIENT_SPLIT) if n >= 1_000_000 else ()
        runs = harness.alternating({k: partial(m.fit, X, y) for k, m in models.items()
                                    if k not in slow}, repeat=1 if quick else 3)
        runs.update(harness.alternating({k: partial(models[k].fit, X, y) for k in slow},
                                        repeat=1))
        for name in models:
            cpu, wall = harness.median(runs[name]["seconds"]), harness.median(runs[name]["wall"])
            rows.append({"n_train": n, "library": name, "splits": splits_of(name),
                         "fit_cpu_s": cpu, "fit_wall_s": wall, "wall_over_cpu": wall / cpu,
                         "repeats": len(runs[name]["seconds"])})
    return harness.write_csv(f"{NAME}_timing", rows, notes=[
        f"fit seconds, seed 0, one thread; load average before {load_before:.2f}, after"
        f" {os.getloadavg()[0]:.2f}; a row with wall_over_cpu above 1.15 is not to be trusted"])


def summary(frame):
    table = frame.groupby(["library", "n_train"], sort=False).agg(
        test_accuracy=("test_accuracy", "mean"), accuracy_se=("test_accuracy", "sem"),
        test_log_loss=("test_log_loss", "mean"), log_loss_se=("test_log_loss", "sem"),
    ).reset_index()
    return (f"Peers at equal settings over {frame['seed'].nunique()} training seeds (mean and"
            " standard error); depth 3, 100 stages, learning rate 0.1, 100 000 test rows."
            " Not equal: " + "; ".join(f"{k}: {v}" for k, v in NOT_EQUAL.items()) + ".\n\n"
            + harness.markdown_table(table))

