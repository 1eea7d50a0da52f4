"""Re-execute the book's chapters in place, so their stored outputs match boostlib.

Usage (what `make notebooks` runs)::

    .venv/bin/python tools/execute_notebooks.py book              # every chapter
    .venv/bin/python tools/execute_notebooks.py book/03_gradient_boosting.ipynb

Each notebook runs from a fresh python3 kernel of the interpreter running this
script (the project's .venv), with the notebook's folder as working directory,
single-threaded BLAS (whatever kernel OpenBLAS picks), and a 300 s limit per
cell; its code cells come out numbered 1..n. A notebook whose cell raises is
reported and left unchanged. Notebooks without code cells (placeholders) are
skipped. Each chapter executed is recorded in book/executed.json with digests of
its code cells, boostlib and the files it reads, taken before it ran: `make book`
builds only from chapters whose record matches the tree (tools/executed.py).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

# tools/executed.py, next to this script: importable also when a test loads this file by path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import executed  # noqa: E402

# Inherited by the kernels: the same environment `make book` and nbval give them.
# No OPENBLAS_CORETYPE: stored outputs must not depend on the BLAS kernel (make
# nbval and make nbval-kernels check them under four).
KERNEL_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "OMP_WAIT_POLICY": "passive",  # numba's idle threads do not spin (as in make test)
    # ipykernel's own inline backend, whatever the caller's MPLBACKEND: with Agg
    # plt.show() would draw nothing and the figures would be lost.
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}
TIMEOUT = 300  # seconds per cell


def notebooks(args: list[str]) -> list[Path]:
    found = []
    for arg in args or ["book"]:
        p = Path(arg)
        if p.is_dir():
            found += sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
        elif p.suffix == ".ipynb" and p.is_file():
            found.append(p)
        else:
            sys.exit(f"execute_notebooks: {arg} is neither a folder nor a notebook")
    return found


def execute(path: Path) -> float | None:
    """Run one notebook in place; the seconds it took, or None if it has no code."""
    nb = nbformat.read(path, as_version=4)
    if not any(c.cell_type == "code" for c in nb.cells):
        return None
    inputs = executed.inputs(path)  # before running: an edit made meanwhile is not stamped
    start = time.perf_counter()
    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent.resolve())}},
                            record_timing=False)  # no timestamps in the committed file
    client.execute()
    seconds = time.perf_counter() - start
    nbformat.write(nb, path)
    executed.record(path, inputs)
    return seconds


def main(argv: list[str]) -> int:
    os.environ.update(KERNEL_ENV)
    failed = []
    total = time.perf_counter()
    for path in notebooks(argv):
        try:
            seconds = execute(path)
        except CellExecutionError as exc:
            failed.append(path)
            print(f"FAILED   {path}: {exc.ename}: {exc.evalue}", flush=True)
            continue
        if seconds is None:
            print(f"skipped  {path} (no code cells)", flush=True)
        else:
            print(f"{seconds:6.1f} s  {path}", flush=True)
    print(f"{time.perf_counter() - total:6.1f} s  in all; {len(failed)} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
