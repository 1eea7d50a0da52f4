"""(f) boostlib's histogram trees next to the histogram libraries, and seed 000 on them (chapter 8).

**Peers.** ``make_classification`` with 28 features (14 informative; the shape
of the Higgs data) at 10k, 100k, 1M and 10M training rows, and the same
100 000 test rows for every size (one pool of rows, :func:`make_pool`).
Every library is single-threaded, grows depth-3 trees depth-wise, 100
stages, learning rate 0.1, 255 bins, no L2 penalty, no early stopping:

* boostlib ``BoostingClassifier(direction="newton", step="constant",
  learner=HistTreeRegressor(max_depth=3))``: XGBoost's tree, fitted in the one loop;
* scikit-learn ``HistGradientBoostingClassifier(max_depth=3, max_leaf_nodes=None)``;
* XGBoost ``XGBClassifier(tree_method="hist", max_bin=256, reg_lambda=0)``
  (256 bins, all for values: XGBoost keeps no missing-value bin; boostlib has 255 + 1 for NaN);
* LightGBM ``LGBMClassifier(num_leaves=8, max_depth=3, max_bin=255, reg_lambda=0)``.

Each fit runs in a fresh subprocess that loads the data from a ``.npy`` file,
warms up on 1000 rows (numba compiles, or loads its cache, there), resets the
peak resident set size (``/proc/self/clear_refs``) and fits: CPU seconds
(``time.process_time``), wall seconds and the peak extra memory (``VmHWM``
minus the resident size before the fit). The libraries take turns, A, B, C,
D, A, B, …: 3 rounds up to 1M rows, 1 at 10M; the median is reported.

**Compilation.** numba compiles boostlib's kernels on first use and caches
them on disk (``cache=True``). Two fresh processes, the first with an empty
cache directory (``NUMBA_CACHE_DIR``) and the second reusing it, import
boostlib and fit a tiny model: the difference is the one-off compile cost.

**Seed 000** (chapter 4's experiment: binomial deviance, a first tree fitted
to ``y`` taken as it is, line search, 100 depth-3 trees, ``load_split("hastie")``)
with ``HistTreeRegressor`` against the exact ``DecisionTreeRegressor``: CPU
seconds per variant (median of 3 alternating fits) and test accuracy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import harness
import numpy as np

NAME = "hist_trees"
SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
N_TEST = 100_000
N_FEATURES = 28
LIBRARIES = ("boostlib HistTree", "sklearn HistGradientBoosting", "XGBoost hist", "LightGBM")
SETTINGS = {"n_estimators": 100, "learning_rate": 0.1}
DATA = Path(__file__).resolve().parents[1] / ".cache" / "bench_data"
VARIANTS = {"gbm": "gradient", "nbm_1": "newton_raphson", "nbm_2": "newton_unweighted"}


def model(library):
    """The competitor ``library`` at the shared settings."""
    if library == "boostlib HistTree":
        from boostlib import BoostingClassifier, HistTreeRegressor

        return BoostingClassifier(direction="newton", step="constant",
                                  learner=HistTreeRegressor(max_depth=3, random_state=0),
                                  random_state=0, **SETTINGS)
    if library == "sklearn HistGradientBoosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(max_depth=3, max_leaf_nodes=None, max_iter=100,
                                              learning_rate=0.1, max_bins=255,
                                              l2_regularization=0.0, early_stopping=False,
                                              random_state=0)
    if library == "XGBoost hist":
        from xgboost import XGBClassifier

        return XGBClassifier(tree_method="hist", max_depth=3, max_bin=256, reg_lambda=0.0,
                             n_jobs=1, random_state=0, **SETTINGS)
    if library == "LightGBM":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(num_leaves=8, max_depth=3, max_bin=255, reg_lambda=0.0,
                              n_jobs=1, verbose=-1, random_state=0, **SETTINGS)
    raise ValueError(f"unknown library {library!r}")


def pool_path():
    return DATA / f"classification_{N_FEATURES}.npy"


def make_pool(n_largest):
    """One problem for every size: ``n_largest + N_TEST`` shuffled rows of one
    ``make_classification`` call (its clusters depend on the row count, so each size
    cannot have its own call); features in columns 0–27, the label in column 28.
    A size takes the first ``n`` rows, the test set is always the last ``N_TEST``."""
    from sklearn.datasets import make_classification

    path = pool_path()
    if path.exists() and len(np.load(path, mmap_mode="r")) >= n_largest + N_TEST:
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    X, y = make_classification(n_samples=n_largest + N_TEST, n_features=N_FEATURES,
                               n_informative=14, random_state=0)
    np.save(path, np.column_stack([X, y]))
    return path


def load(n_train):
    """The first ``n_train`` rows and the last ``N_TEST`` rows of the pool, in memory."""
    pool = np.load(pool_path(), mmap_mode="r")
    train, test = np.array(pool[:n_train]), np.array(pool[-N_TEST:])
    X = np.ascontiguousarray(train[:, :N_FEATURES])
    return X, train[:, N_FEATURES].astype(int), test[:, :N_FEATURES], test[:, N_FEATURES]


def _status(key):
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024  # kB -> bytes
    raise KeyError(key)


def measure(library, n_train):
    """In this process: fit ``library`` on ``n_train`` rows; CPU, wall, peak memory, test loss."""
    import time

    from sklearn.metrics import log_loss

    X, y, X_test, y_test = load(n_train)
    model(library).fit(X[:1000], y[:1000])  # warm-up: numba compiles or loads its cache
    estimator = model(library)
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
        clear.write("5")  # the peak resident size starts again from the current size
    before = _status("VmRSS")
    wall, cpu = time.perf_counter(), time.process_time()
    estimator.fit(X, y)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    extra = _status("VmHWM") - before
    proba = estimator.predict_proba(X_test)[:, 1]
    return {"fit_cpu_s": cpu, "fit_wall_s": wall, "peak_extra_mb": extra / 2**20,
            "x_mb": X.nbytes / 2**20, "test_log_loss": float(log_loss(y_test, proba)),
            "test_accuracy": float(np.mean((proba > 0.5) == y_test))}


def _in_subprocess(*args, env=None):
    out = subprocess.run([sys.executable, __file__, *map(str, args)], check=True,
                         capture_output=True, text=True, env=env,
                         cwd=Path(__file__).resolve().parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compile_times():
    """CPU seconds of import + a tiny fit, with an empty numba cache and then with it filled."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        first = _in_subprocess("--tiny", env=env)
        second = _in_subprocess("--tiny", env=env)
    return {"first_process_s": first["cpu_s"], "cached_process_s": second["cpu_s"]}


def tiny():
    """Import boostlib and fit one small histogram-tree model: what a chapter's first cell pays."""
    import time

    start = time.process_time()
    from boostlib import BoostingClassifier, HistTreeRegressor

    rng = np.random.RandomState(0)
    X = rng.randn(500, 5)
    X[::7, 0] = np.nan
    y = (rng.rand(500) < 0.5).astype(int)
    for max_leaf_nodes in (None, 6):
        BoostingClassifier(learner=HistTreeRegressor(max_leaf_nodes=max_leaf_nodes),
                           n_estimators=3).fit(X, y).predict(X)
    return {"cpu_s": time.process_time() - start}


def seed000(repeat=3):
    """Seed 000's three variants with the exact tree and with HistTreeRegressor."""
    from sklearn.tree import DecisionTreeRegressor

    from boostlib import BoostingClassifier, HistTreeRegressor
    from boostlib.datasets import load_split

    data = load_split("hastie", random_state=0)
    learners = {"exact (DecisionTreeRegressor)": DecisionTreeRegressor(max_depth=3),
                "histogram (HistTreeRegressor)": HistTreeRegressor(max_depth=3)}

    def fit(direction, learner):
        return lambda: BoostingClassifier(
            loss="binomial_deviance", direction=direction, step="line_search", learner=learner,
            n_estimators=100, learning_rate=0.1, init="learner", init_step="constant",
            random_state=0).fit(data.X_train, data.y_train)

    cases = {(variant, name): fit(direction, learner)
             for variant, direction in VARIANTS.items() for name, learner in learners.items()}
    for work in cases.values():  # warm-up: numba compiles or loads its cache
        work()
    runs = harness.alternating(cases, repeat=repeat)
    return [{"seed_variant": variant, "learner": name,
             "cpu_s": harness.median(runs[variant, name]["seconds"]), "repeats": repeat,
             "test_accuracy": float(runs[variant, name]["result"].score(data.X_test,
                                                                         data.y_test))}
            for variant, name in cases]


def run(quick=False):
    sizes = SIZES[:2] if quick else SIZES
    rows = []
    make_pool(max(sizes))
    for n in sizes:
        repeat = 1 if quick or n >= 10_000_000 else 3
        runs = {library: [] for library in LIBRARIES}
        for _ in range(repeat):
            for library in LIBRARIES:
                runs[library].append(_in_subprocess("--measure", library, n))
                print(f"[{NAME}] n={n} {library}: {runs[library][-1]['fit_cpu_s']:.2f} s CPU",
                      flush=True)
        for library, results in runs.items():
            row = {"n_train": n, "library": library, "repeats": repeat}
            for key in results[0]:
                row[key] = float(np.median([r[key] for r in results]))
            rows.append(row)
    note = ("make_classification, 28 features (14 informative), random_state 0: the first"
            " n_train rows for training, the same last 100000 rows for testing; depth 3"
            " depth-wise, 100 stages, lr 0.1, 255 bins, no L2, one thread; every fit in a"
            " fresh process after a warm-up fit;"
            " fit_cpu_s = time.process_time, peak_extra_mb = VmHWM after reset - VmRSS before;"
            " medians over 'repeats' alternating rounds")
    harness.write_csv(NAME, rows, notes=[note])
    harness.write_csv(f"{NAME}_compile", [compile_times()], notes=[
        "CPU seconds of a fresh process importing boostlib and fitting a tiny model with"
        " histogram trees: first with an empty NUMBA_CACHE_DIR, then reusing it"])
    harness.write_csv(f"{NAME}_seed000", seed000(repeat=1 if quick else 3), notes=[
        "seed 000: binomial_deviance, init=learner, init_step=constant, line search, lr 0.1,"
        " 100 depth-3 trees, load_split('hastie', 0); cpu_s = time.process_time of fit,"
        " median of alternating repeats after a warm-up"])
    return rows


def ratios(frame):
    """CPU seconds, peak memory and test log loss per library and size, with HGB's ratios."""
    hgb = frame[frame.library == "sklearn HistGradientBoosting"].set_index("n_train")
    out = frame.copy()
    out["cpu_vs_hgb"] = out.fit_cpu_s / out.n_train.map(hgb.fit_cpu_s)
    out["memory_vs_X"] = out.peak_extra_mb / out.x_mb
    out["log_loss_vs_hgb"] = out.test_log_loss / out.n_train.map(hgb.test_log_loss) - 1
    return out


def summary(frame):
    table = ratios(frame)[["n_train", "library", "fit_cpu_s", "cpu_vs_hgb", "peak_extra_mb",
                           "memory_vs_X", "test_log_loss", "log_loss_vs_hgb", "repeats"]]
    parts = ["Histogram trees, 28 features, depth 3, 100 stages, 255 bins, one thread; "
             "fit CPU seconds and their ratio to scikit-learn's HistGradientBoosting, peak "
             "extra memory (MB and as a multiple of X), test log loss and its relative "
             "difference from HistGradientBoosting's.", "", harness.markdown_table(table)]
    compile_ = harness.read_csv(f"{NAME}_compile")
    if compile_ is not None:
        parts += ["", "numba compilation (CPU seconds of a fresh process that imports boostlib "
                  "and fits a tiny model): empty cache "
                  f"{compile_.first_process_s[0]:.1f} s, cache filled "
                  f"{compile_.cached_process_s[0]:.1f} s."]
    seed = harness.read_csv(f"{NAME}_seed000")
    if seed is not None:
        parts += ["", "Seed 000's experiment with the exact and the histogram tree (CPU "
                  "seconds per variant, test accuracy):", "", harness.markdown_table(seed)]
    return "\n".join(parts)


if __name__ == "__main__":
    harness.single_threaded()
    if sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], int(sys.argv[3]))))
    elif sys.argv[1] == "--tiny":
        print(json.dumps(tiny()))
