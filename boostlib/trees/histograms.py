r"""Histograms: ``Σ w z``, ``Σ w`` and the row count per bin of every feature (chapter 8).

A node's histogram holds, for feature ℓ and bin ``s``, the sums over the
node's rows whose value of feature ℓ falls in bin ``s``:

    hist[ℓ, s] = (Σ w_i z_i,  Σ w_i,  #rows)  =  (−G_s, H_s, n_s)

in the book's symbols (``z = −g/h`` and ``w = h`` under the Newton direction,
so ``Σ w z = −Σ g = −G`` and ``Σ w = Σ h = H``; the code indexes features by
``j``). Every split candidate of the
node is a prefix sum of these rows (:mod:`~boostlib.trees.splitting`).

Two tricks make histograms cheap:

* **gathered weights**: a child's rows are scattered through the data, so
  ``w z`` and ``w`` are first gathered into the node's row order, then every
  feature's pass reads them contiguously;
* **subtraction**: a parent's histogram is the sum of its children's, so only
  the *smaller* child is built from its rows and the larger one is
  ``parent − smaller`` (:func:`subtract`): at most half of the rows are read
  below the root.

Every core takes part, and the sums do not depend on how many
(:mod:`~boostlib.trees.threads`): each thread owns whole features (two at a
time, so one read of a row's ``w z`` and ``w`` serves both), and adds a
feature's rows in their order, as one thread would. The count is kept in
integers while the rows are read (an integer add is cheaper than a float
one) and written into the histogram at the end.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .threads import PRANGE_ONLY

__all__ = ["N_STATS", "build_histogram", "build_root_histogram", "histogram", "subtract"]

N_STATS = 3  # Σ w z, Σ w, count


@njit(cache=True, nogil=True, inline="always")
def _add_row(sums, counts, b, sum_wz, sum_w):
    sums[b, 0] += sum_wz
    sums[b, 1] += sum_w
    counts[b] += 1


@njit(cache=True, nogil=True, inline="always")
def _add_two_features(hist, bins, j, rows, every_row, wz, w):
    """Add the rows into ``hist[j]`` and ``hist[j + 1]``, in row order: one read of a row's
    ``w z`` and ``w`` serves both features.

    With ``every_row`` (the root, when every row takes part) the ``k``-th row is row
    ``k`` of the data; otherwise
    it is ``rows[k]``, and ``wz``, ``w`` are already gathered (two loops, so that neither
    asks which at every row). The sums
    grow in arrays of the thread's own (the compiler then knows nothing else writes
    them, and keeps the loop fast) and are copied into ``hist`` at the end.
    """
    n_bins = hist.shape[1]
    sums0, sums1 = np.zeros((n_bins, 2)), np.zeros((n_bins, 2))
    counts0, counts1 = np.zeros(n_bins, dtype=np.uint32), np.zeros(n_bins, dtype=np.uint32)
    column0, column1 = bins[j], bins[j + 1]
    if every_row:
        for k in range(len(wz)):
            _add_row(sums0, counts0, column0[k], wz[k], w[k])
            _add_row(sums1, counts1, column1[k], wz[k], w[k])
    else:
        for k in range(len(wz)):
            row = rows[k]
            _add_row(sums0, counts0, column0[row], wz[k], w[k])
            _add_row(sums1, counts1, column1[row], wz[k], w[k])
    for b in range(n_bins):
        hist[j, b, 0], hist[j, b, 1], hist[j, b, 2] = sums0[b, 0], sums0[b, 1], counts0[b]
        hist[j + 1, b, 0], hist[j + 1, b, 1] = sums1[b, 0], sums1[b, 1]
        hist[j + 1, b, 2] = counts1[b]


@njit(cache=True, nogil=True, inline="always")
def _add_one_feature(hist, bins, j, rows, every_row, wz, w):
    """:func:`_add_two_features` for the last feature of an odd number of them (one loop,
    which asks at every row whether it is the root's: this runs for one feature only)."""
    n_bins = hist.shape[1]
    sums = np.zeros((n_bins, 2))
    counts = np.zeros(n_bins, dtype=np.uint32)
    column = bins[j]
    for k in range(len(wz)):
        _add_row(sums, counts, column[k if every_row else rows[k]], wz[k], w[k])
    for b in range(n_bins):
        hist[j, b, 0], hist[j, b, 1], hist[j, b, 2] = sums[b, 0], sums[b, 1], counts[b]


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def histogram(bins, rows, wz, w, n_bins, every_row, gathered_wz, gathered_w):
    """``hist[j, b] = (Σ w z, Σ w, n)`` over the node's ``rows`` (indices into the data).

    ``bins`` (n_features, n_samples) uint8, ``wz`` and ``w`` (n_samples,);
    ``n_bins`` is the number of bins per feature including the NaN bin.
    ``every_row``: the root when every row takes part, so its rows are all rows in
    order (``rows`` is then
    not read, and nothing is gathered). Otherwise ``wz`` and ``w`` are gathered
    into the node's row order, in ``gathered_wz`` and ``gathered_w`` (at least
    ``len(rows)`` each: memory the caller reuses from node to node, where an
    array made here would be fresh, and the first write to fresh memory costs
    the system's page faults). One kernel serves the root and the
    other nodes, so numba compiles it once (for uint32 row indices: twice beyond
    2³² − 1 rows, whose indices are ``intp``; a bin's count is uint32, so no bin may
    hold 2³² rows or more).
    """
    n_features = bins.shape[0]
    if every_row:
        gathered_wz, gathered_w = wz, w
    else:
        n_rows = len(rows)
        gathered_wz, gathered_w = gathered_wz[:n_rows], gathered_w[:n_rows]
        for k in prange(n_rows):
            gathered_wz[k] = wz[rows[k]]
            gathered_w[k] = w[rows[k]]
    hist = np.zeros((n_features, n_bins, N_STATS))
    for pair in prange(n_features // 2):
        _add_two_features(hist, bins, 2 * pair, rows, every_row, gathered_wz, gathered_w)
    if n_features % 2:
        _add_one_feature(hist, bins, n_features - 1, rows, every_row, gathered_wz, gathered_w)
    return hist


_NO_ROWS = np.empty(0, dtype=np.uint32)  # the dtype of the nodes' rows: no second compilation


def build_root_histogram(bins, wz, w, n_bins):
    """:func:`histogram` over *all* rows (the root; no gather needed)."""
    return histogram(bins, _NO_ROWS, wz, w, n_bins, True, wz[:0], w[:0])


def build_histogram(bins, rows, wz, w, n_bins, gathered=None):
    """:func:`histogram` over the node's ``rows`` (indices into the data).

    ``gathered``: two arrays of ``wz``'s and ``w``'s dtypes, at least ``len(rows)``
    long, to gather into (fresh ones when None).
    """
    if gathered is None:
        gathered = np.empty(len(rows), dtype=wz.dtype), np.empty(len(rows), dtype=w.dtype)
    elif min(len(gathered[0]), len(gathered[1])) < len(rows):  # the kernel checks no bounds
        raise ValueError(f"the arrays to gather into hold fewer than the {len(rows)} rows")
    return histogram(bins, rows, wz, w, n_bins, False, *gathered)


def subtract(parent, child):
    """The sibling's histogram: ``parent − child``, bin by bin (numpy: nothing to compile)."""
    return parent - child
