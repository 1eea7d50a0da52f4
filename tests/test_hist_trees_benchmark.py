"""benchmarks/hist_trees.py: the arithmetic of its tables, without timing anything real."""

import os
import sys
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import hist_trees  # noqa: E402

from boostlib.trees import grower  # noqa: E402


@pytest.mark.parametrize("cores, expected", [(1, [1]), (2, [1, 2]), (6, [1, 2, 4, 6]),
                                             (8, [1, 2, 4, 8])])
def test_thread_counts_double_up_to_every_core(monkeypatch, cores, expected):
    monkeypatch.setattr(hist_trees, "cores", lambda: cores)
    assert hist_trees.thread_counts() == expected


def test_scaling_is_against_one_thread_and_against_histgradientboosting_on_as_many():
    frame = pd.DataFrame({
        "n_train": [10] * 4, "threads": [1, 2, 1, 2],
        "library": ["boostlib HistTree"] * 2 + ["sklearn HistGradientBoosting"] * 2,
        "fit_wall_s": [8.0, 5.0, 6.0, 4.0]})
    out = hist_trees.scaling(frame)
    np.testing.assert_allclose(out.speed_up, [1.0, 1.6, 1.0, 1.5])
    np.testing.assert_allclose(out.wall_vs_hgb, [8 / 6, 1.25, 1.0, 1.0])


def test_compare_takes_medians_in_turns_and_flags_a_contended_thread(monkeypatch):
    """Libraries and thread counts alternate round by round; a one-thread row is
    contended when some round waited for a core (wall > 1.15 × CPU)."""
    calls = []

    def fake(_, library, n, threads):
        calls.append((library, threads))
        cpu = 1.0 + 0.1 * len(calls)
        # LightGBM waits in its second round: on one thread (call 12) and on two (call 16)
        return {"fit_cpu_s": cpu, "fit_wall_s": 2 * cpu if len(calls) in (12, 16) else cpu}

    monkeypatch.setattr(hist_trees, "_in_subprocess", fake)
    rows = hist_trees.compare([100], [1, 2], repeat=3)
    assert calls[:8] == [(library, k) for k in (1, 2) for library in hist_trees.LIBRARIES]
    assert len(calls) == 24
    by_key = {(r["library"], r["threads"]): r for r in rows}
    np.testing.assert_allclose(by_key["boostlib HistTree", 1]["fit_cpu_s"], 1.0 + 0.1 * 9)
    assert by_key["LightGBM", 1]["contended"] and not by_key["LightGBM", 2]["contended"]
    assert not by_key["XGBoost hist", 1]["contended"]


def test_profile_clocks_every_kernel_and_puts_them_back(tmp_path, monkeypatch, stage_memories):
    monkeypatch.setattr(hist_trees, "DATA", tmp_path)
    monkeypatch.setattr(hist_trees, "N_TEST", 50)
    hist_trees.make_pool(400)
    kernels = {name: getattr(grower, name) for name in
               ("build_root_histogram", "build_histogram", "subtract", "best_split",
                "partition")}
    rows = pd.DataFrame(hist_trees.profile(400, 1, n_estimators=3))
    for name, kernel in kernels.items():
        assert getattr(grower, name) is kernel
    # the clocked fit_predict keeps its signature: the profiled loop reuses its arrays as a
    # plain fit's does (the warm-up fit and the timed one)
    assert len(stage_memories) == 2 and all(memory.u is not None for memory in stage_memories)
    tree = rows[rows.part == "tree"]
    assert list(tree.phase) == ["histograms from rows", "histograms by subtraction",
                                "split scan", "partition", "rest of the tree (grower, checks)"]
    assert (tree.seconds_per_tree > 0).all()
    np.testing.assert_allclose(tree.share_of_tree.sum(), 1.0)
    assert set(rows.threads) == {1} and set(rows.n_train) == {400}


def test_compile_times_are_medians_of_pairs_each_with_a_fresh_cache(monkeypatch):
    caches, seen = [], set()

    def fake(*args, env):
        assert args == ("--tiny",) and "OMP_NUM_THREADS" not in env
        cache = env["NUMBA_CACHE_DIR"]
        first = cache not in seen  # the first process of a pair finds the cache empty
        seen.add(cache)
        caches.append(cache)
        cpu = {0: 20.0, 1: 14.0, 2: 15.0}[len(seen) - 1] if first else 2.0 + len(seen)
        return {"cpu_s": cpu, "wall_s": cpu + 0.5, "threads": 2}

    monkeypatch.setattr(hist_trees, "_in_subprocess", fake)
    row = hist_trees.compile_times(repeat=3)
    assert len(caches) == 6 and len(set(caches)) == 3  # three pairs, a cache each
    assert caches[0] == caches[1] and caches[2] == caches[3]
    assert row["first_process_s"] == 15.0 and row["cached_process_s"] == 4.0
    assert row["first_process_wall_s"] == 15.5 and row["cached_process_wall_s"] == 4.5
    assert (row["first_process_min_s"], row["first_process_max_s"]) == (14.0, 20.0)
    assert row["repeats"] == 3 and row["threads"] == 2


def test_partition_times_cover_both_kernels_on_one_thread_and_every_core(monkeypatch):
    """Both kernels at each size and thread count (it asserts that both write the same
    rows); positive medians."""
    monkeypatch.setattr(hist_trees, "cores", lambda: 2)
    rows = pd.DataFrame(hist_trees.partition_times((5_000, 70_000), repeat=2))
    assert len(rows) == 2 * 2 * 2 and (rows.wall_s > 0).all() and (rows.repeats == 2).all()
    assert set(zip(rows.n_rows, rows.kernel, rows.threads, strict=True)) == {
        (n, kernel, min(k, numba.config.NUMBA_NUM_THREADS)) for n in (5_000, 70_000)
        for kernel in ("one thread", "in halves") for k in (1, 2)}


def test_partition_times_run_on_every_core_even_from_a_pinned_process():
    """``--partition`` (the process ``write_partition_times`` starts) sets every core,
    though ``run_all.py`` pins the process that starts it to one thread; the rows record
    the threads numba ran on."""
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    rows = pd.DataFrame(hist_trees._in_subprocess("--partition", 1, 70_000, env=env))
    assert sorted(set(rows.threads)) == sorted({1, hist_trees.cores()})
