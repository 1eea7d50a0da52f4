"""(e) boostlib next to its peers at equal settings: depth 3, 100 stages, learning rate 0.1.

Data: ``make_hastie_10_2`` with ``n`` training rows (10k, 100k, 1M) and the same
100 000 test rows for every size; labels mapped to {0, 1}. Every library is
single-threaded and otherwise at its defaults:

* boostlib ``BoostingClassifier(loss="log_loss")`` (exact splits, leaf Newton values);
* scikit-learn ``GradientBoostingClassifier(max_depth=3)`` (exact splits);
* scikit-learn ``HistGradientBoostingClassifier(max_depth=3, early_stopping=False)``
  (≤ 255 bins per feature);
* XGBoost ``XGBClassifier(tree_method="hist", max_depth=3)`` (256 bins; λ = 1)
  and, at 10k and 100k only, ``tree_method="exact"``;
* LightGBM ``LGBMClassifier(num_leaves=8, max_depth=3)`` (255 bins, leaf-wise).

Fit time is CPU seconds (``time.process_time``; wall seconds are saved too),
the median of 3 alternating repeats — except at 1M rows, where the two
exact-split gradient boosters (boostlib and scikit-learn's GradientBoosting,
minutes per fit on one core) run once.
"""

from __future__ import annotations

from functools import partial

import harness
import numpy as np
from lightgbm import LGBMClassifier
from sklearn.datasets import make_hastie_10_2
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
from sklearn.metrics import log_loss
from xgboost import XGBClassifier

from boostlib import BoostingClassifier

NAME = "peers"
SIZES = (10_000, 100_000, 1_000_000)
N_TEST = 100_000
EXACT = ("boostlib", "sklearn GradientBoosting", "XGBoost exact")  # no binning
SETTINGS = {"n_estimators": 100, "learning_rate": 0.1, "random_state": 0}


def peers(n_samples):
    """The competitors at equal settings (XGBoost exact only below 1M rows)."""
    models = {
        "boostlib": BoostingClassifier(loss="log_loss", **SETTINGS),
        "sklearn GradientBoosting": GradientBoostingClassifier(max_depth=3, **SETTINGS),
        "sklearn HistGradientBoosting": HistGradientBoostingClassifier(
            max_depth=3, max_iter=100, learning_rate=0.1, early_stopping=False, random_state=0),
        "XGBoost hist": XGBClassifier(tree_method="hist", max_depth=3, n_jobs=1, **SETTINGS),
        "XGBoost exact": XGBClassifier(tree_method="exact", max_depth=3, n_jobs=1, **SETTINGS),
        "LightGBM": LGBMClassifier(num_leaves=8, max_depth=3, n_jobs=1, verbose=-1,
                                   **SETTINGS),
    }
    if n_samples >= 1_000_000:
        del models["XGBoost exact"]
    return models


def hastie(n_train, random_state=0):
    """``n_train`` training rows and the fixed ``N_TEST`` test rows, labels in {0, 1}."""
    X_test, y_test = make_hastie_10_2(n_samples=N_TEST, random_state=12345)
    X, y = make_hastie_10_2(n_samples=n_train, random_state=random_state)
    return X, (y > 0).astype(int), X_test, (y_test > 0).astype(int)


def run(quick=False):
    sizes = SIZES[:1] if quick else SIZES
    rows = []
    for n in sizes:
        X, y, X_test, y_test = hastie(n)
        models = peers(n)
        fits = {name: partial(m.fit, X, y) for name, m in models.items()}
        repeat = 1 if quick else 3
        if n >= 1_000_000:  # the exact-split boosters once, the others three times
            runs = harness.alternating({k: f for k, f in fits.items() if k not in EXACT},
                                       repeat=repeat)
            runs.update(harness.alternating({k: f for k, f in fits.items() if k in EXACT},
                                            repeat=1))
        else:
            runs = harness.alternating(fits, repeat=repeat)
        for name, model in models.items():
            proba = model.predict_proba(X_test)[:, 1]
            rows.append({
                "n_train": n, "library": name,
                "splits": "exact" if name in EXACT else "histogram",
                "test_accuracy": float(np.mean((proba > 0.5) == y_test)),
                "test_log_loss": float(log_loss(y_test, proba)),
                "fit_cpu_s": harness.median(runs[name]["seconds"]),
                "fit_wall_s": harness.median(runs[name]["wall"]),
                "repeats": len(runs[name]["seconds"]),
            })
            print(f"[peers] n={n} {name}: {rows[-1]['fit_cpu_s']:.2f} s CPU", flush=True)
    return harness.write_csv(NAME, rows, notes=[
        "make_hastie_10_2, n_train rows (random_state 0), test 100000 rows (random_state 12345);"
        " depth 3, 100 stages, lr 0.1, one thread; fit_cpu_s = time.process_time, median of"
        " 'repeats' alternating runs (1 for the exact-split boosters at 1M rows)",
    ])


def summary(frame):
    table = frame.pivot_table(index=["library", "splits"], columns="n_train",
                              values="fit_cpu_s", sort=False)
    table.columns = [f"fit CPU s, n={c:,}" for c in table.columns]
    quality = frame.pivot_table(index="library", columns="n_train", values="test_accuracy",
                                sort=False)
    quality.columns = [f"test accuracy, n={c:,}" for c in quality.columns]
    both = table.reset_index().merge(quality.reset_index(), on="library")
    return ("Peers at depth 3, 100 stages, learning rate 0.1, one thread; 100 000 test rows. "
            "At 1M rows the exact-split boosters ran once, the others 3 times.\n\n"
            + harness.markdown_table(both))
