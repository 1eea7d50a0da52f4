"""(f) boostlib's histogram trees next to the histogram libraries, and seed 000 on them (chapter 8).

**Peers.** ``make_classification`` with 28 features (14 informative; the shape
of the Higgs data) at 10k, 100k, 1M and 10M training rows, and the same
100 000 test rows for every size (one pool of rows, :func:`make_pool`).
Every library grows depth-3 trees (boostlib and XGBoost depth-wise,
HistGradientBoosting and LightGBM best-first with no leaf budget short of a full
depth-3 tree: the same trees), 100 stages, learning rate 0.1,
255 bins, no L2 penalty, no early stopping, on one thread (``hist_trees.csv``)
and on 1, 2, 4, … up to every core of the machine (``hist_trees_threads.csv``,
1M and 10M rows):

* boostlib ``BoostingClassifier(direction="newton", step="constant",
  learner=HistTreeRegressor(max_depth=3))``: XGBoost's tree, fitted in the one loop;
* scikit-learn ``HistGradientBoostingClassifier(max_depth=3, max_leaf_nodes=None)``;
* XGBoost ``XGBClassifier(tree_method="hist", max_bin=256, reg_lambda=0)``
  (256 bins, all for values: XGBoost keeps no missing-value bin; boostlib has 255 + 1 for NaN);
* LightGBM ``LGBMClassifier(num_leaves=8, max_depth=3, max_bin=255, reg_lambda=0)``.

Each fit runs in a fresh subprocess that loads the data from a ``.npy`` file,
warms up on 1000 rows (numba compiles, or loads its cache, there), resets the
peak resident set size (``/proc/self/clear_refs``) and fits: CPU seconds of
every thread (``time.process_time``), wall seconds, the peak extra memory
(``VmHWM`` minus the resident size before the fit) and the 1-minute load
average before and after. The libraries take turns, A, B, C, D, A, B, …: 3
rounds at every size (at 10M rows a round takes some 11 minutes on two cores); the
median is reported. A thread count is
set in the subprocess before any library starts its threads
(``OMP_NUM_THREADS``, which HistGradientBoosting reads, and ``n_jobs``).
On one thread, wall seconds above 1.15 × CPU seconds mean the process waited
for a core: such a row is flagged ``contended`` (the machine was not quiet).

**Where the time goes** (``hist_trees_profile.csv``): boostlib's fit at 1M
rows, on one thread and on every core, with a clock around each kernel the
grower calls: histograms (built from rows, and by subtraction), the split
scan, the partition, the rest of the grower, and for comparison the walk of
every training row down the tree (prediction), which the fit itself avoids;
then the fit's work outside the trees, per stage: the stage loop's own (loss,
gradient, Hessian, step, the update of ``F``: a clock around the loop less
its trees and ``F_0``), the binning, and the rest of ``fit`` (checks of the
input, ``F_0``), both once per fit and spread over the stages.

**Compilation.** numba compiles boostlib's kernels on first use and caches
them on disk (``cache=True``). Two fresh processes, the first with an empty
cache directory (``NUMBA_CACHE_DIR``) and the second reusing it, import
boostlib and fit small models that call every kernel (the parallel partition
too, on every core): the difference is the one-off compile cost. Three such pairs,
each with a cache directory of its own; the medians are saved, with the range of
the first process's time (re-run alone with ``--compile-only``).

**Seed 000** (chapter 4's experiment: binomial deviance, a first tree fitted
to ``y`` taken as it is, line search, 100 depth-3 trees, ``load_split("hastie")``)
with ``HistTreeRegressor`` against the exact ``DecisionTreeRegressor``: CPU
seconds per variant (median of 3 alternating fits) and test accuracy.
"""

from __future__ import annotations

import functools
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
THREAD_SIZES = (1_000_000, 10_000_000)  # the all-cores comparison
PROFILE_SIZE = 1_000_000
N_TEST = 100_000
N_FEATURES = 28
LIBRARIES = ("boostlib HistTree", "sklearn HistGradientBoosting", "XGBoost hist", "LightGBM")
SETTINGS = {"n_estimators": 100, "learning_rate": 0.1}
DATA = Path(__file__).resolve().parents[1] / ".cache" / "bench_data"
VARIANTS = {"gbm": "gradient", "nbm_1": "newton_raphson", "nbm_2": "newton_unweighted"}
CONTENDED = 1.15  # one thread: wall above this many CPU seconds means it waited for a core


def cores():
    """The cores this process may run on (numba's and HistGradientBoosting's default)."""
    return len(os.sched_getaffinity(0))


def thread_counts():
    """1, 2, 4, … and every core: the thread counts of the all-cores comparison."""
    counts, k = [], 1
    while k < cores():
        counts.append(k)
        k *= 2
    return counts + [cores()]


def model(library, threads=1):
    """The competitor ``library`` at the shared settings, on ``threads`` threads.

    HistGradientBoosting takes its thread count from ``OMP_NUM_THREADS``, which
    :func:`set_threads` sets before scikit-learn starts its OpenMP runtime.
    """
    if library == "boostlib HistTree":
        from boostlib import BoostingClassifier, HistTreeRegressor

        return BoostingClassifier(direction="newton", step="constant",
                                  learner=HistTreeRegressor(max_depth=3, random_state=0,
                                                            n_jobs=threads),
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
                             n_jobs=threads, random_state=0, **SETTINGS)
    if library == "LightGBM":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(num_leaves=8, max_depth=3, max_bin=255, reg_lambda=0.0,
                              n_jobs=threads, verbose=-1, random_state=0, **SETTINGS)
    raise ValueError(f"unknown library {library!r}")


def set_threads(threads):
    """OpenMP (scikit-learn, XGBoost, LightGBM) and numba (boostlib) on ``threads``
    threads, BLAS on one; call before scikit-learn is imported."""
    harness.single_threaded()
    os.environ["OMP_NUM_THREADS"] = os.environ["NUMBA_NUM_THREADS"] = str(threads)


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


def measure(library, n_train, threads=1):
    """In this process: fit ``library`` on ``n_train`` rows; CPU, wall, peak memory, load,
    test loss."""
    import time

    from sklearn.metrics import log_loss

    X, y, X_test, y_test = load(n_train)
    model(library, threads).fit(X[:1000], y[:1000])  # warm-up: numba compiles or loads its cache
    estimator = model(library, threads)
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
        clear.write("5")  # the peak resident size starts again from the current size
    before = _status("VmRSS")
    load_before = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    estimator.fit(X, y)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    load_after = os.getloadavg()[0]
    extra = _status("VmHWM") - before
    proba = estimator.predict_proba(X_test)[:, 1]
    return {"fit_cpu_s": cpu, "fit_wall_s": wall, "peak_extra_mb": extra / 2**20,
            "x_mb": X.nbytes / 2**20, "test_log_loss": float(log_loss(y_test, proba)),
            "test_accuracy": float(np.mean((proba > 0.5) == y_test)),
            "load_before": load_before, "load_after": load_after}


def _in_subprocess(*args, env=None):
    out = subprocess.run([sys.executable, __file__, *map(str, args)], check=True,
                         capture_output=True, text=True, env=env,
                         cwd=Path(__file__).resolve().parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(sizes, threads, repeat):
    """Every library at every size and thread count, each fit in its own process, the
    libraries (and thread counts) taking turns; medians over ``repeat`` rounds."""
    rows = []
    for n in sizes:
        rounds = repeat
        runs = {(library, k): [] for k in threads for library in LIBRARIES}
        for _ in range(rounds):
            for library, k in runs:
                runs[library, k].append(_in_subprocess("--measure", library, n, k))
                print(f"[{NAME}] n={n} {library} threads={k}: "
                      f"{runs[library, k][-1]['fit_wall_s']:.2f} s wall", flush=True)
        for (library, k), results in runs.items():
            row = {"n_train": n, "library": library, "threads": k, "repeats": rounds}
            for key in results[0]:
                row[key] = float(np.median([r[key] for r in results]))
            row["wall_over_cpu"] = row["fit_wall_s"] / row["fit_cpu_s"]
            row["contended"] = bool(k == 1 and any(r["fit_wall_s"] > CONTENDED * r["fit_cpu_s"]
                                                   for r in results))
            rows.append(row)
    return rows


def compile_times(repeat=3):
    """CPU and wall seconds of import + small fits, with an empty numba cache and then
    with it filled (every core: what a reader's first chapter pays); medians over
    ``repeat`` pairs of processes, each pair with a cache directory of its own."""
    pairs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            env.pop("OMP_NUM_THREADS", None)
            env.pop("NUMBA_NUM_THREADS", None)
            pairs.append((_in_subprocess("--tiny", env=env), _in_subprocess("--tiny", env=env)))
    first = [pair[0]["cpu_s"] for pair in pairs]
    return {"first_process_s": harness.median(first),
            "cached_process_s": harness.median([pair[1]["cpu_s"] for pair in pairs]),
            "first_process_wall_s": harness.median([pair[0]["wall_s"] for pair in pairs]),
            "cached_process_wall_s": harness.median([pair[1]["wall_s"] for pair in pairs]),
            "first_process_min_s": min(first), "first_process_max_s": max(first),
            "threads": pairs[0][0]["threads"], "repeats": repeat}


def write_compile_times(repeat=3):
    """``hist_trees_compile.csv`` (also alone: ``python benchmarks/hist_trees.py
    --compile-only``)."""
    harness.write_csv(f"{NAME}_compile", [compile_times(repeat)], notes=[
        "CPU and wall seconds of a fresh process importing boostlib and fitting small models"
        " that call every kernel, on every core: first with an empty NUMBA_CACHE_DIR, then"
        " reusing it; medians over 'repeats' such pairs (each with a cache directory of its"
        " own), and the range of the first process's CPU seconds"])


def tiny():
    """Import boostlib and fit small histogram-tree models that call every kernel, the
    trees' and the loop's: what a chapter's first cell pays."""
    import time

    start, wall = time.process_time(), time.perf_counter()
    import numba

    from boostlib import BoostingClassifier, HistTreeRegressor
    from boostlib.trees.grower import PARALLEL_PARTITION_ROWS

    rng = np.random.RandomState(0)
    X = rng.randn(500, 5)
    X[::7, 0] = np.nan
    y = (rng.rand(500) < 0.5).astype(int)
    for max_leaf_nodes in (None, 6):
        BoostingClassifier(learner=HistTreeRegressor(max_leaf_nodes=max_leaf_nodes),
                           n_estimators=3).fit(X, y).predict(X)
    # the Newton target's kernel too (direction='newton', the benchmark's models)
    BoostingClassifier(direction="newton", step="constant", learner=HistTreeRegressor(),
                       n_estimators=3).fit(X, y)
    # enough rows that two threads share the partition, raw values predicted
    n = 2 * PARALLEL_PARTITION_ROWS
    X = rng.randn(n, 5)
    HistTreeRegressor(max_depth=2).fit(X, X[:, 0] > 0).predict(X)
    return {"cpu_s": time.process_time() - start, "wall_s": time.perf_counter() - wall,
            "threads": numba.config.NUMBA_NUM_THREADS}


def profile(n_train, threads, n_estimators=20):
    """Where boostlib's fit spends its time: a clock around each kernel the grower calls.

    Seconds per tree (the mean over ``n_estimators`` stages after a warm-up fit) for the
    histograms built from rows, those made by subtraction, the split scan, the
    partition and the rest of the grower's work; and for comparison the walk of every
    training row down each tree (what ``fit_predict`` avoids); the stage loop's own
    work around the trees (loss, gradient, Hessian, step, F: ``_boost`` less its trees
    and ``F_0``), and the work done once per fit, spread over the stages: the binning,
    and the rest (checks of the input, ``F_0``: the whole fit less ``_boost``, the
    binning, plus ``F_0``).
    """
    import time

    from boostlib import BoostingClassifier, HistTreeRegressor
    from boostlib.boosting import _Boosting
    from boostlib.trees import grower

    X, y, _, _ = load(n_train)
    clocks = {}

    def clocked(phase, kernel):
        @functools.wraps(kernel)  # the signature too: the loop reads fit_predict's (out=)
        def run(*args, **kwargs):
            start = time.perf_counter()
            result = kernel(*args, **kwargs)
            clocks[phase] = clocks.get(phase, 0.0) + time.perf_counter() - start
            return result
        return run

    originals = {name: getattr(grower, name) for name in
                 ("build_root_histogram", "build_histogram", "subtract", "best_split",
                  "partition")}
    phases = {"build_root_histogram": "histograms from rows",
              "build_histogram": "histograms from rows", "subtract": "histograms by subtraction",
              "best_split": "split scan", "partition": "partition"}
    for name, kernel in originals.items():
        setattr(grower, name, clocked(phases[name], kernel))
    fit_predict, bin_ = HistTreeRegressor.fit_predict, HistTreeRegressor.bin
    HistTreeRegressor.fit_predict = clocked("tree", fit_predict)
    HistTreeRegressor.bin = clocked("binning (once per fit)", bin_)
    boost, fit_init = _Boosting._boost, _Boosting._fit_init
    _Boosting._boost = clocked("stages", boost)
    _Boosting._fit_init = clocked("F_0", fit_init)
    try:
        def fit():
            return BoostingClassifier(
                direction="newton", step="constant", random_state=0,
                n_estimators=n_estimators, learning_rate=0.1,
                learner=HistTreeRegressor(max_depth=3, random_state=0, n_jobs=threads),
            ).fit(X, y)

        fit()  # warm-up
        clocks.clear()
        start = time.perf_counter()
        fitted = fit()
        total = time.perf_counter() - start
    finally:
        for name, kernel in originals.items():
            setattr(grower, name, kernel)
        HistTreeRegressor.fit_predict, HistTreeRegressor.bin = fit_predict, bin_
        _Boosting._boost, _Boosting._fit_init = boost, fit_init
    binned = fitted.binner_.transform(X)
    start = time.perf_counter()
    for tree in fitted.estimators_:
        tree.predict(binned)
    walk = (time.perf_counter() - start) / n_estimators
    per_tree = {phase: clocks.get(phase, 0.0) / n_estimators for phase in
                ("histograms from rows", "histograms by subtraction", "split scan",
                 "partition")}
    tree = clocks["tree"] / n_estimators
    per_tree["rest of the tree (grower, checks)"] = tree - sum(per_tree.values())
    rows = [{"part": "tree", "phase": phase, "seconds_per_tree": seconds,
             "share_of_tree": seconds / tree} for phase, seconds in per_tree.items()]
    rows.append({"part": "for comparison", "phase": "prediction (every training row walked)",
                 "seconds_per_tree": walk, "share_of_tree": walk / tree})
    loop = clocks["stages"] - clocks["tree"] - clocks["F_0"]
    once = total - clocks["stages"] + clocks["F_0"] - clocks["binning (once per fit)"]
    rows += [{"part": "fit", "phase": phase, "seconds_per_tree": seconds / n_estimators,
              "share_of_tree": seconds / n_estimators / tree} for phase, seconds in (
        ("loop around the trees (loss, g, h, step, F)", loop),
        ("binning (once per fit)", clocks["binning (once per fit)"]),
        ("rest of the fit (checks, F_0; once per fit)", once))]
    return [dict(row, n_train=n_train, threads=threads, stages=n_estimators) for row in rows]


def seed000(repeat=3):
    """Seed 000's three variants with the exact tree and with HistTreeRegressor."""
    from sklearn.tree import DecisionTreeRegressor

    from boostlib import BoostingClassifier, HistTreeRegressor
    from boostlib.datasets import load_split

    data = load_split("hastie", random_state=0)
    learners = {"exact (DecisionTreeRegressor)": DecisionTreeRegressor(max_depth=3),
                "histogram (HistTreeRegressor)": HistTreeRegressor(max_depth=3, n_jobs=1)}

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


def write_profile(profile_size=PROFILE_SIZE):
    """``hist_trees_profile.csv``: :func:`profile` on one thread and on every core, each in
    its own process (also alone: ``python benchmarks/hist_trees.py --profile-only``)."""
    make_pool(profile_size)
    harness.write_csv(f"{NAME}_profile", [
        row for k in sorted({1, cores()})
        for row in _in_subprocess("--profile", profile_size, k)], notes=[
        "boostlib's fit (newton, constant step, depth-3 HistTreeRegressor, lr 0.1) on the"
        " first n_train rows of the pool, after a warm-up fit, each thread count in its own"
        " process: wall seconds per tree (mean over 'stages' stages) inside each kernel the"
        " grower calls; prediction = tree.predict of every training row (binned), which"
        " fit_predict avoids; outside the trees, per stage: the stage loop less its trees"
        " and F_0 (loss, g, h, step, F), the binning and the rest of the fit (checks, F_0),"
        " the last two once per fit"])


def _time_partitions(column, threads, repeat):
    """Median wall seconds of the two partition kernels on one node of every row of
    ``column``, on ``threads`` threads (see :func:`partition_times`), and the number of
    threads numba did run them on (fewer in a process pinned to fewer)."""
    import time

    from boostlib.trees import grower
    from boostlib.trees.threads import using_threads

    n = len(column)
    goes_left = np.arange(256) <= 127
    n_left = int(goes_left[column].sum())
    source = np.arange(n, dtype=np.uint32)
    targets = {"one thread": np.empty(n, np.uint32), "in halves": np.empty(n, np.uint32)}
    kernels = {
        "one thread": lambda: grower._forward(
            source, targets["one thread"], 0, n, column, goes_left, 0, n_left, n),
        "in halves": lambda: grower._partition_in_halves(
            source, targets["in halves"], 0, n, column, goes_left, n_left)}
    seconds = {name: [] for name in kernels}
    with using_threads(threads) as used:
        for kernel in kernels.values():
            assert kernel() == n_left  # warm-up (numba compiles or loads its cache)
        for name, kernel in kernels.items():  # each kernel's runs one after the other, as
            for _ in range(repeat):  # in a tree, where the threads are already awake
                start = time.perf_counter()
                kernel()
                seconds[name].append(time.perf_counter() - start)
    assert (targets["one thread"] == targets["in halves"]).all()
    return used, {name: harness.median(times) for name, times in seconds.items()}


def partition_times(sizes=(1_000_000, 10_000_000), repeat=5):
    """The partition of one node of ``n`` rows, in order, on a random column (bins 0..254,
    those ≤ 127 going left): the one-thread kernel, and the kernel in halves (one from
    each end, a thread each when there are two), on one thread and on every core. Wall
    seconds, the median of ``repeat`` runs of each kernel in a row after a warm-up; both write the
    same rows. ``threads`` is the count numba ran them on."""
    rng = np.random.RandomState(0)
    out = []
    for n in sizes:
        column = rng.randint(0, 255, n).astype(np.uint8)
        for threads in sorted({1, cores()}):
            used, walls = _time_partitions(column, threads, repeat)
            for name, wall_s in walls.items():
                out.append({"n_rows": n, "kernel": name, "threads": used,
                            "wall_s": wall_s, "repeats": repeat})
    return out


def write_partition_times(sizes=(1_000_000, 10_000_000), repeat=20):
    """``hist_trees_partition.csv`` (also alone: ``python benchmarks/hist_trees.py
    --partition-only``)."""
    # in a process of its own: run_all.py pins its own process to one thread
    rows = _in_subprocess("--partition", repeat, *sizes)
    harness.write_csv(f"{NAME}_partition", rows, notes=[
        "grower._forward (one thread) and grower._partition_in_halves (a half from each end,"
        " on two threads when there are two) on one node of n_rows rows in order, a random"
        " uint8 column (bins 0..254, <= 127 left): wall seconds, median of 'repeats'"
        " runs of each kernel in a row after a warm-up, in a process of its own"])


def run(quick=False):
    sizes = SIZES[:2] if quick else SIZES
    thread_sizes = sizes[-1:] if quick else THREAD_SIZES
    make_pool(max(sizes + thread_sizes))
    repeat = 1 if quick else 3
    # each size and thread count measured once: the one-thread rows of the all-cores
    # sizes serve both tables
    rows = [row for n in sizes for row in
            compare([n], thread_counts() if n in thread_sizes else [1], repeat)]
    one_thread = [row for row in rows if row["threads"] == 1]
    every_core = [row for row in rows if row["n_train"] in thread_sizes]
    note = ("make_classification, 28 features (14 informative), random_state 0: the first"
            " n_train rows for training, the same last 100000 rows for testing; depth 3"
            " (best-first for HGB and LightGBM, the same trees), 100 stages, lr 0.1, 255 bins,"
            " no L2; every fit in a fresh process"
            " after a warm-up fit, libraries alternating; fit_cpu_s = time.process_time (every"
            " thread), fit_wall_s = time.perf_counter, peak_extra_mb = VmHWM after reset -"
            " VmRSS before, load_before/after = 1-minute load average; medians over"
            " 'repeats' rounds; contended: on one thread some round's wall exceeded"
            f" {CONTENDED} x its CPU")
    harness.write_csv(NAME, one_thread, notes=[note + "; one thread"])
    harness.write_csv(f"{NAME}_threads", every_core, notes=[
        note + f"; threads 1, 2, 4, ... and every core ({cores()}): OMP_NUM_THREADS and n_jobs"
        " (HistGradientBoosting reads OMP_NUM_THREADS)"])
    write_compile_times(1 if quick else 3)
    write_profile(thread_sizes[0] if quick else PROFILE_SIZE)
    write_partition_times((10_000,) if quick else (1_000_000, 10_000_000), 1 if quick else 20)
    harness.write_csv(f"{NAME}_seed000", seed000(repeat=1 if quick else 3), notes=[
        "seed 000: binomial_deviance, init=learner, init_step=constant, line search, lr 0.1,"
        " 100 depth-3 trees (n_jobs=1), load_split('hastie', 0); cpu_s = time.process_time"
        " of fit, median of alternating repeats after a warm-up"])
    return one_thread


def ratios(frame):
    """CPU seconds, peak memory and test log loss per library and size, with HGB's ratios."""
    hgb = frame[frame.library == "sklearn HistGradientBoosting"].set_index("n_train")
    out = frame.copy()
    out["cpu_vs_hgb"] = out.fit_cpu_s / out.n_train.map(hgb.fit_cpu_s)
    out["memory_vs_X"] = out.peak_extra_mb / out.x_mb
    out["log_loss_vs_hgb"] = out.test_log_loss / out.n_train.map(hgb.test_log_loss) - 1
    return out


def scaling(frame):
    """Per library and size: wall seconds on every thread count, the speed-up over one
    thread, and the wall time as a multiple of HistGradientBoosting's on as many threads."""
    one = frame[frame.threads == 1][["library", "n_train", "fit_wall_s"]].rename(
        columns={"fit_wall_s": "one_thread_wall_s"})
    hgb = frame[frame.library == "sklearn HistGradientBoosting"][
        ["n_train", "threads", "fit_wall_s"]].rename(columns={"fit_wall_s": "hgb_wall_s"})
    out = frame.merge(one, on=["library", "n_train"], how="left").merge(
        hgb, on=["n_train", "threads"], how="left")
    out["speed_up"] = out.one_thread_wall_s / out.fit_wall_s
    out["wall_vs_hgb"] = out.fit_wall_s / out.hgb_wall_s
    return out.drop(columns=["one_thread_wall_s", "hgb_wall_s"])


def summary(frame):
    table = ratios(frame)
    columns = ["n_train", "library", "fit_cpu_s", "cpu_vs_hgb", "peak_extra_mb", "memory_vs_X",
               "test_log_loss", "log_loss_vs_hgb", "repeats"]
    columns += [c for c in ("wall_over_cpu", "contended") if c in table]
    parts = ["Histogram trees, 28 features, depth 3, 100 stages, 255 bins, one thread; "
             "fit CPU seconds and their ratio to scikit-learn's HistGradientBoosting, peak "
             "extra memory (MB and as a multiple of X), test log loss and its relative "
             "difference from HistGradientBoosting's, wall over CPU (contended: above "
             f"{CONTENDED}).", "", harness.markdown_table(table[columns])]
    threads = harness.read_csv(f"{NAME}_threads")
    if threads is not None:
        parts += ["", "Every core: wall seconds, the speed-up over one thread and the wall "
                  "time over HistGradientBoosting's on as many threads:", "",
                  harness.markdown_table(scaling(threads)[
                      ["n_train", "library", "threads", "fit_wall_s", "fit_cpu_s", "speed_up",
                       "wall_vs_hgb", "peak_extra_mb", "load_before", "load_after"]])]
    compile_ = harness.read_csv(f"{NAME}_compile")
    if compile_ is not None:
        parts += ["", "numba compilation (CPU seconds of a fresh process that imports boostlib "
                  "and fits small models): empty cache "
                  f"{compile_.first_process_s[0]:.1f} s, cache filled "
                  f"{compile_.cached_process_s[0]:.1f} s."]
    profile_ = harness.read_csv(f"{NAME}_profile")
    if profile_ is not None:
        parts += ["", "Where boostlib's fit spends its time (seconds per tree):", "",
                  harness.markdown_table(profile_)]
    partition_ = harness.read_csv(f"{NAME}_partition")
    if partition_ is not None:
        parts += ["", "The partition of one node, on one thread and in halves (wall seconds):",
                  "", harness.markdown_table(partition_)]
    seed = harness.read_csv(f"{NAME}_seed000")
    if seed is not None:
        parts += ["", "Seed 000's experiment with the exact and the histogram tree (CPU "
                  "seconds per variant, test accuracy):", "", harness.markdown_table(seed)]
    return "\n".join(parts)


if __name__ == "__main__":
    if sys.argv[1] == "--measure":
        set_threads(int(sys.argv[4]))
        print(json.dumps(measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
    elif sys.argv[1] == "--profile":
        set_threads(int(sys.argv[3]))
        print(json.dumps(profile(int(sys.argv[2]), int(sys.argv[3]))))
    elif sys.argv[1] == "--profile-only":
        write_profile()
    elif sys.argv[1] == "--partition":
        set_threads(cores())  # every core: not the one thread that run_all.py pins
        print(json.dumps(partition_times(tuple(map(int, sys.argv[3:])), int(sys.argv[2]))))
    elif sys.argv[1] == "--partition-only":
        write_partition_times()
    elif sys.argv[1] == "--compile-only":
        write_compile_times()
    elif sys.argv[1] == "--tiny":
        print(json.dumps(tiny()))
