"""boostlib on Dask: fit time and where it goes, memory per worker, the losses (chapter 9).

Data: 28 standard-normal float32 features (the width of the HIGGS data) and
labels from a fixed logistic model with interactions, generated chunk by
chunk (:func:`make_chunk`, seeded by the chunk's index; at least 8 chunks of
at most 500 000 rows). A held-out set of ``N_TEST`` rows comes from chunks of
their own (indices from ``TEST_CHUNKS_FROM``).

**The same rows on the same worker.** On a cluster of ``W`` workers, chunk
``i`` of ``K`` is generated *on* worker ``⌊i W / K⌋`` (:func:`chunk_plan`):
contiguous blocks, the same for every library, so XGBoost's Dask interface
and ``DaskBoostingClassifier`` train on the same partitions, and the rows never
pass through the client. The one-process runs generate the same chunks
in-process, into one array.

Every configuration trains the same model: log loss, 100 depth-3 trees,
learning rate 0.1, λ = 0, ``min_child_weight`` 1e-3, 256 histogram bins,
XGBoost's ``hist`` trees, starting from the log-odds of the positive rate:

* ``xgboost, one process``: ``xgboost.train`` with ``nthread=1``, once with its
  built-in ``binary:logistic`` and once with boostlib's objective
  (:func:`boostlib.distributed.xgboost_objective`, log loss, Newton direction);
* ``xgboost.dask``: the built-in objective on a LocalCluster of 1 or 2 worker
  processes with one thread each;
* ``DaskBoostingClassifier``: boostlib's objective on the same clusters;
* the built-in objective on 1 and 2 workers once more with every feature
  rounded to 256 values (``features = "256 values"``): each value then has
  a bin of its own whatever the workers see, so the bins no longer depend on
  how XGBoost's quantile sketch is merged across workers. The labels are the
  same. Where the continuous runs on 1 and 2 workers differ and these do not,
  the difference is the sketch's.

**Time.** Each run is a fresh process (and a fresh cluster). ``fit_wall_s``
is the wall time of the fit alone (the data are generated and held in memory
first). Beside it, per run: the CPU seconds of the workers (``workers_cpu_s``)
and of the process that holds the scheduler, the nannies and the client
(``scheduler_cpu_s``; ``fit_cpu_s`` is their sum), and, for the thread that
does a worker's (or the one process's) work, the busiest of them, the
seconds it ran (``busy_thread_cpu_s``) and the seconds it was ready to run
but waited for a core (``busy_thread_wait_s``, from
``/proc/self/task/*/schedstat``). That wait is what oversubscription costs:
on a machine with fewer cores than busy threads it is wall time spent in
the run queue. The rest of the wall time, ``fit_wall_s − busy_thread_cpu_s −
busy_thread_wait_s``, the thread was blocked: waiting for the other worker's
histograms, for the scheduler, for the network. ``load_before`` and
``load_after`` are the 1-minute load average around the run; a run on a busy
machine is not a timing.

**Memory** of each process that holds data (each worker, or the one
process; the largest over workers): ``baseline_MB`` with its libraries
imported and no data, ``data_MB`` with its rows in memory, and
``fit_peak_MB``, the peak resident set during the fit (``VmHWM``, reset just
before it). ``fit_peak_MB − data_MB`` is what training adds to the data.

**Losses**: the mean log loss on the training rows and on the held-out rows,
computed after the clock stops.

Full run at one million rows (about 12 minutes on two cores; run it on a quiet
machine)::

    nice -n 10 .venv/bin/python benchmarks/run_all.py distributed_fit

Ten million rows as well (``LARGE_SIZES``; each run about ten times as long, some
90 minutes more on two cores): set ``DISTRIBUTED_FIT_LARGE=1`` in the environment.

``--quick`` runs 20 000 rows only (a minute or two), to check the script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import harness

NAME = "distributed_fit"
SIZES = (1_000_000,)
LARGE_SIZES = (10_000_000,)  # with DISTRIBUTED_FIT_LARGE=1
QUICK_SIZES = (20_000,)
N_FEATURES = 28
CHUNK_ROWS = 500_000
MIN_CHUNKS = 8  # so that both workers get the same number of chunks, whatever the size
N_TEST = 200_000
QUICK_N_TEST = 20_000
TEST_CHUNKS_FROM = 1_000_000  # the held-out chunks' indices: never a training chunk's
SEED = 2024
LEVELS = 24  # "256 values": round(24 x), clipped to −128 … 127, divided by 24
SETTINGS = {"n_estimators": 100, "learning_rate": 0.1, "max_depth": 3,
            "l2_regularization": 0.0, "min_child_weight": 1e-3, "max_bins": 256}
# (library, objective, workers, features); workers 0 = one process, no cluster
CONFIGURATIONS = (
    ("xgboost, one process", "built-in", 0, "continuous"),
    ("xgboost, one process", "boostlib", 0, "continuous"),
    ("xgboost.dask", "built-in", 1, "continuous"),
    ("DaskBoostingClassifier", "boostlib", 1, "continuous"),
    ("xgboost.dask", "built-in", 2, "continuous"),
    ("DaskBoostingClassifier", "boostlib", 2, "continuous"),
    ("xgboost.dask", "built-in", 1, "256 values"),
    ("xgboost.dask", "built-in", 2, "256 values"),
)


def chunk_sizes(n_rows):
    """Rows per chunk: at least ``MIN_CHUNKS`` chunks, at most ``CHUNK_ROWS`` rows each."""
    size = min(CHUNK_ROWS, -(-n_rows // MIN_CHUNKS))
    full, rest = divmod(n_rows, size)
    return [size] * full + ([rest] if rest else [])


def chunk_plan(n_rows, n_workers, first_chunk=0):
    """``[(chunk index, rows, worker position), …]``: chunk ``i`` of ``K`` on worker ``⌊iW/K⌋``."""
    sizes = chunk_sizes(n_rows)
    return [(first_chunk + i, n, i * n_workers // len(sizes)) for i, n in enumerate(sizes)]


def make_chunk(index, n_rows, rounded=False):
    """Chunk ``index`` of the data: ``X`` (n_rows, 28) float32 and labels ``y`` in {0, 1}.

    The same ``(index, n_rows)`` gives the same rows on any machine. With
    ``rounded`` every feature is rounded to one of 256 values (``LEVELS`` per
    unit); the labels are those of the unrounded rows.
    """
    import numpy as np

    rng = np.random.default_rng([SEED, index])
    X = rng.standard_normal((n_rows, N_FEATURES), dtype=np.float32)
    weights = np.random.default_rng(SEED).normal(size=N_FEATURES).astype(np.float32)
    score = X @ weights / 3 + X[:, 0] * X[:, 1] - np.abs(X[:, 2]) + 0.8
    y = (rng.logistic(size=n_rows) < score).astype(np.float32)
    if rounded:
        X = (np.clip(np.round(X * LEVELS), -128, 127) / LEVELS).astype(np.float32)
    return X, y


def in_memory(n_rows, rounded=False, first_chunk=0):
    """The whole data set in this process (for the one-process runs), filled chunk by chunk."""
    import numpy as np

    X = np.empty((n_rows, N_FEATURES), dtype=np.float32)
    y = np.empty(n_rows, dtype=np.float32)
    start = 0
    for index, n, _ in chunk_plan(n_rows, 1, first_chunk):
        X[start:start + n], y[start:start + n] = make_chunk(index, n, rounded)
        start += n
    return X, y


def _part(pair, k):
    return pair[k]


def on_workers(client, n_rows, rounded=False, first_chunk=0):
    """The data as dask arrays whose chunks are generated on the workers :func:`chunk_plan` names.

    Each chunk is a task pinned to its worker, so the placement (and with it
    every worker's rows) is the same for every library and every run.
    """
    import dask.array as da
    import numpy as np

    workers = sorted(client.scheduler_info()["workers"])
    X_blocks, y_blocks = [], []
    for index, n, position in chunk_plan(n_rows, len(workers), first_chunk):
        where = dict(workers=[workers[position]], allow_other_workers=False)
        pair = client.submit(make_chunk, index, n, rounded, **where)
        X_part = client.submit(_part, pair, 0, **where)
        y_part = client.submit(_part, pair, 1, **where)
        X_blocks.append(da.from_delayed(X_part, (n, N_FEATURES), np.float32))
        y_blocks.append(da.from_delayed(y_part, (n,), np.float32))
    return da.concatenate(X_blocks), da.concatenate(y_blocks)


def xgboost_params():
    return {"tree_method": "hist", "max_depth": SETTINGS["max_depth"],
            "eta": SETTINGS["learning_rate"], "reg_lambda": SETTINGS["l2_regularization"],
            "min_child_weight": SETTINGS["min_child_weight"], "max_bin": SETTINGS["max_bins"],
            "verbosity": 0}


# -- what each process reports about itself (run in the workers by client.run) --------
def _status_bytes(key):
    """``VmRSS`` or ``VmHWM`` of this process, in bytes (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def _reset_peak():
    """Reset this process's peak resident set (``VmHWM``) to its current size (Linux)."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
        clear.write("5")


def _threads():
    """``{thread id: (seconds on a core, seconds ready to run but waiting for one)}`` (Linux)."""
    seconds = {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/schedstat", encoding="ascii") as stat:
                on_core, waiting = stat.read().split()[:2]
        except (FileNotFoundError, ProcessLookupError):  # a thread that just ended
            continue
        seconds[task] = (int(on_core) / 1e9, int(waiting) / 1e9)
    return seconds


def _clock():
    """This process's CPU seconds (every thread) and its threads' scheduler times."""
    return {"cpu": time.process_time(), "threads": _threads()}


def _busiest_thread(before, after):
    """``(CPU, run-queue wait)`` in seconds, between two :func:`_clock` readings, of the thread
    that ran longest: the one that did the fit's work (a worker computes in one thread)."""
    spent = {tid: (after["threads"][tid][0] - on_core, after["threads"][tid][1] - waiting)
             for tid, (on_core, waiting) in before["threads"].items() if tid in after["threads"]}
    return max(spent.values())


def _import_xgboost_dask():
    import xgboost.dask  # noqa: F401


def _import_boostlib():
    import boostlib.distributed  # noqa: F401


def mean_log_loss(y, F):
    import numpy as np

    return float(np.mean(np.logaddexp(0.0, F) - y * F))


def _load():
    return os.getloadavg()[0]


def measure_one_process(objective, n_rows, n_test):
    """In this process: ``xgboost.train`` with the built-in or boostlib's objective."""
    import numpy as np
    import xgboost as xgb

    from boostlib.distributed import xgboost_objective
    from boostlib.losses import LogLoss

    baseline = _status_bytes("VmRSS")
    X, y = in_memory(n_rows)
    with_data = _status_bytes("VmRSS")
    start = LogLoss().optimal_constant(y)
    params = {**xgboost_params(), "nthread": 1}

    def fit():
        if objective == "built-in":
            dtrain = xgb.QuantileDMatrix(X, label=y, max_bin=SETTINGS["max_bins"], nthread=1)
            return xgb.train({**params, "objective": "binary:logistic", "base_score":
                              float(np.mean(y))}, dtrain, SETTINGS["n_estimators"])
        dtrain = xgb.QuantileDMatrix(X, label=y, base_margin=np.full(len(y), start),
                                     max_bin=SETTINGS["max_bins"], nthread=1)
        return xgb.train(params, dtrain, SETTINGS["n_estimators"],
                         obj=xgboost_objective("log_loss", "newton"))

    load_before = _load()
    _reset_peak()
    before = _clock()
    wall_start = time.perf_counter()
    booster = fit()
    wall = time.perf_counter() - wall_start
    after = _clock()
    peak = _status_bytes("VmHWM")
    load_after = _load()

    def margin(rows):
        extra = {} if objective == "built-in" else {"base_margin": np.full(len(rows), start)}
        return np.asarray(booster.inplace_predict(rows, predict_type="margin", **extra), float)

    train_loss = mean_log_loss(y, margin(X))
    X = None  # the training rows are freed before the held-out rows are made
    X_test, y_test = in_memory(n_test, first_chunk=TEST_CHUNKS_FROM)
    busy_cpu, busy_wait = _busiest_thread(before, after)
    return {"fit_wall_s": wall, "fit_cpu_s": after["cpu"] - before["cpu"],
            "workers_cpu_s": float("nan"), "busy_thread_cpu_s": busy_cpu,
            "busy_thread_wait_s": busy_wait, "scheduler_cpu_s": float("nan"),
            "load_before": load_before, "load_after": load_after,
            "baseline_MB": baseline / 2**20, "data_MB": with_data / 2**20,
            "fit_peak_MB": peak / 2**20, "rows_per_worker": str(n_rows),
            "train_log_loss": train_loss, "test_log_loss": mean_log_loss(y_test, margin(X_test))}


def measure_on_cluster(library, n_rows, n_workers, rounded, n_test):
    """On a fresh LocalCluster: data generated on the workers, then the fit alone timed."""
    import dask.array as da
    from distributed import wait

    from boostlib.distributed import DaskBoostingClassifier, local_client

    client = local_client(n_workers=n_workers, threads_per_worker=1)
    try:
        client.run(_import_xgboost_dask)  # imports are not the fit's cost
        client.run(_import_boostlib)
        baseline = client.run(_status_bytes, "VmRSS")
        X, y = on_workers(client, n_rows, rounded)
        wait([X, y])
        with_data = client.run(_status_bytes, "VmRSS")
        rows = client.run(lambda dask_worker: sum(
            getattr(v, "shape", (0,))[0] for v in dask_worker.data.values()
            if getattr(v, "ndim", 0) == 2))

        def fit():
            """The fitted model and how it scores rows (lazy dask arrays)."""
            if library == "DaskBoostingClassifier":
                model = DaskBoostingClassifier(direction="newton", client=client, **SETTINGS)
                model.fit(X, y)
                return model.decision_function
            import xgboost.dask as dxgb

            dtrain = dxgb.DaskQuantileDMatrix(client, X, y, max_bin=SETTINGS["max_bins"])
            params = {**xgboost_params(), "objective": "binary:logistic",
                      "base_score": float(y.mean().compute())}
            booster = dxgb.train(client, params, dtrain, SETTINGS["n_estimators"])["booster"]
            return lambda rows: dxgb.inplace_predict(client, booster, rows, predict_type="margin")

        load_before = _load()
        client.run(_reset_peak)
        workers_before, here_before = client.run(_clock), time.process_time()
        wall_start = time.perf_counter()
        score = fit()
        wall = time.perf_counter() - wall_start
        workers_after, here_after = client.run(_clock), time.process_time()
        peaks = client.run(_status_bytes, "VmHWM")
        load_after = _load()

        def loss(X_rows, y_rows):
            F = score(X_rows)
            return float(da.mean(da.logaddexp(0.0, F) - y_rows * F).compute())

        train_loss = loss(X, y)
        X_test, y_test = on_workers(client, n_test, rounded, first_chunk=TEST_CHUNKS_FROM)
        test_loss = loss(X_test, y_test)
    finally:
        client.close()
    cpu = {w: workers_after[w]["cpu"] - workers_before[w]["cpu"] for w in workers_before}
    # the busiest worker's compute thread: its CPU and its wait for a core
    busy_cpu, busy_wait = max(_busiest_thread(workers_before[w], workers_after[w])
                              for w in workers_before)
    scheduler = here_after - here_before
    return {"fit_wall_s": wall, "fit_cpu_s": sum(cpu.values()) + scheduler,
            "workers_cpu_s": sum(cpu.values()), "busy_thread_cpu_s": busy_cpu,
            "busy_thread_wait_s": busy_wait, "scheduler_cpu_s": scheduler,
            "load_before": load_before, "load_after": load_after,
            "baseline_MB": max(baseline.values()) / 2**20,
            "data_MB": max(with_data.values()) / 2**20,
            "fit_peak_MB": max(peaks.values()) / 2**20,
            "rows_per_worker": "/".join(str(rows[w]) for w in sorted(rows)),
            "train_log_loss": train_loss, "test_log_loss": test_loss}


def measure(library, objective, n_rows, n_workers, features, n_test):
    """One configuration in this process (called in a fresh subprocess by :func:`run`)."""
    if n_workers == 0:
        result = measure_one_process(objective, n_rows, n_test)
    else:
        result = measure_on_cluster(library, n_rows, n_workers, features == "256 values", n_test)
    return {"n_rows": n_rows, "n_test": n_test, "n_features": N_FEATURES, "library": library,
            "objective": objective, "workers": n_workers, "features": features, **result}


def run(quick=False):
    """Every configuration at every size; the CSV is rewritten after each run.

    A full run takes long enough that an interruption should not lose the
    runs already done: the file then holds those, and says it is partial.
    """
    from importlib.metadata import version

    n_test = QUICK_N_TEST if quick else N_TEST
    sizes = SIZES + (LARGE_SIZES if os.environ.get("DISTRIBUTED_FIT_LARGE") == "1" else ())
    plan = [(n_rows, *configuration) for n_rows in (QUICK_SIZES if quick else sizes)
            for configuration in CONFIGURATIONS]
    rows, frame = [], None
    for n_rows, library, objective, n_workers, features in plan:
        print(f"[distributed_fit] {n_rows} rows, {library}, {objective}, {n_workers} workers, "
              f"{features}", flush=True)
        child = subprocess.run(
            [sys.executable, __file__, library, objective, str(n_rows), str(n_workers), features,
             str(n_test)],
            env=dict(os.environ), capture_output=True, text=True, check=True)
        rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
        partial = "" if len(rows) == len(plan) else f"partial ({len(rows)} of {len(plan)} runs): "
        frame = harness.write_csv(NAME, rows, notes=[
            f"dask={version('dask')} distributed={version('distributed')}",
            f"{partial}{'quick run: ' if quick else ''}28 float32 features, log loss, "
            "100 depth-3 trees, nu 0.1, lambda 0, 256 bins; chunk i of K on worker floor(iW/K); "
            f"held-out log loss on {n_test} rows; one run each in a fresh process",
        ])
    return frame


def summary(frame):
    shown = frame[["n_rows", "library", "objective", "workers", "features", "fit_wall_s",
                   "busy_thread_cpu_s", "busy_thread_wait_s", "scheduler_cpu_s", "data_MB",
                   "fit_peak_MB", "train_log_loss", "test_log_loss"]]
    lines = []
    for n_rows, rows in frame[frame["features"] == "continuous"].groupby("n_rows"):
        reference = rows[(rows["workers"] == 0) & (rows["objective"] == "built-in")]
        reference = reference["fit_wall_s"].iloc[0]
        ours = rows[rows["library"] == "DaskBoostingClassifier"]
        ratios = ", ".join(f"{w} worker{'s' if w > 1 else ''} {t / reference:.2f}x"
                           for w, t in zip(ours["workers"], ours["fit_wall_s"], strict=True))
        lines.append(f"{n_rows:,} rows: DaskBoostingClassifier's fit wall time over one-process "
                     f"xgboost with its built-in objective: {ratios}.")
    return " ".join(lines) + "\n\n" + harness.markdown_table(shown)


if __name__ == "__main__":
    harness.single_threaded()
    library, objective, n_rows, n_workers, features, n_test = (
        sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
    print(json.dumps(measure(library, objective, n_rows, n_workers, features, n_test)))
