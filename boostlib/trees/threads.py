r"""Threads: how many cores the kernels use, and why it does not change the model (chapter 8).

Every kernel that loops in parallel (numba's ``prange``) runs on numba's pool
of threads, whose size is ``NUMBA_NUM_THREADS``: the cores this process may
use, unless that environment variable says otherwise. ``n_jobs`` sets how
many of them one ``fit``, ``predict`` or ``bin`` uses, as
scikit-learn's HistGradientBoosting uses every core by default.

The number of threads never changes a result. Work is shared out so that
no sum depends on it: a histogram's sums belong to one thread per feature
and run over the rows in their order, the best splits of the features are
compared in feature order, the partition puts every row where the
one-thread partition puts it, and every row's bin and prediction is its own.
Between two trees, the boosting loop evaluates the loss, its gradient and
Hessian on as many threads: the log loss in one compiled pass on numba's
threads, other losses on blocks of rows (:mod:`boostlib.row_blocks`). Every
row's value is its own there too, and their sums are taken over all rows in one call.
"""

from __future__ import annotations

import contextlib
import numbers

import numba
from numba.core.cpu_options import ParallelOptions

__all__ = ["effective_n_threads", "PRANGE_ONLY", "using_threads"]


def effective_n_threads(n_jobs):
    """The threads ``n_jobs`` asks for, between 1 and numba's pool size.

    ``None``: every thread of the pool (every core). A positive integer: that
    many, at most the pool's size (numba cannot start more). A negative one
    counts back from every core, as joblib does: ``−1`` is every core, ``−2``
    all but one (at least one).
    """
    pool = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None:
        return pool
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    if n_jobs < 0:
        return max(1, pool + 1 + int(n_jobs))
    return min(int(n_jobs), pool)


@contextlib.contextmanager
def using_threads(n_jobs):
    """Run the block on ``effective_n_threads(n_jobs)`` threads, then restore numba's setting."""
    n_threads = effective_n_threads(n_jobs)
    previous = numba.get_num_threads()
    numba.set_num_threads(n_threads)
    try:
        yield n_threads
    finally:
        numba.set_num_threads(previous)


PRANGE_ONLY = ParallelOptions({"prange": True, "comprehension": False, "reduction": False,
                               "inplace_binop": False, "setitem": False, "numpy": False,
                               "stencil": False, "fusion": False})
"""numba's ``parallel=`` option for boostlib's kernels: the ``prange`` loops run on the
pool's threads, and nothing else is made parallel.

``parallel=True`` also turns every whole-array expression, ``np.zeros`` and
reduction in a kernel into a parallel loop. None of boostlib's kernels needs that
(each one's parallel work is its ``prange`` loop), and compiling those loops took
about a fifth of the numba compile time of a reader's first chapter
(``benchmarks/README.md``). An options object, not a dict: numba empties a dict
when it first compiles, so a kernel's second signature would get ``parallel=True``.
"""
