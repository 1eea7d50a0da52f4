r"""Prediction: a tree as flat arrays of nodes, walked from the root (chapter 8).

Node ``k`` (the book's node η; ``k`` is the code's index) splits on
``feature[k]``: a row goes left when its bin is ``≤ bin_threshold[k]`` (binned
data) or its value ``≤ threshold[k]`` (raw data, the same rule:
:mod:`~boostlib.trees.binning`), and a missing value goes left when
``missing_left[k]``. A categorical split sends a row left when its bin is in
the node's left set, the bitset ``left_set[k]``
(:mod:`~boostlib.trees.categorical`; NaN's bin is in it when NaN goes left),
and is walked on binned data only. Leaves have ``children_left = −1`` and
carry the prediction in ``value[k, 0, 0]``, laid out as scikit-learn's
``tree_.value`` so that ``step="leaf_newton"`` rewrites them as it rewrites
any tree's leaves.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .categorical import BITSET_WORDS, in_bitset, to_bitset
from .threads import PRANGE_ONLY

__all__ = ["Tree", "apply_binned", "apply_raw", "values_of_rows"]

# Rows of a leaf below which one thread writes its training predictions (values_of_rows)
PARALLEL_ROWS = 1 << 15


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def apply_binned(bins, feature, bin_threshold, missing_left, children_left, children_right,
                 missing_bin, is_categorical, left_set):
    """The leaf of every column of ``bins`` (n_features, n_samples), uint8."""
    n_samples = bins.shape[1]
    leaves = np.empty(n_samples, dtype=np.intp)
    for i in prange(n_samples):  # each row's leaf is its own: shared out among the threads
        k = 0
        while children_left[k] != -1:
            b = bins[feature[k], i]
            if is_categorical[k]:
                go_left = in_bitset(left_set[k], b)
            elif b == missing_bin:
                go_left = missing_left[k]
            else:
                go_left = b <= bin_threshold[k]
            k = children_left[k] if go_left else children_right[k]
        leaves[i] = k
    return leaves


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def apply_raw(X, feature, threshold, missing_left, children_left, children_right):
    """The leaf of every row of ``X`` (n_samples, n_features), raw values, NaN allowed."""
    n_samples = X.shape[0]
    leaves = np.empty(n_samples, dtype=np.intp)
    for i in prange(n_samples):  # each row's leaf is its own: shared out among the threads
        k = 0
        while children_left[k] != -1:
            x = X[i, feature[k]]
            if np.isnan(x):
                go_left = missing_left[k]
            else:
                go_left = x <= threshold[k]
            k = children_left[k] if go_left else children_right[k]
        leaves[i] = k
    return leaves


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def values_of_rows(rows_even, rows_odd, starts, stops, odd, values, out):
    """``out[rows[starts[l]:stops[l]]] = values[l]`` for every leaf ``l`` (the book's
    ``j``), ``rows`` being ``rows_odd`` for a leaf at an odd depth (``odd[l]``) and
    ``rows_even`` otherwise: the training rows' predictions read off the grower's
    partition, a large leaf's rows shared out among the threads (a small leaf's are
    not worth starting them)."""
    for leaf in range(len(starts)):
        rows = rows_odd if odd[leaf] else rows_even
        value = values[leaf]
        if stops[leaf] - starts[leaf] < PARALLEL_ROWS:
            for k in range(starts[leaf], stops[leaf]):
                out[rows[k]] = value
        else:
            for k in prange(starts[leaf], stops[leaf]):
                out[rows[k]] = value


class Tree:
    """The fitted nodes of a :class:`~boostlib.trees.HistTreeRegressor`, as flat arrays.

    ``feature``, ``bin_threshold``, ``threshold``, ``missing_left``,
    ``children_left``, ``children_right`` (at leaves: feature and children −1, bin 0,
    threshold NaN, missing_left False), ``is_categorical`` and ``left_set``
    (the left set of a categorical split as 8 uint32 words, zeros elsewhere), ``value`` of shape
    (node_count, 1, 1), and per node its ``gain`` Δ (0 at leaves),
    ``n_node_samples`` and ``weighted_n_node_samples`` (``Σ w = H``).
    """

    def __init__(self, nodes, missing_bin):
        n = len(nodes)
        self.node_count = n
        self.missing_bin = missing_bin
        self.feature = np.array([node.feature for node in nodes], dtype=np.intp)
        self.bin_threshold = np.array([node.bin for node in nodes], dtype=np.intp)
        self.threshold = np.array([node.threshold for node in nodes], dtype=np.float64)
        self.missing_left = np.array([node.missing_left for node in nodes], dtype=np.bool_)
        self.children_left = np.array([node.left for node in nodes], dtype=np.intp)
        self.children_right = np.array([node.right for node in nodes], dtype=np.intp)
        self.is_categorical = np.array([node.left_bins is not None for node in nodes],
                                       dtype=np.bool_)
        self.left_set = np.zeros((n, BITSET_WORDS), dtype=np.uint32)
        for k, node in enumerate(nodes):
            if node.left_bins is not None:
                self.left_set[k] = to_bitset(node.left_bins)
        self.value = np.array([node.value for node in nodes], dtype=np.float64).reshape(n, 1, 1)
        self.gain = np.array([node.gain for node in nodes], dtype=np.float64)
        self.n_node_samples = np.array([node.n for node in nodes], dtype=np.intp)
        self.weighted_n_node_samples = np.array([node.sum_w for node in nodes], dtype=np.float64)

    @property
    def n_leaves(self):
        return int(np.sum(self.children_left == -1))

    @property
    def max_depth(self):
        depth = np.zeros(self.node_count, dtype=np.intp)
        for k in range(self.node_count):  # children come after their parent
            if self.children_left[k] != -1:
                depth[self.children_left[k]] = depth[self.children_right[k]] = depth[k] + 1
        return int(depth.max())

    def apply(self, X):
        """Leaf index of every row: ``X`` a :class:`BinnedX` or a float array (n, d)."""
        if hasattr(X, "bins"):
            return apply_binned(X.bins, self.feature, self.bin_threshold, self.missing_left,
                                self.children_left, self.children_right, self.missing_bin,
                                self.is_categorical, self.left_set)
        if self.is_categorical.any():
            raise ValueError("a tree with categorical splits reads X binned "
                             "(HistTreeRegressor.predict bins it)")
        return apply_raw(X, self.feature, self.threshold, self.missing_left,
                         self.children_left, self.children_right)

    def predict(self, X):
        """The leaf value of every row."""
        return self.value[self.apply(X), 0, 0]
