"""The histogram trees on any number of threads (chapter 8): the same model to the last bit.

numba's pool may hold more threads than the machine has cores (``NUMBA_NUM_THREADS``),
so one fresh process with a pool of 4 fits the same models on 1, 2 and 4 threads, on
data large enough that every parallel kernel runs in parallel: the histograms (two
features per thread, an odd feature alone), the split scan, the binning (thresholds
and bins), the partition (large slices by two threads, one from each end) and the
prediction.
A probe inside the process counts the threads that really ran.
"""

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import prange

from boostlib import BoostingClassifier, HistTreeRegressor
from boostlib.trees import Binner, grower
from boostlib.trees.grower import PARALLEL_PARTITION_ROWS, partition
from boostlib.trees.threads import PRANGE_ONLY, effective_n_threads, using_threads

ROOT = Path(__file__).resolve().parents[1]

FITS = """
import hashlib
import numba
import numpy as np
from boostlib import BoostingClassifier, BoostingRegressor, HistTreeRegressor
from boostlib.trees import grower
from boostlib.trees.histograms import build_histogram, build_root_histogram
from boostlib.trees.threads import using_threads

HALVES = []  # the sizes of the slices partitioned by two threads
_partition_in_halves = grower._partition_in_halves
grower._partition_in_halves = lambda *args: (HALVES.append(args[3] - args[2])
                                             or _partition_in_halves(*args))

TREE_ARRAYS = ("feature", "bin_threshold", "threshold", "missing_left", "children_left",
               "children_right", "value", "gain", "n_node_samples", "weighted_n_node_samples")


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def trees(model):
    return digest(*[getattr(t.tree_, name) for t in model.estimators_ for name in TREE_ARRAYS])


@numba.njit(parallel=True)
def thread_ids(n):
    ids = np.empty(n, dtype=np.int64)
    for i in numba.prange(n):
        ids[i] = numba.get_thread_id()
    return ids


rng = np.random.RandomState(0)
n, d = 150_000, 7  # an odd number of features: one histogram pass has a single feature
X = rng.randn(n, d)
X[:, 3] = np.round(X[:, 3], 1)  # few distinct values: one bin each
X[rng.rand(n, d) < 0.05] = np.nan
y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
     + rng.randn(n) > 0).astype(int)
w = rng.rand(n) * (rng.rand(n) > 0.1)  # rows of weight 0: the root's rows are gathered
X_fresh = rng.randn(20_000, d)
X_fresh[rng.rand(20_000, d) < 0.05] = np.nan
wz = rng.randn(n)


def results(n_jobs):
    out = {}
    HALVES.clear()
    with using_threads(n_jobs):
        out["threads"] = len(set(thread_ids(4096).tolist()))
    depth_wise = BoostingClassifier(
        direction="newton", step="constant", n_estimators=4, random_state=0,
        learner=HistTreeRegressor(max_depth=4, l2_regularization=1.0, n_jobs=n_jobs)).fit(X, y)
    best_first = BoostingRegressor(
        n_estimators=3, random_state=0,
        learner=HistTreeRegressor(max_leaf_nodes=12, min_samples_leaf=5, n_jobs=n_jobs),
    ).fit(X, y, sample_weight=w)
    tree = HistTreeRegressor(max_depth=6, n_jobs=n_jobs).fit(X, y - 0.5, sample_weight=w)
    binned = tree.bin(X)
    out["bins"] = digest(binned.bins, *binned.binner.thresholds_)
    out["depth-wise"] = trees(depth_wise)
    out["best-first"] = trees(best_first)
    out["tree"] = digest(*[getattr(tree.tree_, name) for name in TREE_ARRAYS])
    out["predictions"] = digest(depth_wise.decision_function(X_fresh),
                                best_first.predict(X_fresh), tree.predict(X_fresh),
                                tree.predict(binned), tree.apply(X_fresh))
    with using_threads(n_jobs):
        out["histograms"] = digest(
            build_root_histogram(binned.bins, wz, w, 256),
            build_histogram(binned.bins, np.flatnonzero(w > 0.3).astype(np.uint32), wz, w, 256))
    out["partitions in halves"] = len(HALVES)
    return out


print(json.dumps({k: results(k) for k in (1, 2, 4)}))
"""


def test_the_same_model_on_one_two_and_four_threads():
    """Trees (every array, gains and values included), bins, predictions and histograms
    are identical to the bit whatever the number of threads; the probe shows that the
    pool did run 1, 2 and 4 threads."""
    env = dict(os.environ, NUMBA_NUM_THREADS="4", PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    run = subprocess.run([sys.executable, "-c", "import json\n" + FITS], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=900)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert [out[k].pop("threads") for k in ("1", "2", "4")] == [1, 2, 4]
    # the partition by two threads on two threads or more, from 2 × PARALLEL_PARTITION_ROWS
    # rows on (the root of 150 000 rows of each tree, at least), by one thread on one
    halves = [out[k].pop("partitions in halves") for k in ("1", "2", "4")]
    assert 2 * 2 * PARALLEL_PARTITION_ROWS <= 150_000
    assert halves[0] == 0 and halves[1] == halves[2] >= 3
    assert out["1"] == out["2"] == out["4"]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("missing_left", [False, True])
def test_two_threads_put_every_row_where_one_thread_does(seed, missing_left):
    """The first half of the slice from the front, the second from the back: the stable
    partition (odd and even slices); nothing outside the slice is written, and a wrong
    count of left rows is found, not written past the slice."""
    rng = np.random.default_rng(seed)
    column = rng.integers(0, 9, size=10_007).astype(np.uint8)  # bin 8: the NaN bin
    rows = rng.permutation(10_007).astype(np.uint32)
    start, stop = 13 + seed, 10_007 - 29
    left_bins = np.r_[np.arange(8) <= 4, missing_left]  # bin 8: the NaN bin
    goes_left = left_bins[column[rows[start:stop]]]
    n_left = int(goes_left.sum())
    marker = np.iinfo(rows.dtype).max  # not a row: a stray write of any row shows
    one, two = np.full_like(rows, marker), np.full_like(rows, marker)
    assert grower._forward(rows, one, start, stop, column, left_bins, start, start + n_left,
                           stop) == n_left
    assert grower._partition_in_halves(rows, two, start, stop, column, left_bins,
                                       n_left) == n_left
    np.testing.assert_array_equal(two, one)
    np.testing.assert_array_equal(one[start:stop], np.concatenate(
        [rows[start:stop][goes_left], rows[start:stop][~goes_left]]))
    assert (one[:start] == marker).all() and (one[stop:] == marker).all()
    for wrong in (0, n_left - 1, n_left + 1, stop - start):
        written = np.full_like(rows, marker)
        assert grower._partition_in_halves(rows, written, start, stop, column, left_bins,
                                           wrong) != wrong
        assert (written[:start] == marker).all() and (written[stop:] == marker).all()


@pytest.mark.parametrize("n_jobs, size, in_halves", [(2, 2 * PARALLEL_PARTITION_ROWS, True),
                                                     (2, 2 * PARALLEL_PARTITION_ROWS - 1, False),
                                                     (1, 2 * PARALLEL_PARTITION_ROWS, False)])
def test_two_threads_share_only_a_large_slice(monkeypatch, n_jobs, size, in_halves):
    """From 2 × PARALLEL_PARTITION_ROWS rows on two threads; one thread below that, or on
    one thread (a pool of one thread has no second)."""
    calls = []
    original = grower._partition_in_halves
    monkeypatch.setattr(grower, "_partition_in_halves",
                        lambda *args: calls.append(args[3] - args[2]) or original(*args))
    column = (np.arange(size) % 3).astype(np.uint8)
    rows, target = np.arange(size, dtype=np.uint32), np.empty(size, dtype=np.uint32)
    with using_threads(n_jobs):
        partition(rows, target, 0, size, column, 0, False, 255, len(range(0, size, 3)))
    expected = in_halves and numba.config.NUMBA_NUM_THREADS >= 2
    assert calls == ([size] if expected else [])
    np.testing.assert_array_equal(target, np.r_[rows[::3], rows[column > 0]])


# -- n_jobs ------------------------------------------------------------------------
def test_n_jobs_counts_threads_as_joblib_does():
    pool = numba.config.NUMBA_NUM_THREADS
    assert effective_n_threads(None) == effective_n_threads(-1) == pool
    assert effective_n_threads(1) == 1
    assert effective_n_threads(pool + 5) == pool  # numba starts no more than its pool
    assert effective_n_threads(-2) == max(1, pool - 1)
    assert effective_n_threads(-pool - 10) == 1
    assert effective_n_threads(np.int64(1)) == 1


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_a_bad_n_jobs_is_named(bad):
    X = np.random.RandomState(0).randn(50, 2)
    with pytest.raises(ValueError, match="n_jobs"):
        HistTreeRegressor(n_jobs=bad).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="n_jobs"):
        HistTreeRegressor(n_jobs=bad).bin(X)


def test_fit_predict_and_bin_leave_numbas_thread_count_as_they_found_it():
    rng = np.random.RandomState(0)
    X = rng.randn(300, 3)
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        tree = HistTreeRegressor(n_jobs=None).fit(X, X[:, 0])
        assert numba.get_num_threads() == 1
        tree.predict(X), tree.apply(X), tree.bin(X), tree.fit_predict(X, X[:, 1])
        assert numba.get_num_threads() == 1
        with pytest.raises(ValueError):
            HistTreeRegressor(n_jobs=None).fit(X, X[:, 0] * np.nan)
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(previous)


def test_the_binner_uses_the_threads_it_is_given():
    """Thresholds are found feature by feature on a pool of threads: the same ones on one."""
    X = np.random.RandomState(1).randn(5000, 9)
    with using_threads(1):
        one = Binner(max_bins=32).fit(X)
    with using_threads(None):
        every = Binner(max_bins=32).fit(X)
    for a, b in zip(one.thresholds_, every.thresholds_, strict=True):
        np.testing.assert_array_equal(a, b)


# -- max_depth="auto": max_leaf_nodes alone sets the size ------------------------------
def test_max_leaf_nodes_alone_grows_that_many_leaves():
    """``HistTreeRegressor(max_leaf_nodes=31)`` grows 31 leaves, as scikit-learn's trees do
    (its default max_depth is no limit once max_leaf_nodes is set); depth-wise the default
    is depth 3; set both, both hold (at most 2**max_depth leaves)."""
    rng = np.random.RandomState(0)
    X = rng.randn(3000, 4)
    y = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.randn(3000)
    best_first = HistTreeRegressor(max_leaf_nodes=31).fit(X, y)
    assert best_first.get_n_leaves() == 31 and best_first.get_depth() > 3
    unlimited = HistTreeRegressor(max_depth=None, max_leaf_nodes=31).fit(X, y)
    np.testing.assert_array_equal(best_first.predict(X), unlimited.predict(X))
    depth_wise = HistTreeRegressor().fit(X, y)
    assert depth_wise.get_depth() == 3 and depth_wise.get_n_leaves() == 8
    np.testing.assert_array_equal(depth_wise.predict(X),
                                  HistTreeRegressor(max_depth=3).fit(X, y).predict(X))
    both = HistTreeRegressor(max_depth=3, max_leaf_nodes=31).fit(X, y)
    assert both.get_depth() == 3 and both.get_n_leaves() == 8
    with pytest.raises(ValueError, match="max_depth must be None, 'auto' or an integer"):
        HistTreeRegressor(max_depth="deep").fit(X, y)


def test_the_boosting_loop_passes_n_jobs_to_every_tree():
    rng = np.random.RandomState(2)
    X = rng.randn(400, 3)
    y = (X[:, 0] > 0).astype(int)
    model = BoostingClassifier(learner=HistTreeRegressor(n_jobs=1), n_estimators=3).fit(X, y)
    assert all(tree.n_jobs == 1 for tree in model.estimators_)


def _kernels():
    """Every numba kernel of boostlib, by name."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import boostlib

    kernels = {}
    for info in pkgutil.walk_packages(boostlib.__path__, "boostlib."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == info.name:
                kernels[f"{info.name}.{name}"] = value
    return kernels


def test_every_kernel_with_prange_loops_takes_prange_only():
    kernels = _kernels()
    parallel = {name for name, kernel in kernels.items() if kernel.targetoptions.get("parallel")}
    with_prange = {name for name, kernel in kernels.items()
                   if "prange(" in inspect.getsource(kernel.py_func)}
    assert parallel == with_prange
    assert {"boostlib.trees.histograms.histogram", "boostlib.directions._scalar_newton",
            "boostlib.losses._logistic_loss_gradient_hessian"} <= parallel
    for name in parallel:
        assert kernels[name].targetoptions["parallel"] is PRANGE_ONLY, name


def _doubled(a):
    out = np.zeros(len(a) + 1)  # a parallel loop of its own under parallel=True
    for i in prange(len(a)):
        out[i] = 2 * a[i]
    return out


def test_prange_only_makes_the_prange_loops_parallel_and_nothing_else():
    """One parallel loop per signature, the second signature's too (numba empties a dict of
    options on the first compile, and the second would get parallel=True's two loops)."""
    def parallel_loops(option):
        kernel = numba.njit(parallel=option)(_doubled)  # uncached: compiled here
        for dtype in (np.float64, np.float32):
            np.testing.assert_array_equal(kernel(np.ones(3, dtype)), [2, 2, 2, 0])
        return [len(kernel.get_metadata(sig)["parfor_diagnostics"].initial_parfors)
                for sig in kernel.signatures]

    assert parallel_loops(PRANGE_ONLY) == [1, 1]
    assert parallel_loops(True) == [2, 2]  # what PRANGE_ONLY saves compiling
    # and every other conversion is off too (the small kernel above exercises one of them)
    switches = {key: getattr(PRANGE_ONLY, key) for key in PRANGE_ONLY.__slots__}
    assert switches == {"enabled": True, "prange": True, "comprehension": False,
                        "reduction": False, "inplace_binop": False, "setitem": False,
                        "numpy": False, "stencil": False, "fusion": False}
