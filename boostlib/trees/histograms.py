r"""Histograms: ``Σ w z``, ``Σ w`` and the row count per bin of every feature (chapter 8).

A node's histogram holds, for feature ``j`` and bin ``b``, the sums over the
node's rows with ``b_j(x_i) = b``:

    hist[j, b] = (Σ w_i z_i,  Σ w_i,  #rows)  =  (−G_b, H_b, n_b)

in the book's symbols (``z = −g/h`` and ``w = h`` under the Newton direction,
so ``Σ w z = −Σ g = −G`` and ``Σ w = Σ h = H``). Every split candidate of the
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

__all__ = ["N_STATS", "build_histogram", "build_root_histogram", "subtract"]

N_STATS = 3  # Σ w z, Σ w, count


@njit(cache=True, nogil=True)
def _add_rows(hist, bins, first, last, rows, wz, w):
    """Add rows into ``hist[first:last]`` (one or two features), in row order.

    ``rows`` is None at the root (row ``k`` is row ``k`` of the data); otherwise
    row ``k`` of the node is ``rows[k]``, and ``wz``, ``w`` are already gathered.
    """
    n_bins = hist.shape[1]
    counts = np.zeros((2, n_bins), dtype=np.uint32)
    n_rows = len(wz) if rows is None else len(rows)
    h0, c0, column0 = hist[first], counts[0], bins[first]
    if last - first == 2:
        h1, c1, column1 = hist[first + 1], counts[1], bins[first + 1]
        for k in range(n_rows):
            row = k if rows is None else rows[k]
            b0, b1 = column0[row], column1[row]
            sum_wz, sum_w = wz[k], w[k]
            h0[b0, 0] += sum_wz
            h0[b0, 1] += sum_w
            c0[b0] += 1
            h1[b1, 0] += sum_wz
            h1[b1, 1] += sum_w
            c1[b1] += 1
    else:
        for k in range(n_rows):
            b0 = column0[k if rows is None else rows[k]]
            h0[b0, 0] += wz[k]
            h0[b0, 1] += w[k]
            c0[b0] += 1
    for j in range(first, last):
        for b in range(n_bins):
            hist[j, b, 2] = counts[j - first, b]


@njit(cache=True, nogil=True, parallel=True)
def build_root_histogram(bins, wz, w, n_bins):
    """``hist[j, b] = (Σ w z, Σ w, n)`` over *all* rows (the root; no gather needed).

    ``bins`` (n_features, n_samples) uint8, ``wz`` and ``w`` (n_samples,);
    ``n_bins`` is the number of bins per feature including the NaN bin.
    """
    n_features = bins.shape[0]
    hist = np.zeros((n_features, n_bins, N_STATS))
    for pair in prange((n_features + 1) // 2):
        _add_rows(hist, bins, 2 * pair, min(2 * pair + 2, n_features), None, wz, w)
    return hist


@njit(cache=True, nogil=True, parallel=True)
def build_histogram(bins, rows, wz, w, n_bins):
    """``hist[j, b] = (Σ w z, Σ w, n)`` over the node's ``rows`` (indices into the data)."""
    n_features = bins.shape[0]
    n_rows = len(rows)
    gathered_wz = np.empty(n_rows, dtype=wz.dtype)
    gathered_w = np.empty(n_rows, dtype=w.dtype)
    for k in prange(n_rows):
        gathered_wz[k] = wz[rows[k]]
        gathered_w[k] = w[rows[k]]
    hist = np.zeros((n_features, n_bins, N_STATS))
    for pair in prange((n_features + 1) // 2):
        _add_rows(hist, bins, 2 * pair, min(2 * pair + 2, n_features), rows, gathered_wz,
                  gathered_w)
    return hist


def subtract(parent, child):
    """The sibling's histogram: ``parent − child``, bin by bin (numpy: nothing to compile)."""
    return parent - child
