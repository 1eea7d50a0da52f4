"""How long a newcomer waits: `make test`, `make book` and `make nbval-kernels`, timed.

Usage (what `make timings` runs; on a quiet machine, from the repository root)::

    .venv/bin/python benchmarks/make_targets.py                 # every target below
    .venv/bin/python benchmarks/make_targets.py test            # some of them

First, untimed, `make .venv/.installed` (the pinned packages are installed,
so no pip install is timed). Then each target runs once, as a reader types it:

- ``test``: lint, unit tests and nbval under this machine's OpenBLAS kernel;
- ``book (from scratch)``: ``_build/`` removed first; ``book``: the build again,
  nothing changed since (the time a reader waits after editing one page is close
  to it);
- ``nbval-kernels``: nbval under the three other kernels (CI runs it).

Each row of ``results/make_targets.csv`` holds the wall seconds, the CPU seconds
of make and every process it waited for (user + system, ``RUSAGE_CHILDREN``),
the 1-minute load average before and after (a load above ~0.5 before a run
means something else was running: the timing is not the machine's), make's
exit status, and the issue's budget. The README quotes these numbers.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import harness

ROOT = Path(__file__).resolve().parents[1]
NAME = "make_targets"
QUIET_LOAD = 0.5  # 1-minute load average above which the machine was not quiet
SETTLE_S = 300  # the longest wait for the previous target's load to die down
# label -> (make target, budget in seconds, what it is)
TARGETS = {
    "test": ("test", 360, "lint, unit tests, nbval under the machine's OpenBLAS kernel"),
    "book (from scratch)": ("book", None, "_build/ removed first"),
    "book": ("book", 60, "the second build, nothing changed since the first"),
    "nbval-kernels": ("nbval-kernels", 600, "nbval under Haswell, Sandybridge, Prescott"),
}


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def settle():
    """Wait until the 1-minute load average is below ``QUIET_LOAD``, at most ``SETTLE_S``
    seconds: after a target it still holds that target's own load for a minute or two,
    which is not another process's."""
    deadline = time.monotonic() + SETTLE_S
    while os.getloadavg()[0] > QUIET_LOAD and time.monotonic() < deadline:
        time.sleep(5)


def measure(command, cwd=ROOT):
    """Run ``command`` once the load has settled; its wall and children's CPU seconds,
    the load before and after."""
    settle()
    load_before = os.getloadavg()[0]
    cpu, start = children_cpu(), time.perf_counter()
    status = subprocess.run(command, cwd=cwd).returncode
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    return {"wall_s": round(wall, 1), "cpu_children_s": round(cpu, 1),
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
            "status": status}


def row(label, make=("make", "--no-print-directory"), cwd=ROOT):
    target, budget, what = TARGETS[label]
    if label == "book (from scratch)":
        shutil.rmtree(cwd / "_build", ignore_errors=True)
    print(f"== make {target} ({label})", flush=True)
    result = measure([*make, target], cwd)
    within = "" if budget is None else str(result["status"] == 0 and result["wall_s"] <= budget)
    return {"target": f"make {target}", "run": label, "what": what, **result,
            "budget_s": budget if budget is not None else "", "within_budget": within}


def run(labels, make=("make", "--no-print-directory"), cwd=ROOT):
    """Install untimed, then time each of ``labels`` in TARGETS' order; write the rows."""
    if subprocess.run([*make, ".venv/.installed"], cwd=cwd).returncode != 0:
        sys.exit("make_targets: installing .venv failed; nothing was timed")
    timed = {label: row(label, make, cwd) for label in TARGETS if label in labels}
    # a subset re-run keeps the other targets' rows of the last run (their own loads kept)
    kept = harness.read_csv(NAME)
    kept = {} if kept is None else {r["run"]: {k: ("" if v != v else v) for k, v in r.items()}
                                    for r in kept.to_dict("records")}
    rows = [timed[label] if label in timed else kept[label]
            for label in TARGETS if label in timed or label in kept]
    busy = [r["run"] for r in rows if r["load_before"] > QUIET_LOAD]
    notes = ["wall and CPU seconds (user + system of make and every process it waited for) "
             "of each make target, run once from an installed .venv; load = 1-minute load "
             "average before and after; status = make's exit status; budget from issue 24"]
    if busy:
        notes.append(f"NOT QUIET: load above {QUIET_LOAD} before {', '.join(busy)}; "
                     "the timings are not the machine's")
    harness.write_csv(NAME, rows, notes=notes)
    for r in rows:
        print(f"{r['target']:22} {r['run']:22} {r['wall_s']:8.1f} s wall "
              f"{r['cpu_children_s']:8.1f} s CPU  load {r['load_before']} -> {r['load_after']}"
              f"  status {r['status']}", flush=True)
    for note in notes[1:]:
        print(note, flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help=f"some of {list(TARGETS)} (default: all)")
    args = parser.parse_args(argv)
    labels = set(args.targets) or set(TARGETS)
    if "book" in labels:  # the timed build is the second of two
        labels.add("book (from scratch)")
    unknown = sorted(labels - set(TARGETS))
    if unknown:
        parser.error(f"unknown targets {unknown}; choose from {list(TARGETS)}")
    rows = run(labels)
    return 0 if all(r["status"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
