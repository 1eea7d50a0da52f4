"""Run the benchmarks single-threaded and write benchmarks/results/ (what `make bench` runs).

Usage::

    .venv/bin/python benchmarks/run_all.py                 # every benchmark
    .venv/bin/python benchmarks/run_all.py peers memory    # some, by name
    .venv/bin/python benchmarks/run_all.py --quick         # fewer sizes, seeds, repeats
    .venv/bin/python benchmarks/run_all.py --list          # the names
    .venv/bin/python benchmarks/run_all.py --summary       # only rebuild SUMMARY.md

Each benchmark writes its own ``results/<name>.csv``; SUMMARY.md is then
rebuilt from every result file present, so the benchmarks can run in parts.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import harness

# Before numpy is imported anywhere: one thread for OpenMP and BLAS.
harness.single_threaded()

HERE = Path(__file__).resolve().parent
# name -> module; the order is the order of SUMMARY.md
BENCHMARKS = {
    "sklearn_ratio": "(a) boostlib vs scikit-learn fit time",
    "seed000": "(b) seed 000's experiment per variant",
    "notebooks": "(c) chapter execution times",
    "memory": "(d) peak memory of a 1M-row fit",
    "peers": "(e) peers at equal settings",
    "peers_timing": "(e) peers' fit times (for a quiet machine)",
    "hist_trees": "(f) histogram trees against the histogram libraries (chapter 8)",
    "shap_speed": "(g) SHAP values against XGBoost's pred_contribs (chapter 10)",
    "tree_options": "monotone constraints, column subsampling and sparse X at 1M rows (chapter 8)",
    "categorical_speed": "categorical splits against the plain fit at 1M rows (chapter 8)",
    "esl_10_2": "ESL Figure 10.2 (chapter 7)",
    "direction_step": "direction x step study (chapter 7)",
    "regularisation": "shrinkage and subsampling (chapter 7)",
    "closed_form_step": "one Newton step on rho against the line search, over seeds (chapter 5)",
    "boosted_networks": "boosted networks against tuned baselines at equal budgets (chapter 6)",
    "distributed_fit": "boostlib on Dask: fit time and memory per worker (chapter 9)",
}


def write_summary():
    """results/SUMMARY.md from every result file present."""
    sections = ["# Benchmark results", "",
                "Written by `benchmarks/run_all.py` (`make bench`); every CSV beside this file "
                "starts with `#` lines naming the library versions and the CPU count.", ""]
    for name, title in BENCHMARKS.items():
        frame = harness.read_csv(name)
        if frame is None:
            continue
        module = importlib.import_module(name)
        header = harness.read_header(name)
        sections += [f"## {title}", "", f"`results/{name}.csv` — {header[0] if header else ''}",
                     "", module.summary(frame), ""]
    (harness.RESULTS / "SUMMARY.md").write_text("\n".join(sections), encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer sizes, seeds and repeats")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--summary", action="store_true", help="only rebuild SUMMARY.md")
    args = parser.parse_args(argv)
    if args.list:
        for name, title in BENCHMARKS.items():
            print(f"{name:16s} {title}")
        return 0
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; choose from {list(BENCHMARKS)}")
    if not args.summary:
        for name in args.names or list(BENCHMARKS):
            start = time.perf_counter()
            print(f"[run_all] {name} ...", flush=True)
            importlib.import_module(name).run(quick=args.quick)
            print(f"[run_all] {name} done in {time.perf_counter() - start:.0f} s", flush=True)
    write_summary()
    print(f"[run_all] wrote {harness.RESULTS / 'SUMMARY.md'}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
