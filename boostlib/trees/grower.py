r"""Growing a tree from histograms: depth-wise or best-first (chapter 8).

The rows of the data sit in two index arrays, and every node owns a slice
``[start:stop]`` of one: the root of the first, its children of the second,
their children of the first again, and so on. Splitting a node writes its
slice into the other array, the rows going left first (:func:`partition`),
so its children own the two parts. A node that may
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
from .threads import PRANGE_ONLY

__all__ = ["ROW_DTYPE", "STATS_DTYPE", "Scratch", "TreeNode", "grow", "partition",
           "weighted_targets"]

ROW_DTYPE = np.uint32  # row indices: half the bytes of int64 (np.intp beyond 2³² − 1 rows,
# though a histogram counts a bin's rows in uint32: no bin may hold 2³² rows or more)
STATS_DTYPE = np.float64  # w z and w as the histograms read them (float32: 3–4 % faster, in
# one-thread fits at 1M and 10M rows, but its rounding would move every gain, Σ w and leaf
# value off their float64 sums, which the equalities with scikit-learn rely on)


# Rows per half: a node of fewer than twice this many rows is partitioned by one thread (a
# second thread would cost more than it saves). Only the time depends on it: the rows land
# in the same places.
PARALLEL_PARTITION_ROWS = 1 << 15


class Scratch:
    """Working arrays that one tree's growth leaves for the next tree's (the two arrays
    of row indices, the gathered ``w z`` and ``w``, and :class:`HistTreeRegressor`'s
    ``w z``).

    At 10M rows each is tens of MB, and the first write to fresh memory costs a page
    fault per page: on the machine of ``benchmarks/``, 20–30 ms for 80 MB that a compiled
    kernel makes, longer than a pass that reads and writes it (numpy asks the system for
    huge pages for large arrays: about 8 ms). The boosting loop fits every stage's tree to the same
    binned ``X``, so :class:`~boostlib.trees.HistTreeRegressor` keeps one ``Scratch`` per
    binned ``X`` and hands it to each stage's :func:`grow` in turn (never to two at once).
    """

    def __init__(self):
        self._arrays = {}

    def array(self, name, n, dtype):
        """The first ``n`` entries of the array ``name`` (made, or made larger, if needed)."""
        a = self._arrays.get(name)
        if a is None or a.dtype != dtype or len(a) < n:
            a = self._arrays[name] = np.empty(n, dtype=dtype)
        return a[:n]


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def weighted_targets(z, w, wz):
    """``wz = w z``, row by row, in one pass that also checks every row: returns how many
    rows have a ``z`` or ``w`` that is not finite or a negative ``w``, and how many have
    ``w > 0`` (the rows that take part)."""
    n_bad = 0
    n_taking_part = 0
    for i in prange(len(z)):
        wz[i] = w[i] * z[i]
        n_bad += not (np.isfinite(z[i]) and np.isfinite(w[i]) and w[i] >= 0.0)
        n_taking_part += w[i] > 0.0
    return n_bad, n_taking_part


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def _count_up(rows):
    """``rows[k] = k``: ``np.arange`` in memory that is already there."""
    for k in prange(len(rows)):
        rows[k] = k


@njit(cache=True, nogil=True)
def _forward(source, target, lo, hi, column, goes_left, left, right, limit):
    """The rows ``source[lo:hi]``, in order: those going left to ``target[left]``,
    ``left + 1``, …, the others to ``target[right]``, ``right + 1``, … but never at
    ``limit`` or past it (the left side stays below ``limit`` when it starts at most
    ``limit − (hi − lo)``, as in every call). Returns how many went left (−1 if a row
    found no place)."""
    first = left
    k = lo
    while k < hi and right < limit:
        # a row moves `right` on by one at most: none of the next limit − right rows can
        # write past the limit, even if the count that placed `right` were wrong
        end = min(hi, k + limit - right)
        for i in range(k, end):
            row = source[i]
            go_left = goes_left[column[row]]
            # one write, to its side's next place, chosen without a branch (when rows go
            # either way about as often, a branch would be mispredicted half the time; the
            # compiler makes it a conditional move, cmov)
            target[left if go_left else right] = row
            left += go_left
            right += 1 - go_left
        k = end
    for i in range(k, hi):  # the right side is full: the rows left must all go left
        row = source[i]
        if not goes_left[column[row]]:
            return -1
        target[left] = row
        left += 1
    return left - first


@njit(cache=True, nogil=True)
def _backward(source, target, lo, hi, column, goes_left, left, right, limit):
    """:func:`_forward` from the end: the rows ``source[lo:hi]`` last to first, those
    going left to ``target[left]``, ``left − 1``, … but never below ``limit``, the others
    to ``target[right]``, ``right − 1``, … (which stays at or above ``limit`` when it
    starts at least ``limit + (hi − lo) − 1``, as in every call). Each side keeps its
    order."""
    last = left
    k = hi
    while k > lo and left >= limit:
        end = max(lo, k - (left - limit + 1))  # none of these rows can write below limit
        for i in range(k - 1, end - 1, -1):
            row = source[i]
            go_left = goes_left[column[row]]
            target[left if go_left else right] = row
            left -= go_left
            right -= 1 - go_left
        k = end
    for i in range(k - 1, lo - 1, -1):  # the left side is full
        row = source[i]
        if goes_left[column[row]]:
            return -1
        target[right] = row
        right -= 1
    return last - left


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def _partition_in_halves(source, target, start, stop, column, goes_left, n_left):
    """Two threads, one per half of the slice: the first half from the front (its rows to
    the front of each side), the second from the back (to the back of each side). Every
    row lands where :func:`_forward` alone puts it, and each is read once."""
    middle = start + (stop - start) // 2
    counts = np.zeros(2, dtype=np.intp)
    for half in prange(2):
        if half == 0:
            counts[0] = _forward(source, target, start, middle, column, goes_left, start,
                                 start + n_left, stop)
        else:
            counts[1] = _backward(source, target, middle, stop, column, goes_left,
                                  start + n_left - 1, stop - 1, start)
    if counts[0] < 0 or counts[1] < 0:
        return -1
    return counts[0] + counts[1]


def partition(source, target, start, stop, column, bin_threshold, missing_left, missing_bin,
              n_left, left_bins=None):
    """Write ``source[start:stop]`` to ``target[start:stop]``, the rows going left first.

    A row goes left when its bin in ``column`` is ``≤ bin_threshold``, or, at
    ``missing_bin``, when ``missing_left``; for a categorical split, when
    ``left_bins`` (bool per bin, :mod:`~boostlib.trees.categorical`) holds its
    bin. Either rule is read as a table, one entry per bin. Stable: each side
    keeps its order. ``n_left``, the number of rows going left (the split's
    count, from the histogram), says where the right side begins, so one pass
    puts every row in its place; a count that is not the number of rows going
    left raises a ``RuntimeError`` (and nothing outside the slice is written).
    On two threads or more, a slice of at least ``2 × PARALLEL_PARTITION_ROWS``
    rows is shared by two threads (:func:`_partition_in_halves`): the same rows
    in the same places.
    Returns ``n_left``.
    """
    if left_bins is None:
        left_bins = np.arange(missing_bin + 1) <= bin_threshold
        left_bins[missing_bin] = missing_left
    if not 0 <= n_left <= stop - start:
        raise RuntimeError(f"the split sends {n_left} rows left, of {stop - start}")
    if get_num_threads() >= 2 and stop - start >= 2 * PARALLEL_PARTITION_ROWS:
        counted = _partition_in_halves(source, target, start, stop, column, left_bins, n_left)
    else:
        counted = _forward(source, target, start, stop, column, left_bins, start,
                           start + n_left, stop)
    if counted != n_left:
        raise RuntimeError(f"the split sends {n_left} rows left, but another number go left")
    return n_left


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
         max_features=1.0, rng=None, categorical_smoothing=0.0, scratch=None,
         every_row=None):
    """Grow one tree on ``binned`` (:class:`BinnedX`) for ``Σ_i w_i (z_i − u_i)² + λ Σ_j γ_j²``.

    ``wz`` and ``w`` are ``w z`` and ``w`` per sample; rows with ``w = 0``
    (outside a subsample) take no part. Returns the list of :class:`TreeNode`,
    parents before children, and ``rows``: two arrays of the rows taking part,
    a leaf's at ``rows[leaf.depth % 2][leaf.start:leaf.stop]`` (each partition
    writes a node's rows from its array into the other, its children's; an inner
    node's slice is overwritten as its descendants split).

    ``monotonic_cst`` (int8 per feature, or None): leaf values bounded as
    :mod:`~boostlib.trees.monotone` derives. ``max_features < 1``: each node
    looks for its split among features drawn from ``rng``
    (:mod:`~boostlib.trees.column_subsampling`). A binner with categorical
    features gets them their own scan (:mod:`~boostlib.trees.categorical`),
    categories sorted by ``G_c/(H_c + β)``, ``β = categorical_smoothing``.
    ``scratch``: the :class:`Scratch` to take working arrays from (``rows`` are
    two of them, so they are the caller's only until the next grow with it).
    ``every_row``: whether every ``w > 0``, if the caller knows (None: found here).
    """
    bins, binner = binned.bins, binned.binner
    missing_bin = binner.missing_bin
    n_bins_total = missing_bin + 1
    has_categorical = hasattr(binner, "is_categorical_")
    wz = np.asarray(wz, dtype=STATS_DTYPE)
    w = np.asarray(w, dtype=STATS_DTYPE)
    scratch = Scratch() if scratch is None else scratch
    row_dtype = ROW_DTYPE if len(w) <= np.iinfo(ROW_DTYPE).max else np.intp
    if every_row is None:
        every_row = len(w) > 0 and w.min() > 0
    if every_row:  # no int64 indices to convert
        root_rows = scratch.array("rows", len(w), row_dtype)
        _count_up(root_rows)
    else:
        root_rows = np.flatnonzero(w > 0).astype(row_dtype)
    n = len(root_rows)
    if n == len(w):
        root_hist = build_root_histogram(bins, wz, w, n_bins_total)
    else:
        root_hist = build_histogram(bins, root_rows, wz, w, n_bins_total)
    sum_wz, sum_w, _ = root_hist[0].sum(axis=0)
    root = TreeNode(0, n, sum_wz, sum_w, 0, l2_regularization)
    root.hist = root_hist
    nodes = [root]
    rows = (root_rows, scratch.array("rows at odd depths", n, root_rows.dtype))
    # the smaller child has at most half of its parent's rows
    gathered = (scratch.array("gathered wz", n // 2, wz.dtype),
                scratch.array("gathered w", n // 2, w.dtype))

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
        partition(rows[node.depth % 2], rows[left.depth % 2], node.start, node.stop,
                  bins[feature], b, missing_left, missing_bin, left.n, node.left_bins)
        children = [child for child in (left, right) if may_split(child)]
        if children:
            # the subtraction trick: build the smaller child, the larger is parent − smaller
            small, large = (left, right) if left.n <= right.n else (right, left)
            small.hist = build_histogram(bins, rows[small.depth % 2][small.start:small.stop],
                                         wz, w, n_bins_total, gathered)
            large.hist = subtract(node.hist, small.hist)
            frontier += [child for child in children if find_split(child)]
            for child in (left, right):
                if child.split is None:
                    child.hist = None
        node.hist = None
    for node in frontier:
        node.hist = None
    return nodes, rows
