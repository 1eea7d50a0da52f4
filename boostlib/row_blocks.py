r"""The loop's per-row formulas on every core, bit for bit as on one (chapter 8).

Between two trees the boosting loop evaluates formulas of one row each: the
loss ``L(y_i, F_i)``, its gradient ``g_i`` and Hessian ``h_i``. Row ``i``'s value
depends on row ``i`` alone, so :func:`by_row_blocks` cuts the rows into
blocks and calls the *same* numpy, scipy or scikit-learn function on each
block: a block's temporaries stay in the CPU's cache, and the blocks are
shared out among the threads, since those functions release the GIL inside
their loops. Every row goes through the same arithmetic as in one call over
the whole array, so every value is the same to the bit, in blocks and on any
number of threads. A sum or a mean (``train_loss_``, a leaf's ``Σ g``) is
never cut: the caller reduces the whole array in one call, in the order it
always has.

How many threads: :func:`loop_threads` sets them for a block of code (the
boosting loop sets its learner's, see ``_Boosting._loop_threads``); outside
one, the blocks run one after the other on the calling thread. A formula
compiled with numba (the log loss's one pass, :class:`~boostlib.losses.LogLoss`,
and a scalar loss's Newton target, :mod:`~boostlib.directions`) runs instead on
numba's threads, as many as :func:`loop_thread_count` says: one pool for the trees
and the loop. (With numba's OpenMP threading layer,
the threads of a histogram tree's kernels keep their cores busy for a while
after each kernel, waiting for the next, and a second pool would wait for
them.)
"""

from __future__ import annotations

import contextlib
import contextvars
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["BLOCK_ROWS", "by_row_blocks", "loop_thread_count", "loop_threads"]

#: Rows per block, so that its temporaries (a few float64 arrays of 512 KiB) stay in the CPU's
#: cache.
BLOCK_ROWS = 1 << 16

_THREADS = contextvars.ContextVar("boostlib_loop_threads", default=1)
_POOLS = {}


@contextlib.contextmanager
def loop_threads(n_threads):
    """Evaluate :func:`by_row_blocks` formulas on ``n_threads`` threads inside the block."""
    token = _THREADS.set(max(1, int(n_threads)))
    try:
        yield
    finally:
        _THREADS.reset(token)


def loop_thread_count():
    """The threads of the enclosing :func:`loop_threads` block (1 outside one)."""
    return _THREADS.get()


def _pool(n_workers):
    if n_workers not in _POOLS:
        _POOLS[n_workers] = ThreadPoolExecutor(n_workers, thread_name_prefix="boostlib-rows")
    return _POOLS[n_workers]


def _float64_rows(array, N):
    return isinstance(array, np.ndarray) and array.dtype == np.float64 and len(array) == N


def by_row_blocks(formula, *arrays, out_keyword=None):
    """``formula(*arrays)``, evaluated on blocks of rows, in parallel; the same bits.

    ``arrays`` are float64 arrays that share their first axis (the rows, ``N``);
    ``formula`` returns a float64 array of the shape of its last argument
    (``F``), each row computed from the same rows of ``arrays`` alone (an
    elementwise formula). The rows are cut into blocks of ``BLOCK_ROWS``, and
    the blocks shared out in runs, one run per thread of :func:`loop_threads`.
    ``out_keyword``: the keyword by which ``formula`` writes its result into a
    given array (scikit-learn's ``loss_out=``), saving a copy. Other arguments
    (a scalar, another dtype, at most one block's rows) get one call over
    the whole, on the calling thread.
    """
    N = np.shape(arrays[-1])[0] if np.ndim(arrays[-1]) else 0
    n_blocks = -(-N // BLOCK_ROWS)
    if n_blocks <= 1 or not all(_float64_rows(a, N) for a in arrays):
        return formula(*arrays)  # exactly as without blocks
    out = np.empty(np.shape(arrays[-1]), dtype=np.float64)

    def run(first, last):
        for b in range(first, last):
            start, stop = b * BLOCK_ROWS, min((b + 1) * BLOCK_ROWS, N)
            rows = [a[start:stop] for a in arrays]
            if out_keyword is None:
                out[start:stop] = formula(*rows)
            else:
                formula(*rows, **{out_keyword: out[start:stop]})

    n_threads = min(_THREADS.get(), n_blocks)
    edges = [n_blocks * t // n_threads for t in range(n_threads + 1)]
    futures = [_pool(n_threads - 1).submit(run, edges[t], edges[t + 1])
               for t in range(1, n_threads)]
    run(edges[0], edges[1])  # the calling thread takes the first run
    for future in futures:
        future.result()
    return out
