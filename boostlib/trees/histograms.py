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
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["N_STATS", "build_histogram", "build_root_histogram", "subtract"]

N_STATS = 3  # Σ w z, Σ w, count


@njit(cache=True, nogil=True)
def build_root_histogram(bins, wz, w, n_bins):
    """``hist[j, b] = (Σ w z, Σ w, n)`` over *all* rows (the root; no gather needed).

    ``bins`` (n_features, n_samples) uint8, ``wz`` and ``w`` (n_samples,);
    ``n_bins`` is the number of bins per feature including the NaN bin.
    """
    n_features, n_samples = bins.shape
    hist = np.zeros((n_features, n_bins, N_STATS))
    for j in range(n_features):
        column = bins[j]
        h = hist[j]
        for i in range(n_samples):
            b = column[i]
            h[b, 0] += wz[i]
            h[b, 1] += w[i]
            h[b, 2] += 1.0
    return hist


@njit(cache=True, nogil=True)
def build_histogram(bins, rows, wz, w, n_bins):
    """``hist[j, b] = (Σ w z, Σ w, n)`` over the node's ``rows`` (indices into the data)."""
    n_features = bins.shape[0]
    n_rows = len(rows)
    gathered_wz = np.empty(n_rows)
    gathered_w = np.empty(n_rows)
    for k in range(n_rows):
        gathered_wz[k] = wz[rows[k]]
        gathered_w[k] = w[rows[k]]
    hist = np.zeros((n_features, n_bins, N_STATS))
    for j in range(n_features):
        column = bins[j]
        h = hist[j]
        for k in range(n_rows):
            b = column[rows[k]]
            h[b, 0] += gathered_wz[k]
            h[b, 1] += gathered_w[k]
            h[b, 2] += 1.0
    return hist


@njit(cache=True, nogil=True)
def subtract(parent, child):
    """The sibling's histogram: ``parent − child``, bin by bin."""
    return parent - child
