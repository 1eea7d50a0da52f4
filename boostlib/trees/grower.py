r"""Growing a tree from histograms: depth-wise or best-first (chapter 8).

The rows of the data sit in one index array, and every node owns a slice
``rows[start:stop]`` of it; splitting a node partitions its slice in place
(:func:`partition`), so its children own the two halves. A node that may
still split gets its histogram (:mod:`~boostlib.trees.histograms`), the
smaller child built from its rows and the larger as parent − sibling, and
its best split (:func:`~boostlib.trees.splitting.best_split`).

Which splittable leaf is split next:

* **depth-wise** (``max_leaf_nodes=None``, XGBoost's default): in the order
  the leaves were made, level by level, until ``max_depth``;
* **best-first** (``max_leaf_nodes`` set, LightGBM's leaf-wise growth): the
  leaf whose split has the largest gain Δ, until there are ``max_leaf_nodes``
  leaves (and, if set, nothing deeper than ``max_depth``).

A missing value met at prediction in a node that saw none of its feature in
training follows the child with the larger ``Σ w`` (``H``; left on a tie).
XGBoost's ``hist`` sends it right; scikit-learn's HistGradientBoosting to the
child with more training rows (right on a tie) when the feature had no missing
value anywhere in training, and otherwise right, its first scan's default,
unless rounding makes its second scan's gain (missing values left) larger.

A split is made when its gain is positive and at least ``min_split_gain``
(XGBoost's ``gamma``, compared with the un-halved Δ as XGBoost's code
compares it). A weaker split is *refused up front*, as XGBoost's ``hist``
method and LightGBM refuse it: one rule for both growth orders, and no work
spent below a split that will not be kept. XGBoost's ``exact`` method
instead grows first and prunes afterwards, bottom-up (a split whose two
children are leaves is undone when its gain is below ``gamma``), which can
keep a weak split for the sake of a strong one beneath it.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from . import categorical
from .column_subsampling import features_of_node
from .histograms import build_histogram, build_root_histogram, subtract
from .monotone import bound_children
from .splitting import best_split, leaf_value

__all__ = ["ROW_DTYPE", "STATS_DTYPE", "TreeNode", "grow", "partition"]

ROW_DTYPE = np.uint32  # row indices: half the bytes of int64 (np.intp beyond 2³² − 1 rows)
STATS_DTYPE = np.float64  # w z and w as the histograms read them (float32: 3–4 % faster, in
# one-thread fits at 1M and 10M rows, but its rounding would move every gain, Σ w and leaf
# value off their float64 sums, which the equalities with scikit-learn rely on)


# Rows per thread below which one thread partitions a node: the second pass of the
# parallel partition and the start of the threads would cost more than they save.
# Only the time depends on it: every row lands where the one-thread partition puts it.
PARALLEL_PARTITION_ROWS = 1 << 15


@njit(cache=True, nogil=True)
def _partition_serial(rows, start, stop, column, goes_left, buffer):
    n_left = 0
    n_right = 0
    for k in range(start, stop):
        row = rows[k]
        go_left = goes_left[column[row]]
        # written to both sides, the counters then say which copy stays: no branch to
        # mispredict (a row goes either way about as often); never overtakes k in place
        rows[start + n_left] = row
        buffer[n_right] = row
        n_left += go_left
        n_right += 1 - go_left
    for k in range(n_right):
        rows[start + n_left + k] = buffer[k]
    return n_left


@njit(cache=True, nogil=True, parallel=True)
def _partition_parallel(rows, start, stop, column, goes_left, buffer, n_chunks):
    """Each thread splits one chunk of the slice into the buffer (its left rows from the
    chunk's front, its right rows from its back), then every chunk's rows are copied to
    their places: the left rows of chunk 0, of chunk 1, …, then the right rows likewise."""
    n = stop - start
    size = (n + n_chunks - 1) // n_chunks
    n_lefts = np.zeros(n_chunks, dtype=np.intp)
    n_rights = np.zeros(n_chunks, dtype=np.intp)
    for chunk in prange(n_chunks):
        front = min(chunk * size, n)
        back = min(front + size, n)
        n_left = 0
        n_right = 0
        for k in range(start + front, start + back):
            row = rows[k]
            go_left = goes_left[column[row]]
            buffer[front + n_left] = row  # both free slots, as in _partition_serial
            buffer[back - 1 - n_right] = row
            n_left += go_left
            n_right += 1 - go_left
        n_lefts[chunk] = n_left
        n_rights[chunk] = n_right
    left_at = np.empty(n_chunks, dtype=np.intp)
    right_at = np.empty(n_chunks, dtype=np.intp)
    total_left = 0
    for chunk in range(n_chunks):
        total_left += n_lefts[chunk]
    next_left, next_right = start, start + total_left
    for chunk in range(n_chunks):
        left_at[chunk], right_at[chunk] = next_left, next_right
        next_left += n_lefts[chunk]
        next_right += n_rights[chunk]
    for chunk in prange(n_chunks):
        front = min(chunk * size, n)
        back = min(front + size, n)
        for i in range(n_lefts[chunk]):
            rows[left_at[chunk] + i] = buffer[front + i]
        for i in range(n_rights[chunk]):
            rows[right_at[chunk] + i] = buffer[back - 1 - i]
    return total_left


def partition(rows, start, stop, column, bin_threshold, missing_left, missing_bin, buffer,
              left_bins=None):
    """Reorder ``rows[start:stop]`` so the rows going left come first; return how many.

    A row goes left when its bin in ``column`` is ``≤ bin_threshold``, or, at
    ``missing_bin``, when ``missing_left``; for a categorical split, when
    ``left_bins`` (bool per bin, :mod:`~boostlib.trees.categorical`) holds its
    bin. Either rule is read as a table, one entry per bin. Stable: each side keeps its order.
    ``buffer`` holds at least ``stop − start`` rows. A large slice is cut into
    chunks of at least ``PARALLEL_PARTITION_ROWS`` rows, at most one per thread,
    each partitioned on its own and the pieces put together in chunk order: the
    same rows in the same places as one thread.
    """
    if left_bins is None:
        left_bins = np.arange(missing_bin + 1) <= bin_threshold
        left_bins[missing_bin] = missing_left
    n_chunks = min(get_num_threads(), (stop - start) // PARALLEL_PARTITION_ROWS)
    if n_chunks > 1:
        return _partition_parallel(rows, start, stop, column, left_bins, buffer, n_chunks)
    return _partition_serial(rows, start, stop, column, left_bins, buffer)


class TreeNode:
    """One node while the tree grows: its rows, sums, histogram and best split."""

    def __init__(self, start, stop, sum_wz, sum_w, depth, l2_regularization):
        self.start, self.stop, self.n = start, stop, stop - start
        self.sum_wz, self.sum_w, self.depth = sum_wz, sum_w, depth
        self.value = leaf_value(sum_wz, sum_w, l2_regularization)
        self.hist = None
        self.feature, self.bin, self.threshold, self.missing_left = -1, 0, np.nan, False
        self.left = self.right = -1
        self.gain = 0.0
        self.split = None  # (gain, feature, bin, missing_left, Σwz_left, Σw_left, n_left)
        self.left_bins = None  # a categorical split's left set (bool per bin)
        self.hist_missing_n = 0.0  # rows of the split feature with NaN here
        self.lower, self.upper = -np.inf, np.inf  # its subtree's values (monotone constraints)


def grow(binned, wz, w, *, max_depth=3, max_leaf_nodes=None, min_samples_leaf=1,
         min_child_weight=1e-3, l2_regularization=0.0, min_split_gain=0.0, monotonic_cst=None,
         max_features=1.0, rng=None, categorical_smoothing=0.0):
    """Grow one tree on ``binned`` (:class:`BinnedX`) for ``Σ_i w_i (z_i − u_i)² + λ Σ_j γ_j²``.

    ``wz`` and ``w`` are ``w z`` and ``w`` per sample; rows with ``w = 0``
    (outside a subsample) take no part. Returns the list of :class:`TreeNode`,
    parents before children, and ``rows``: the rows taking part, each leaf's
    at ``rows[leaf.start:leaf.stop]``.

    ``monotonic_cst`` (int8 per feature, or None): leaf values bounded as
    :mod:`~boostlib.trees.monotone` derives. ``max_features < 1``: each node
    looks for its split among features drawn from ``rng``
    (:mod:`~boostlib.trees.column_subsampling`). A binner with categorical
    features gets them their own scan (:mod:`~boostlib.trees.categorical`),
    categories sorted by ``G_c/(H_c + β)``, ``β = categorical_smoothing``.
    """
    bins, binner = binned.bins, binned.binner
    missing_bin = binner.missing_bin
    n_bins_total = missing_bin + 1
    has_categorical = hasattr(binner, "is_categorical_")
    wz = np.asarray(wz, dtype=STATS_DTYPE)
    w = np.asarray(w, dtype=STATS_DTYPE)
    row_dtype = ROW_DTYPE if len(w) <= np.iinfo(ROW_DTYPE).max else np.intp
    taking_part = w > 0
    if taking_part.all():  # no int64 indices to convert
        rows = np.arange(len(w), dtype=row_dtype)
    else:
        rows = np.flatnonzero(taking_part).astype(row_dtype)
    if len(rows) == len(w):
        root_hist = build_root_histogram(bins, wz, w, n_bins_total)
    else:
        root_hist = build_histogram(bins, rows, wz, w, n_bins_total)
    sum_wz, sum_w, _ = root_hist[0].sum(axis=0)
    root = TreeNode(0, len(rows), sum_wz, sum_w, 0, l2_regularization)
    root.hist = root_hist
    nodes = [root]
    buffer = np.empty(len(rows), dtype=rows.dtype)

    def may_split(node):
        return (max_depth is None or node.depth < max_depth) and node.n >= 2 * min_samples_leaf

    def find_split(node):
        bounds = None if monotonic_cst is None else (monotonic_cst, node.lower, node.upper,
                                                     node.value)
        drawn = features_of_node(binner.n_bins_, max_features, rng)
        found = best_split(node.hist, node.sum_wz, node.sum_w, float(node.n),
                           categorical.numeric_n_bins(binner, drawn), missing_bin,
                           l2_regularization, min_child_weight, min_samples_leaf, bounds)
        if has_categorical:  # categorical features: their own scan
            found = categorical.better_split(found, node.hist, node.sum_wz, node.sum_w,
                                             float(node.n), binner, drawn, l2_regularization,
                                             min_child_weight, min_samples_leaf,
                                             categorical_smoothing, bounds)
        node.hist_missing_n = node.hist[found[1], missing_bin, 2] if found[1] >= 0 else 0.0
        if found[1] >= 0 and found[0] >= min_split_gain:
            node.split = found
            return True
        node.hist = None
        return False

    frontier = [root] if may_split(root) and find_split(root) else []
    n_leaves = 1
    while frontier and (max_leaf_nodes is None or n_leaves < max_leaf_nodes):
        if max_leaf_nodes is None:
            node = frontier.pop(0)
        else:
            node = frontier.pop(int(np.argmax([leaf.split[0] for leaf in frontier])))
        gain, feature, b, missing_left, left_wz, left_w, left_n = node.split
        if node.hist_missing_n == 0:
            # no NaN here in training: a NaN met later follows the heavier child (left on a tie)
            missing_left = left_w >= node.sum_w - left_w
        n_left = int(left_n)
        thresholds = binner.thresholds_[feature]
        node.feature, node.bin, node.missing_left, node.gain = feature, b, missing_left, gain
        if has_categorical and binner.is_categorical_[feature]:  # the left set, not a bin
            node.left_bins = categorical.left_bins(
                node.hist[feature], binner.n_bins_[feature], missing_bin, float(node.n),
                node.sum_w, categorical_smoothing, b, missing_left)
            node.bin, node.missing_left = 0, node.left_bins[missing_bin]
        else:
            node.threshold = thresholds[b] if b < len(thresholds) else np.inf
        left = TreeNode(node.start, node.start + n_left, left_wz, left_w, node.depth + 1,
                        l2_regularization)
        right = TreeNode(node.start + n_left, node.stop, node.sum_wz - left_wz,
                         node.sum_w - left_w, node.depth + 1, l2_regularization)
        if monotonic_cst is not None:
            bound_children(node, left, right, monotonic_cst[feature], l2_regularization)
        node.left, node.right = len(nodes), len(nodes) + 1
        nodes += [left, right]
        n_leaves += 1
        # every row into its child: the children that may split need their rows, and
        # the leaves' rows give the training predictions without walking the tree
        n_left = partition(rows, node.start, node.stop, bins[feature], b, missing_left,
                           missing_bin, buffer, node.left_bins)
        assert n_left == left.n
        children = [child for child in (left, right) if may_split(child)]
        if children:
            # the subtraction trick: build the smaller child, the larger is parent − smaller
            small, large = (left, right) if left.n <= right.n else (right, left)
            small.hist = build_histogram(bins, rows[small.start:small.stop], wz, w,
                                         n_bins_total)
            large.hist = subtract(node.hist, small.hist)
            frontier += [child for child in children if find_split(child)]
            for child in (left, right):
                if child.split is None:
                    child.hist = None
        node.hist = None
    for node in frontier:
        node.hist = None
    return nodes, rows
