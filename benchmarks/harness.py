"""What every benchmark shares: the clock, the run order and the result files.

Timings follow three rules (benchmarks/README.md):

* single-threaded: ``run_all.py`` sets ``OMP_NUM_THREADS=1`` (and the BLAS
  equivalents) before numpy is imported, and every peer gets ``n_jobs=1``;
* alternating: competitors run A, B, A, B, …, so a slow spell on the shared
  machine hits all of them, and the reported value is the median of the repeats;
* recorded: every CSV starts with ``#`` comment lines naming the library
  versions and the machine's CPU count (read it with ``pd.read_csv(path, comment="#")``).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def single_threaded():
    """Pin every thread pool to one thread; call before numpy is imported."""
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"


def versions():
    """Library versions and the machine, as recorded in every result file."""
    from importlib.metadata import version

    record = {"python": platform.python_version()}
    for package in ("numpy", "scipy", "scikit-learn", "xgboost", "lightgbm", "boostlib"):
        try:
            record[package] = version(package)
        except Exception:  # a peer that is not installed is recorded as missing
            record[package] = "missing"
    record["boostlib_commit"] = boostlib_commit()
    record["cpu_count"] = os.cpu_count()
    record["machine"] = platform.machine()
    record["threads"] = os.environ.get("OMP_NUM_THREADS", "unset")
    return record


def boostlib_commit():
    """The last commit that changed boostlib/ ("+dirty" if it has uncommitted changes)."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "log", "-1", "--format=%h", "--", "boostlib"], cwd=root,
                                check=True, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "boostlib"], cwd=root,
                               check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def write_csv(name, frame, notes=()):
    """Write ``results/<name>.csv``: version comment lines, free notes, then the table.

    ``frame`` is a DataFrame or a list of row dicts; returns the DataFrame written.
    """
    import pandas as pd

    frame = pd.DataFrame(frame)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.csv"
    header = " ".join(f"{k}={v}" for k, v in versions().items())
    with path.open("w", encoding="utf-8") as handle:
        handle.write(f"# {header}\n")
        for note in notes:
            handle.write(f"# {note}\n")
        frame.to_csv(handle, index=False)
    return frame


def read_csv(name):
    """The table of ``results/<name>.csv`` (None if that benchmark has not run)."""
    import pandas as pd

    path = RESULTS / f"{name}.csv"
    return pd.read_csv(path, comment="#") if path.exists() else None


def read_header(name):
    """The ``#`` comment lines of ``results/<name>.csv``, without the ``#``."""
    path = RESULTS / f"{name}.csv"
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line[2:] for line in lines if line.startswith("# ")]


def timed(work: Callable[[], object], clock=time.process_time):
    """Run ``work()`` once; return ``(seconds on clock, wall seconds, its result)``."""
    wall, start = time.perf_counter(), clock()
    result = work()
    return clock() - start, time.perf_counter() - wall, result


def alternating(competitors: dict[str, Callable[[], object]], repeat=3, clock=time.process_time):
    """Run the competitors in turn, ``repeat`` rounds: A, B, …, A, B, ….

    Returns ``{name: {"seconds": [...], "wall": [...], "result": last result}}``;
    the median of ``seconds`` is what the result files report.
    """
    runs = {name: {"seconds": [], "wall": [], "result": None} for name in competitors}
    for _ in range(repeat):
        for name, work in competitors.items():
            seconds, wall, result = timed(work, clock)
            runs[name]["seconds"].append(seconds)
            runs[name]["wall"].append(wall)
            runs[name]["result"] = result
    return runs


def median(values):
    return statistics.median(values)


def markdown_table(frame, floatfmt=4):
    """A pipe table of ``frame`` (no extra dependency), floats rounded to ``floatfmt`` digits.

    Large floats (|x| ≥ 1e4) get ``floatfmt`` significant digits; small non-zero
    ones (|x| < 1e-3) three significant digits, so 1.15e-14 is not shown as 0.0.
    """
    def cell(value):
        if isinstance(value, float):
            if abs(value) >= 1e4:
                return f"{value:.{floatfmt}g}"
            if 0 < abs(value) < 1e-3:
                return f"{value:.3g}"
            return f"{round(value, floatfmt)}"
        return str(value)

    lines = ["| " + " | ".join(map(str, frame.columns)) + " |",
             "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)
