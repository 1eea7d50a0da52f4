"""boostlib on Dask: fit time and peak memory per worker at 1M and 10M rows (chapter 9).

Data: 28 standard-normal float32 features (the width of the HIGGS data) and
labels from a fixed logistic model with interactions, generated chunk by
chunk (:func:`make_chunk`, seeded by the chunk's index; at least 8 chunks of
at most 500 000 rows, so that every worker gets some).
On the cluster every chunk is generated *on a worker* (a dask array built
from delayed per-chunk generators), so 10M rows (1.1 GB of float32) never
pass through the client; the one-process runs generate the same chunks
in-process, into one array.

Every configuration trains the same model: log loss, 100 depth-3 trees,
learning rate 0.1, λ = 0, ``min_child_weight`` 1e-3, 256 histogram bins,
XGBoost's ``hist`` trees, starting from the log-odds of the positive rate:

* ``xgboost, one process``: ``xgboost.train`` with ``nthread=1``, once with its
  built-in ``binary:logistic`` and once with boostlib's objective
  (:func:`boostlib.distributed.xgboost_objective`, log loss, Newton direction);
* ``xgboost.dask``: the built-in objective on a LocalCluster of 1 or 2 worker
  processes with one thread each;
* ``DaskBoostingClassifier``: boostlib's objective on the same clusters.

So one-process built-in vs one-process boostlib is the cost of a Python
objective, and xgboost.dask vs DaskBoostingClassifier the same on Dask.

Each run is a fresh process (and a fresh cluster), so that its peak memory is
its own. Fit time is wall seconds of the fit alone (the data are generated and
held in memory first) and, beside it, the CPU seconds of every process
involved (workers and client). Peak memory is each process's peak resident
set (``ru_maxrss``): per worker on the cluster, and of the client, which never
holds the data. One run per configuration (minutes per fit at 10M rows),
alternating the configurations size by size.

Full run (an estimated 20–30 minutes on two cores; run it on a quiet machine)::

    nice -n 10 .venv/bin/python benchmarks/run_all.py distributed_fit

``--quick`` runs 20 000 rows only (seconds), to check the script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import harness

NAME = "distributed_fit"
SIZES = (1_000_000, 10_000_000)
QUICK_SIZES = (20_000,)
N_FEATURES = 28
CHUNK_ROWS = 500_000
MIN_CHUNKS = 8  # so that both workers get some, whatever the size
SEED = 2024
SETTINGS = {"n_estimators": 100, "learning_rate": 0.1, "max_depth": 3,
            "l2_regularization": 0.0, "min_child_weight": 1e-3, "max_bins": 256}
# (library, objective, workers); workers 0 = one process, no cluster
CONFIGURATIONS = (
    ("xgboost, one process", "built-in", 0),
    ("xgboost, one process", "boostlib", 0),
    ("xgboost.dask", "built-in", 1),
    ("DaskBoostingClassifier", "boostlib", 1),
    ("xgboost.dask", "built-in", 2),
    ("DaskBoostingClassifier", "boostlib", 2),
)


def chunk_sizes(n_rows):
    """Rows per chunk: at least ``MIN_CHUNKS`` chunks, at most ``CHUNK_ROWS`` rows each."""
    size = min(CHUNK_ROWS, -(-n_rows // MIN_CHUNKS))
    full, rest = divmod(n_rows, size)
    return [size] * full + ([rest] if rest else [])


def make_chunk(index, n_rows):
    """Chunk ``index`` of the data: ``X`` (n_rows, 28) float32 and labels ``y`` in {0, 1}.

    The same ``(index, n_rows)`` gives the same rows on any machine.
    """
    import numpy as np

    rng = np.random.default_rng([SEED, index])
    X = rng.standard_normal((n_rows, N_FEATURES), dtype=np.float32)
    weights = np.random.default_rng(SEED).normal(size=N_FEATURES).astype(np.float32)
    score = X @ weights / 3 + X[:, 0] * X[:, 1] - np.abs(X[:, 2]) + 0.8
    y = (rng.logistic(size=n_rows) < score).astype(np.float32)
    return X, y


def in_memory(n_rows):
    """The whole data set in this process (for the one-process runs), filled chunk by chunk."""
    import numpy as np

    X = np.empty((n_rows, N_FEATURES), dtype=np.float32)
    y = np.empty(n_rows, dtype=np.float32)
    start = 0
    for i, n in enumerate(chunk_sizes(n_rows)):
        X[start:start + n], y[start:start + n] = make_chunk(i, n)
        start += n
    return X, y


def on_workers(n_rows):
    """The data as dask arrays whose chunks are generated where they are computed."""
    import dask
    import dask.array as da
    import numpy as np

    parts = [dask.delayed(make_chunk, pure=True, nout=2)(i, n)
             for i, n in enumerate(chunk_sizes(n_rows))]
    X = da.concatenate([da.from_delayed(X, (n, N_FEATURES), np.float32)
                        for (X, _), n in zip(parts, chunk_sizes(n_rows), strict=True)])
    y = da.concatenate([da.from_delayed(y, (n,), np.float32)
                        for (_, y), n in zip(parts, chunk_sizes(n_rows), strict=True)])
    return X, y


def xgboost_params():
    return {"tree_method": "hist", "max_depth": SETTINGS["max_depth"],
            "eta": SETTINGS["learning_rate"], "reg_lambda": SETTINGS["l2_regularization"],
            "min_child_weight": SETTINGS["min_child_weight"], "max_bin": SETTINGS["max_bins"],
            "verbosity": 0}


def _peak_bytes():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB


def _rss_bytes():
    import psutil

    return psutil.Process().memory_info().rss


def _import_xgboost_dask():
    import xgboost.dask  # noqa: F401


def _cpu_seconds():
    return time.process_time()


def mean_log_loss(y, F):
    import numpy as np

    return float(np.mean(np.logaddexp(0.0, F) - y * F))


def measure_one_process(objective, n_rows):
    """In this process: ``xgboost.train`` with the built-in or boostlib's objective."""
    import numpy as np
    import xgboost as xgb

    from boostlib.distributed import xgboost_objective
    from boostlib.losses import LogLoss

    baseline = _rss_bytes()
    X, y = in_memory(n_rows)
    start = LogLoss().optimal_constant(y)
    params = {**xgboost_params(), "nthread": 1}

    def fit():
        if objective == "built-in":
            dtrain = xgb.QuantileDMatrix(X, label=y, max_bin=SETTINGS["max_bins"], nthread=1)
            return xgb.train({**params, "objective": "binary:logistic", "base_score":
                              float(np.mean(y))}, dtrain, SETTINGS["n_estimators"]), dtrain
        dtrain = xgb.QuantileDMatrix(X, label=y, base_margin=np.full(len(y), start),
                                     max_bin=SETTINGS["max_bins"], nthread=1)
        return xgb.train(params, dtrain, SETTINGS["n_estimators"],
                         obj=xgboost_objective("log_loss", "newton")), dtrain

    cpu, wall, (booster, dtrain) = harness.timed(fit)
    F = booster.predict(dtrain, output_margin=True)
    return {"fit_wall_s": wall, "fit_cpu_s": cpu, "workers": 0,
            "peak_worker_MB": float("nan"), "baseline_worker_MB": float("nan"),
            "peak_client_MB": _peak_bytes() / 2**20, "baseline_client_MB": baseline / 2**20,
            "train_log_loss": mean_log_loss(y, np.asarray(F, float))}


def measure_on_cluster(library, n_rows, n_workers):
    """On a fresh LocalCluster: data generated on the workers, then the fit alone timed."""
    import logging

    import dask.array as da
    import numpy as np
    from distributed import Client, LocalCluster, wait

    from boostlib.distributed import DaskBoostingClassifier, HideRankLines

    baseline_client = _rss_bytes()
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      silence_logs=logging.ERROR, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        client.register_plugin(HideRankLines())
        client.run(_import_xgboost_dask)  # imports are not the fit's cost
        baseline = client.run(_rss_bytes)
        X, y = on_workers(n_rows)
        X, y = client.persist([X, y])
        wait([X, y])
        cpu_before = sum(client.run(_cpu_seconds).values()) + _cpu_seconds()

        def fit():
            """The fitted model and how it scores the training rows (a lazy dask array)."""
            if library == "DaskBoostingClassifier":
                model = DaskBoostingClassifier(direction="newton", client=client, **SETTINGS)
                model.fit(X, y)
                return lambda: model.decision_function(X)
            import xgboost.dask as dxgb

            dtrain = dxgb.DaskQuantileDMatrix(client, X, y, max_bin=SETTINGS["max_bins"])
            params = {**xgboost_params(), "objective": "binary:logistic",
                      "base_score": float(y.mean().compute())}
            booster = dxgb.train(client, params, dtrain, SETTINGS["n_estimators"])["booster"]
            return lambda: dxgb.inplace_predict(client, booster, X, predict_type="margin")

        wall_start = time.perf_counter()
        score = fit()
        wall = time.perf_counter() - wall_start
        cpu = sum(client.run(_cpu_seconds).values()) + _cpu_seconds() - cpu_before
        F = score()  # the training scores, after the clock
        loss = float(da.mean(da.logaddexp(0.0, F) - y * F).compute())
        peaks = client.run(_peak_bytes)
        rows_per_worker = client.run(lambda dask_worker: sum(
            getattr(v, "shape", (0,))[0] for v in dask_worker.data.values()
            if getattr(v, "ndim", 0) == 2))
    return {"fit_wall_s": wall, "fit_cpu_s": cpu, "workers": n_workers,
            "peak_worker_MB": max(peaks.values()) / 2**20,
            "baseline_worker_MB": max(baseline.values()) / 2**20,
            "peak_client_MB": _peak_bytes() / 2**20, "baseline_client_MB": baseline_client / 2**20,
            "train_log_loss": loss,
            "min_rows_on_a_worker": int(np.min(list(rows_per_worker.values())))}


def measure(library, objective, n_rows, n_workers):
    """One configuration in this process (called in a fresh subprocess by :func:`run`)."""
    if n_workers == 0:
        result = measure_one_process(objective, n_rows)
    else:
        result = measure_on_cluster(library, n_rows, n_workers)
    return {"n_rows": n_rows, "n_features": N_FEATURES, "library": library,
            "objective": objective, **result}


def run(quick=False):
    """Every configuration at every size; the CSV is rewritten after each run.

    A full run takes long enough that an interruption should not lose the
    runs already done: the file then holds those, and says it is partial.
    """
    from importlib.metadata import version

    plan = [(n_rows, *configuration) for n_rows in (QUICK_SIZES if quick else SIZES)
            for configuration in CONFIGURATIONS]
    rows, frame = [], None
    for n_rows, library, objective, n_workers in plan:
        print(f"[distributed_fit] {n_rows} rows, {library}, {objective}, "
              f"{n_workers} workers", flush=True)
        child = subprocess.run(
            [sys.executable, __file__, library, objective, str(n_rows), str(n_workers)],
            env=dict(os.environ), capture_output=True, text=True, check=True)
        rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
        partial = "" if len(rows) == len(plan) else f"partial ({len(rows)} of {len(plan)} runs): "
        frame = harness.write_csv(NAME, rows, notes=[
            f"dask={version('dask')} distributed={version('distributed')}",
            f"{partial}{'quick run: ' if quick else ''}28 float32 features, log loss, "
            "100 depth-3 trees, nu 0.1, lambda 0, 256 bins; one run each in a fresh process; "
            "wall and CPU seconds of the fit; peak RSS per worker and of the client",
        ])
    return frame


def summary(frame):
    shown = frame[["n_rows", "library", "objective", "workers", "fit_wall_s", "fit_cpu_s",
                   "peak_worker_MB", "peak_client_MB", "train_log_loss"]]
    builtin = frame[(frame["workers"] == 0) & (frame["objective"] == "built-in")]
    lines = []
    for n_rows, reference in builtin.groupby("n_rows")["fit_wall_s"]:
        ours = frame[(frame["n_rows"] == n_rows) & (frame["library"] == "DaskBoostingClassifier")]
        ratios = ", ".join(f"{w} worker{'s' if w > 1 else ''} {t / reference.iloc[0]:.2f}x"
                           for w, t in zip(ours["workers"], ours["fit_wall_s"], strict=True))
        lines.append(f"{n_rows:,} rows: DaskBoostingClassifier's fit wall time over one-process "
                     f"xgboost with its built-in objective: {ratios}.")
    return " ".join(lines) + "\n\n" + harness.markdown_table(shown)


if __name__ == "__main__":
    harness.single_threaded()
    library, objective, n_rows, n_workers = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:5])
    print(json.dumps(measure(library, objective, n_rows, n_workers)))
