"""(c) Each chapter's execution time: every ``book/*.ipynb`` run top to bottom with nbclient.

Nothing is saved back. Each notebook runs in a fresh ``python3`` kernel with the
book folder as working directory and one thread, as ``make notebooks`` runs
it; the rounds alternate over the chapters (1, 2, …, 7, 1, 2, …) and the
median wall time is reported. The book's budget: under 60 s per chapter.
Placeholders (no code cell) are listed but not run.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import harness

NAME = "notebooks"
BOOK = Path(__file__).resolve().parents[1] / "book"
BUDGET_S = 60.0


def execute(path):
    """Run one notebook in a fresh kernel; return (wall seconds, error message or "")."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    try:
        client.execute()
    except Exception as error:  # a failing chapter is recorded, not fatal to the benchmark
        return time.perf_counter() - start, f"{type(error).__name__}"
    return time.perf_counter() - start, ""


def run(quick=False):
    import nbformat

    paths = sorted(BOOK.glob("*.ipynb"))
    runnable = [p for p in paths
                if any(c.cell_type == "code" for c in nbformat.read(p, as_version=4).cells)]
    repeat = 1 if quick else 3
    times = {p: [] for p in runnable}
    errors = {p: "" for p in runnable}
    for _ in range(repeat):
        for path in runnable:
            seconds, error = execute(path)
            times[path].append(seconds)
            errors[path] = errors[path] or error
    rows = [{"notebook": p.name,
             "status": ("placeholder" if p not in times else errors[p] or "ok"),
             "wall_s": harness.median(times[p]) if p in times else float("nan"),
             "repeats": len(times.get(p, []))} for p in paths]
    return harness.write_csv(NAME, rows, notes=[
        "wall seconds to execute each chapter with nbclient (fresh python3 kernel, one thread,"
        " not saved); median over alternating rounds; budget 60 s per chapter",
    ])


def summary(frame):
    ran = frame[frame["status"] == "ok"]
    worst = ran["wall_s"].max() if len(ran) else float("nan")
    return (f"Chapter execution times (budget {BUDGET_S:.0f} s each; slowest {worst:.1f} s).\n\n"
            + harness.markdown_table(frame))
