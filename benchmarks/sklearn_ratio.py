"""(a) boostlib against scikit-learn's GradientBoostingClassifier: fit-time ratio.

Both fit log-loss boosting with depth-3 trees, 100 stages, learning rate 0.1 on
``make_hastie_10_2``; the decision functions are asserted equal first, so the
two fits do the same work. Target: boostlib / scikit-learn <= 1.05.
"""

from __future__ import annotations

from functools import partial

import harness
import numpy as np
from sklearn.datasets import make_hastie_10_2
from sklearn.ensemble import GradientBoostingClassifier

from boostlib import BoostingClassifier

NAME = "sklearn_ratio"
SIZES = (10_000, 100_000)
TARGET = 1.05


def pair(random_state=0):
    """The two estimators compared, configured identically."""
    return {
        "boostlib": BoostingClassifier(loss="log_loss", step="leaf_newton", n_estimators=100,
                                       learning_rate=0.1, random_state=random_state),
        "sklearn": GradientBoostingClassifier(max_depth=3, n_estimators=100, learning_rate=0.1,
                                              random_state=random_state),
    }


def run(quick=False):
    sizes = SIZES[:1] if quick else SIZES
    repeat = 1 if quick else 3
    rows = []
    for n in sizes:
        X, y = make_hastie_10_2(n_samples=n, random_state=0)
        models = pair()
        runs = harness.alternating({k: partial(m.fit, X, y) for k, m in models.items()},
                                   repeat=repeat)
        F_boost = models["boostlib"].decision_function(X)
        F_sklearn = models["sklearn"].decision_function(X)
        gap = float(np.max(np.abs(F_boost - F_sklearn)))
        assert gap < 1e-8, f"not the same model at n={n}: max |F difference| = {gap}"
        cpu = {k: harness.median(v["seconds"]) for k, v in runs.items()}
        wall = {k: harness.median(v["wall"]) for k, v in runs.items()}
        rows.append({
            "n_samples": n, "repeats": repeat,
            "boostlib_cpu_s": cpu["boostlib"], "sklearn_cpu_s": cpu["sklearn"],
            "ratio_cpu": cpu["boostlib"] / cpu["sklearn"],
            "boostlib_wall_s": wall["boostlib"], "sklearn_wall_s": wall["sklearn"],
            "ratio_wall": wall["boostlib"] / wall["sklearn"],
            "max_abs_F_difference": gap,
        })
    return harness.write_csv(NAME, rows, notes=[
        "fit time of BoostingClassifier(log_loss, leaf_newton) vs GradientBoostingClassifier"
        "(max_depth=3); 100 stages, lr 0.1, make_hastie_10_2(random_state=0);"
        " median over alternating repeats; cpu = time.process_time",
    ])


def summary(frame):
    shown = frame[["n_samples", "repeats", "boostlib_cpu_s", "sklearn_cpu_s", "ratio_cpu",
                   "ratio_wall", "max_abs_F_difference"]]
    worst = frame["ratio_cpu"].max()
    verdict = "meets" if worst <= TARGET else "misses"
    return (f"Fit time, boostlib / scikit-learn GradientBoostingClassifier (target <= {TARGET}; "
            f"worst CPU ratio {worst:.3f} {verdict} it). Same decision function asserted.\n\n"
            + harness.markdown_table(shown))
