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

__all__ = ["N_STATS", "build_histogram", "build_root_histogram", "subtract"]

N_STATS = 3  # Σ w z, Σ w, count


@njit(cache=True, nogil=True, inline="always")
def _add_two_features(hist, bins, j, rows, wz, w):
    """Add the rows into ``hist[j]`` and ``hist[j + 1]``, in row order: one read of a row's
    ``w z`` and ``w`` serves both features.

    ``rows`` is None at the root (the ``k``-th row is row ``k`` of the data); otherwise
    the ``k``-th row is ``rows[k]``, and ``wz``, ``w`` are already gathered. The sums
    grow in arrays of the thread's own (the compiler then knows nothing else writes
    them, and keeps the loop fast) and are copied into ``hist`` at the end.
    """
    n_bins = hist.shape[1]
    sums0, sums1 = np.zeros((n_bins, 2)), np.zeros((n_bins, 2))
    counts0, counts1 = np.zeros(n_bins, dtype=np.uint32), np.zeros(n_bins, dtype=np.uint32)
    column0, column1 = bins[j], bins[j + 1]
    for k in range(len(wz)):
        row = k if rows is None else rows[k]
        b0, b1 = column0[row], column1[row]
        sum_wz, sum_w = wz[k], w[k]
        sums0[b0, 0] += sum_wz
        sums0[b0, 1] += sum_w
        counts0[b0] += 1
        sums1[b1, 0] += sum_wz
        sums1[b1, 1] += sum_w
        counts1[b1] += 1
    for b in range(n_bins):
        hist[j, b, 0], hist[j, b, 1], hist[j, b, 2] = sums0[b, 0], sums0[b, 1], counts0[b]
        hist[j + 1, b, 0], hist[j + 1, b, 1] = sums1[b, 0], sums1[b, 1]
        hist[j + 1, b, 2] = counts1[b]


@njit(cache=True, nogil=True, inline="always")
def _add_one_feature(hist, bins, j, rows, wz, w):
    """:func:`_add_two_features` for the last feature of an odd number of them."""
    n_bins = hist.shape[1]
    sums = np.zeros((n_bins, 2))
    counts = np.zeros(n_bins, dtype=np.uint32)
    column = bins[j]
    for k in range(len(wz)):
        b = column[k if rows is None else rows[k]]
        sums[b, 0] += wz[k]
        sums[b, 1] += w[k]
        counts[b] += 1
    for b in range(n_bins):
        hist[j, b, 0], hist[j, b, 1], hist[j, b, 2] = sums[b, 0], sums[b, 1], counts[b]


@njit(cache=True, nogil=True, parallel=True)
def build_root_histogram(bins, wz, w, n_bins):
    """``hist[j, b] = (Σ w z, Σ w, n)`` over *all* rows (the root; no gather needed).

    ``bins`` (n_features, n_samples) uint8, ``wz`` and ``w`` (n_samples,);
    ``n_bins`` is the number of bins per feature including the NaN bin.
    """
    n_features = bins.shape[0]
    hist = np.zeros((n_features, n_bins, N_STATS))
    for pair in prange(n_features // 2):
        _add_two_features(hist, bins, 2 * pair, None, wz, w)
    if n_features % 2:
        _add_one_feature(hist, bins, n_features - 1, None, wz, w)
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
    for pair in prange(n_features // 2):
        _add_two_features(hist, bins, 2 * pair, rows, gathered_wz, gathered_w)
    if n_features % 2:
        _add_one_feature(hist, bins, n_features - 1, rows, gathered_wz, gathered_w)
    return hist


def subtract(parent, child):
    """The sibling's histogram: ``parent − child``, bin by bin (numpy: nothing to compile)."""
    return parent - child
