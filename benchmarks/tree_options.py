"""HistTreeRegressor's options at 1M rows: monotone constraints, column subsampling, sparse X.

Two measurements, each in a fresh process on one thread:

* **fit time** (CPU and wall) of boostlib's XGBoost recipe (Newton direction,
  constant step, 100 depth-3 trees) on ``make_classification`` data with 28
  features, plain, with ``monotonic_cst`` on half the features, and with
  ``max_features=0.5``; the ratio to the plain fit (issue 22's target: a
  monotone fit within 1.2 × the plain one). Times are only meaningful on a quiet
  machine.
* **memory** of fitting one ``HistTreeRegressor(max_depth=6)`` to a sparse CSR
  matrix of 1M rows × 100 features at 1 % density (1M stored values), against
  the dense float64 matrix it stands for (800 MB, never built): the process's
  peak resident size above its size before the fit (Linux ``VmHWM`` after
  ``/proc/self/clear_refs``), and ``tracemalloc``'s peak (numpy's allocations:
  the bins, the CSC copy, the per-column subsample).

``--quick`` runs both at 20 000 rows (to show the script works).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import harness
from memory import _status  # a line of /proc/self/status, in bytes

NAME = "tree_options"
N_FEATURES = 28
SPARSE_FEATURES = 100
DENSITY = 0.01
VARIANTS = ("plain", "monotone", "max_features=0.5")


def fit_time(variant, n_train):
    """One fit of the recipe, after a warm-up fit on 2000 rows (numba's compilation)."""
    import numpy as np
    from sklearn.datasets import make_classification

    from boostlib import BoostingClassifier, HistTreeRegressor

    X, y = make_classification(n_samples=n_train, n_features=N_FEATURES, n_informative=14,
                               random_state=0)
    options = {"plain": {},
               "monotone": {"monotonic_cst": [1, -1] * (N_FEATURES // 4)
                            + [0] * (N_FEATURES // 2)},
               "max_features=0.5": {"max_features": 0.5}}[variant]

    def model(n_estimators):
        return BoostingClassifier(direction="newton", step="constant", init="zero",
                                  n_estimators=n_estimators, random_state=0,
                                  learner=HistTreeRegressor(max_depth=3, n_jobs=1, **options))

    model(2).fit(X[:2000], y[:2000])
    cpu, wall = time.process_time(), time.perf_counter()
    fitted = model(100).fit(X, y)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"measure": "fit time", "variant": variant, "n_samples": n_train,
            "fit_cpu_s": cpu, "fit_wall_s": wall,
            "train_accuracy": float(np.mean(fitted.predict(X) == y))}


def sparse_memory(n_train):
    """The extra peak memory of fitting one tree to a sparse CSR matrix."""
    import tracemalloc

    import numpy as np
    from scipy import sparse

    from boostlib import HistTreeRegressor

    rng = np.random.default_rng(0)
    X = sparse.random(n_train, SPARSE_FEATURES, density=DENSITY, format="csr", random_state=rng,
                      data_rvs=rng.standard_normal)
    y = np.asarray(X[:, :3].sum(axis=1)).ravel() + rng.standard_normal(n_train)
    HistTreeRegressor(max_depth=2, n_jobs=1).fit(X[:2000], y[:2000])  # compile first
    tree = HistTreeRegressor(max_depth=6, n_jobs=1)
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")  # reset the peak RSS to the current RSS
        before = _status("VmRSS")
        tracemalloc.start()
        tree.fit(X, y)
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rss = _status("VmHWM") - before
    except OSError:
        tracemalloc.start()
        tree.fit(X, y)
        traced, rss = tracemalloc.get_traced_memory()[1], float("nan")
        tracemalloc.stop()
    X_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return {"measure": "sparse memory", "variant": f"CSR, {DENSITY:.0%} density",
            "n_samples": n_train, "n_features": SPARSE_FEATURES, "stored_values": int(X.nnz),
            "X_sparse_mb": X_bytes / 2**20,
            "X_dense_equivalent_mb": n_train * SPARSE_FEATURES * 8 / 2**20,
            "bins_mb": n_train * SPARSE_FEATURES / 2**20,
            "fit_extra_peak_rss_mb": rss / 2**20, "fit_tracemalloc_peak_mb": traced / 2**20}


def _in_subprocess(*args):
    out = subprocess.run([sys.executable, __file__, *map(str, args)], env=dict(os.environ),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(quick=False):
    n_train = 20_000 if quick else 1_000_000
    rows = [_in_subprocess("fit_time", variant, n_train) for variant in VARIANTS]
    plain = rows[0]["fit_cpu_s"]
    for row in rows:
        row["cpu_ratio_to_plain"] = row["fit_cpu_s"] / plain
    rows.append(_in_subprocess("sparse_memory", n_train))
    return harness.write_csv(NAME, rows, notes=[
        f"make_classification {n_train} rows x {N_FEATURES} features, Newton recipe, 100 "
        "depth-3 trees, one thread, each fit in a fresh process after a warm-up; sparse: one "
        f"depth-6 tree on CSR {n_train} x {SPARSE_FEATURES} at {DENSITY:.0%} density",
    ])


def summary(frame):
    times = frame[frame["measure"] == "fit time"]
    memory = frame[frame["measure"] == "sparse memory"]
    text = ("Fit time with monotone constraints and column subsampling, against the plain fit "
            "(target: monotone within 1.2 x).\n\n"
            + harness.markdown_table(times[["variant", "n_samples", "fit_cpu_s", "fit_wall_s",
                                            "cpu_ratio_to_plain", "train_accuracy"]]))
    if len(memory):
        text += ("\n\nSparse X: one tree fitted to a CSR matrix, extra peak memory against the "
                 "dense matrix it stands for.\n\n" + harness.markdown_table(memory[[
                     "n_samples", "n_features", "stored_values", "X_sparse_mb",
                     "X_dense_equivalent_mb", "bins_mb", "fit_extra_peak_rss_mb",
                     "fit_tracemalloc_peak_mb"]]))
    return text


if __name__ == "__main__":
    harness.single_threaded()
    what, *args = sys.argv[1:]
    if what == "fit_time":
        print(json.dumps(fit_time(args[0], int(args[1]))))
    else:
        print(json.dumps(sparse_memory(int(args[0]))))
