r"""Sparse ``X``: binning a CSR or CSC matrix without making it dense (chapter 8).

A sparse matrix stores only its nonzero entries; every other entry is 0.
Its bins need no dense copy of the floats: feature ``ℓ``'s zeros (the code's
``j``) all fall in one bin, ``s_ℓ(0) = #{s : θ_ℓs < 0}``, so the bins of
feature ``ℓ`` start as ``s_ℓ(0)`` everywhere and only the stored entries are
then looked up
(a stored NaN goes to the missing bin, as in a dense ``X``). What is
allocated is the one-byte bins (``N × d`` bytes, an eighth of the dense
float matrix) and, for a CSR input, a CSC copy of the stored entries (a CSC
input is binned as it is). Placing the thresholds copies too, for a while,
whatever the input's format: the input is read as CSR (a CSC input is copied),
the rows of positive weight and, above ``SUBSAMPLE`` of them, the subsample's rows
are drawn from it, and those rows (all of them otherwise) are copied to CSC.
The thresholds are placed on
the subsample's columns, each made dense in turn
(:meth:`~boostlib.trees.binning.Binner.fit`): at most ``SUBSAMPLE`` floats
per thread at a time.

The bins are those of the same matrix made dense, so a tree fitted to a
sparse ``X`` is the tree fitted to its dense copy. scikit-learn's
HistGradientBoosting refuses sparse ``X``; its exact trees, XGBoost and
LightGBM take it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from scipy import sparse

from .threads import PRANGE_ONLY

__all__ = ["column", "sparse_to_bins"]


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def _csc_to_bins(indptr, indices, data, thresholds, n_thresholds, missing_bin, bins):
    """``bins[j, i] = s_j(x_ij)`` from a CSC matrix: ``s_j(0)`` for the entries not stored."""
    for j in prange(bins.shape[0]):
        t = thresholds[j, :n_thresholds[j]]
        bins[j, :] = np.searchsorted(t, 0.0)  # #{θ < 0}: the bin of every zero
        for k in range(indptr[j], indptr[j + 1]):
            x = data[k]
            bins[j, indices[k]] = missing_bin if np.isnan(x) else np.searchsorted(t, x)


def sparse_to_bins(X, thresholds, n_thresholds, missing_bin):
    """The bins (n_features, n_samples) of a sparse ``X``: ``s(x) = #{θ : θ < x}``, NaN to
    ``missing_bin``; ``thresholds`` as :func:`~boostlib.trees.binning.map_to_bins` takes them."""
    X = sparse.csc_matrix(X)  # a CSR matrix: a copy of its stored entries only
    X.sort_indices()
    bins = np.empty((X.shape[1], X.shape[0]), dtype=np.uint8)
    _csc_to_bins(X.indptr, X.indices, np.asarray(X.data, dtype=np.float64), thresholds,
                 n_thresholds, missing_bin, bins)
    return bins


def column(X, j):
    """Feature ``j`` of ``X`` as a dense array (a sparse matrix's column made dense)."""
    if sparse.issparse(X):
        return X[:, [j]].toarray().ravel()
    return X[:, j]
