r"""Categorical splits: categories sorted by ``G_c/H_c``, the left set a bitset (chapter 8).

A categorical feature with ``q`` categories can send any subset of them left:
``2^(q−1) − 1`` binary partitions. For the second-order gain with any
``λ ≥ 0`` (at ``λ = 0`` it is weighted least squares: Fisher, "On grouping
for maximum homogeneity", 1958; Breiman, Friedman, Olshen and Stone prove the
two-class counterpart, *Classification and Regression Trees*, 1984, Theorem 4.5)
the best one never has to be searched for: order the categories by ``G_c/H_c`` (their mean
``Σ w z / Σ w = −G_c/H_c`` reversed; ``λ`` does not enter the order) and the
best partition puts a prefix of that order on one side (chapter 8 proves
it). Two provisos: when no partition has a positive gain the best one need
not be a prefix (but then none is made); and ``min_samples_leaf`` and
``min_child_weight`` rule some partitions out, after which the best allowed
one need not be a prefix, so that the scan is then a heuristic (as
scikit-learn's and LightGBM's are). ``q − 1`` boundaries of the sorted
order are scanned, exactly as the boundaries of an ordered feature
(:mod:`~boostlib.trees.splitting`).

How boostlib does it, as scikit-learn's HistGradientBoosting does (LightGBM's
differences are noted):

* **each category is a bin**: the categories seen in training, sorted, are
  bins ``0 … q − 1`` (:class:`CategoricalBinner`); ``q ≤ max_bins``. (LightGBM
  orders its category bins by count, most frequent first, and its
  ``BinMapper`` can leave rare categories out: past 99 % of the rows once
  ``max_bin`` bins are used, or below ``min_data_in_bin`` rows.) Codes
  must be non-negative integers (NaN for missing); a pandas column of
  labels is coded first (:func:`category_codes`).
* **NaN is a category** of the scan when the node has NaN rows: it lands on
  whichever side the best partition puts it. A category the node never saw
  in training (a category absent from the node, or one never seen at all
  and so coded as missing) goes where that node sends missing values, and a
  node without NaN rows sends them to the child with the larger ``Σ w``
  (the rule of ordered features, :mod:`~boostlib.trees.grower`). Here
  scikit-learn differs: a category seen in training but absent from the node
  goes right, and only one never seen at all is treated as missing.
* **the sort key** is ``G_c/(H_c + β)`` with ``β = categorical_smoothing``:
  ``β = 0`` is the exact rule above. With ``β > 0`` a category whose
  ``H_c`` (in rows: ``H_c · n_η/H``, ``n_η`` the node's rows) is below ``β``
  takes no part in the scan
  and stays on the right, and the means of the others shrink towards 0.
  scikit-learn fixes ``β = 10`` (its ``MIN_CAT_SUPPORT``); LightGBM calls
  it ``cat_smooth`` (default 10). Then the scan is a heuristic.
* **the scan** runs from both ends of the sorted order up to its middle
  (scikit-learn's order of candidates, so ties and the rare categories
  resolve as they do there); with every category in the scan the two halves
  cover all ``q − 1`` boundaries.
* **the split** is stored as the set of bins going left (NaN's bin included
  when NaN goes left: by the scan when the node has NaN rows, otherwise when
  the node sends missing values left), packed into a bitset of 256 bits (:func:`to_bitset`),
  and a row goes left when its bin is in the set.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from scipy import sparse
from sklearn.utils.validation import _check_categorical_features

from .binning import Binner
from .monotone import bounded_gain
from .splitting import gain, valid_children
from .threads import PRANGE_ONLY

__all__ = ["BITSET_WORDS", "CategoricalBinner", "best_categorical_split", "better_split",
           "categorical_mask", "categories_to_bins", "category_codes", "category_labels",
           "find_categories", "in_bitset", "left_bins", "numeric_n_bins", "sorted_categories",
           "to_bitset"]

BITSET_WORDS = 8  # 8 × 32 bits: every bin of a uint8 feature, the NaN bin included


def categorical_mask(X, categorical_features):
    """``categorical_features`` as a boolean mask over the columns of ``X``, or None for none.

    Indices, a boolean mask, feature names (``X`` a DataFrame) or
    ``"from_dtype"`` (the DataFrame's ``category`` columns), read by
    scikit-learn's own rule (its HistGradientBoosting's). ``"from_dtype"``
    on an array is refused here (scikit-learn reads it as "none"): an array
    has no dtypes per column, and a request for categorical features that
    silently finds none would fit a different model than the one asked for.
    """
    if categorical_features is None:
        return None
    is_frame = hasattr(X, "columns") and hasattr(X, "dtypes")
    if isinstance(categorical_features, str):
        if categorical_features != "from_dtype":
            raise ValueError("categorical_features must be None, 'from_dtype', or an array "
                             f"of indices, booleans or names, got {categorical_features!r}")
        if not is_frame:
            raise ValueError(
                "categorical_features='from_dtype' reads the dtypes of a pandas DataFrame, "
                f"but X is a {type(X).__name__}: pass the categorical columns' indices or a "
                "boolean mask, or X as a DataFrame with category columns (BoostingRegressor "
                "and BoostingClassifier hand a DataFrame to their learners as it is)")
    elif not is_frame and np.asarray(categorical_features).dtype.kind in "UO":
        raise ValueError(
            "categorical_features names columns, but X has no column names (it is a "
            f"{type(X).__name__}): pass indices or a boolean mask, or X as a DataFrame "
            "(BoostingRegressor and BoostingClassifier hand a DataFrame to their learners "
            "as it is)")
    if not hasattr(X, "shape"):
        X = np.asarray(X)
    mask = _check_categorical_features(X, categorical_features)
    return None if mask is None else np.asarray(mask, dtype=bool)


def category_labels(X, mask):
    """Per categorical DataFrame column whose values are labels (not numbers): its labels.

    A ``category`` column's labels are its dtype's categories, in their order;
    any other non-numeric column's are its distinct values, sorted. Numeric
    columns are codes already and get none. Returns ``{column: labels}``.
    """
    import pandas as pd

    labels = {}
    if mask is None or not hasattr(X, "columns"):
        return labels
    for j in np.flatnonzero(mask):
        column = X.iloc[:, j]
        if isinstance(column.dtype, pd.CategoricalDtype):
            labels[int(j)] = pd.Index(column.dtype.categories)
        elif not pd.api.types.is_numeric_dtype(column.dtype):
            labels[int(j)] = pd.Index(np.sort(column.dropna().unique()))
    return labels


def category_codes(X, labels):
    """``X`` with every labelled column replaced by its codes: the label's position, as
    a float; NaN for a missing value and for a label not among ``labels``."""
    if not labels or not hasattr(X, "columns"):
        return X
    X = X.copy()
    for j, column_labels in labels.items():
        codes = column_labels.get_indexer(X.iloc[:, j]).astype(np.float64)
        codes[codes < 0] = np.nan   # missing, or unseen in training: the missing-value rule
        X.isetitem(j, codes)
    return X


def _check_codes(column, feature):
    """Refuse values that cannot be category codes: negative or non-integer (NaN passes)."""
    values = column[~np.isnan(column)]
    bad = values[(values < 0) | (values != np.floor(values))]
    if len(bad):
        raise ValueError(
            f"categorical feature {feature} holds {float(bad[0])!r}: categories must be coded as "
            "non-negative integers (NaN for missing), or given as labels in a pandas "
            "DataFrame column")


def find_categories(column, max_bins, feature):
    """The distinct categories of one column (NaN left out), sorted: bins ``0 … q − 1``.

    ``ValueError`` for codes that are negative or not integers, and for more
    than ``max_bins`` categories.
    """
    _check_codes(column, feature)
    categories = np.unique(column[~np.isnan(column)])
    if len(categories) > max_bins:
        raise ValueError(
            f"categorical feature {feature} has {len(categories)} categories, more than "
            f"max_bins={max_bins}: merge rare categories, or treat the feature as numeric")
    return categories


def categories_to_bins(column, categories, missing_bin, feature):
    """Each value's bin: its position among the ``categories`` seen in training.

    NaN, and a category training never saw, go to ``missing_bin``: they follow
    the missing-value rule of every node. Negative or non-integer codes raise.
    """
    _check_codes(column, feature)
    at = np.searchsorted(categories, column)
    known = at < len(categories)
    known[known] = categories[at[known]] == column[known]
    return np.where(known, at, missing_bin).astype(np.uint8)


class CategoricalBinner(Binner):
    """A :class:`~boostlib.trees.binning.Binner` whose categorical features get a bin per category.

    ``is_categorical`` (n_features,) marks them; ``labels`` maps a DataFrame
    column of labels to its labels (:func:`category_labels`), so that
    :meth:`transform` codes a DataFrame as fitting did. After :meth:`fit`,
    ``categories_[j]`` holds feature ``j``'s (feature ℓ's) categories (None for an ordered
    feature), ``n_bins_[j]`` their number ``q``, and ``thresholds_[j]`` the
    midpoints between neighbouring categories (their order, for reading).
    """

    def __init__(self, max_bins=255, random_state=None, is_categorical=None, labels=None):
        super().__init__(max_bins, random_state)
        self.is_categorical = is_categorical
        self.labels = labels

    @property
    def is_categorical_(self):
        return np.asarray(self.is_categorical, dtype=bool)

    def fit(self, X, sample_weight=None):
        X = _as_float(category_codes(X, self.labels))
        super().fit(X, sample_weight)  # ordered features; categorical ones replaced below
        rows = X if sample_weight is None else X[np.asarray(sample_weight) > 0]
        self.categories_ = [None] * X.shape[1]
        for j in np.flatnonzero(self.is_categorical_):
            # every row, no subsample: a rare category is a category all the same
            categories = find_categories(_column(rows, j), self.max_bins, j)
            self.categories_[j] = categories
            self.thresholds_[j] = (categories[:-1] + categories[1:]) * 0.5
            self.n_bins_[j] = len(categories)
        return self

    def transform(self, X):
        X = _as_float(category_codes(X, self.labels))
        binned = super().transform(X)
        for j in np.flatnonzero(self.is_categorical_):
            binned.bins[j] = categories_to_bins(_column(X, j), self.categories_[j],
                                                self.missing_bin, j)
        return binned


def _as_float(X):
    """``X`` as float64: a sparse matrix stays sparse (its categorical columns are made
    dense one at a time, :func:`_column`)."""
    return X.astype(np.float64) if sparse.issparse(X) else np.ascontiguousarray(X, np.float64)


def _column(X, j):
    """Column ``j`` of ``X`` as a dense 1-d array (a sparse column's zeros are code 0)."""
    return X[:, [j]].toarray().ravel() if sparse.issparse(X) else X[:, j]


def numeric_n_bins(binner, n_bins):
    """``n_bins`` (the node's, column subsampling applied) with 0 for the categorical
    features: the ordered scan then skips them."""
    is_categorical = getattr(binner, "is_categorical_", None)
    if is_categorical is None:
        return n_bins
    return np.where(is_categorical, 0, n_bins)


@njit(cache=True, nogil=True)
def sorted_categories(hist_j, n_bins_j, missing_bin, total_n, total_w, smoothing):
    """The bins of the categories that take part in the scan, ordered by ``G_c/(H_c + β)``.

    A category takes part when the node has rows of it and, with ``β > 0``
    (``smoothing``), ``H_c · n_η/H ≥ β`` (scikit-learn's support rule). NaN's bin is a category
    like the others. Ties keep the order of the bins (a stable sort).
    """
    used = np.empty(n_bins_j + 1, dtype=np.intp)
    keys = np.empty(n_bins_j + 1)
    support = total_n / total_w  # H_c in rows: 1 per row when every w is 1
    n_used = 0
    for k in range(n_bins_j + 1):
        b = k if k < n_bins_j else missing_bin
        sum_wz, sum_w, n = hist_j[b, 0], hist_j[b, 1], hist_j[b, 2]
        if n == 0 or sum_w * support < smoothing:
            continue
        used[n_used] = b
        keys[n_used] = -sum_wz / (sum_w + smoothing)  # G_c/(H_c + β), as G = −Σ w z
        n_used += 1
    order = np.argsort(keys[:n_used], kind="mergesort")
    return used[:n_used][order]


@njit(cache=True, nogil=True)
def _best_split_of_categorical_feature(hist_j, n_bins_j, total_wz, total_w, total_n,
                                       missing_bin, l2_regularization, min_child_weight,
                                       min_samples_leaf, smoothing, bounds=None):
    """Feature ℓ's best partition: ``(gain, code, missing_left, Σwz_left, Σw_left, n_left)``.

    Feature ℓ is the code's ``j``. The left set is the first ``code`` sorted
    categories (``code > 0``) or the
    last ``−code`` (``code < 0``); :func:`left_bins` rebuilds it. ``gain = 0``
    and ``code = 0`` when no partition is valid. Under monotone constraints on
    other features, ``bounds = (monotonic_cst, lower, upper, parent value)``:
    the gain is taken at the values clipped to the node's interval
    (:func:`~boostlib.trees.monotone.bounded_gain`), as every split's is there.
    """
    best = (0.0, 0, False, 0.0, 0.0, 0.0)
    best_gain = 0.0
    order = sorted_categories(hist_j, n_bins_j, missing_bin, total_n, total_w, smoothing)
    n_used = len(order)
    for direction in (1, -1):
        middle = (n_used + 1) // 2 if direction == 1 else (n_used + 1) // 2 - 1
        left_wz, left_w, left_n = 0.0, 0.0, 0.0
        missing_left = False
        for i in range(middle):
            b = order[i] if direction == 1 else order[n_used - 1 - i]
            left_wz += hist_j[b, 0]
            left_w += hist_j[b, 1]
            left_n += hist_j[b, 2]
            missing_left = missing_left or b == missing_bin
            if not valid_children(left_n, left_w, total_n, total_w, min_samples_leaf,
                                  min_child_weight):
                continue
            right_w = total_w - left_w
            if bounds is None:
                candidate = gain(left_wz, left_w, total_wz - left_wz, right_w, l2_regularization)
            else:  # a categorical feature has no monotone constraint (refused): 0
                candidate = bounded_gain(left_wz, left_w, total_wz - left_wz, right_w,
                                         l2_regularization, 0, bounds[1], bounds[2], bounds[3])
            if candidate > best_gain:
                best_gain = candidate
                best = (candidate, direction * (i + 1), missing_left, left_wz, left_w, left_n)
    return best


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def best_categorical_split(hist, total_wz, total_w, total_n, n_bins, missing_bin, features,
                           l2_regularization, min_child_weight, min_samples_leaf, smoothing,
                           bounds=None):
    """The best partition over the categorical ``features``, in the layout of
    :func:`~boostlib.trees.splitting.best_split`: ``(gain, feature, code, missing_left,
    Σwz_left, Σw_left, n_left)``; ``feature = −1`` when none is valid.

    One thread per feature; the features' best partitions are then compared in
    feature order with a strict ``>``, so ties go to the lower feature on any
    number of threads.
    """
    n = len(features)
    found = np.zeros((n, 6))
    for k in prange(n):
        j = features[k]
        r = _best_split_of_categorical_feature(hist[j], n_bins[j], total_wz, total_w, total_n,
                                               missing_bin, l2_regularization,
                                               min_child_weight, min_samples_leaf, smoothing,
                                               bounds)
        found[k, 0], found[k, 1], found[k, 2] = r[0], r[1], r[2]
        found[k, 3], found[k, 4], found[k, 5] = r[3], r[4], r[5]
    best = (0.0, -1, 0, False, 0.0, 0.0, 0.0)
    for k in range(n):
        if found[k, 0] > best[0]:
            best = (found[k, 0], features[k], int(found[k, 1]), found[k, 2] != 0.0,
                    found[k, 3], found[k, 4], found[k, 5])
    return best


def better_split(found, hist, total_wz, total_w, total_n, binner, drawn, l2_regularization,
                 min_child_weight, min_samples_leaf, smoothing, bounds=None):
    """The better of the ordered features' best split ``found`` and the categorical ones'.

    ``drawn``: the node's ``n_bins`` after column subsampling (0 for a feature
    left out). Equal gains go to the lower feature, as among ordered features.
    """
    features = np.flatnonzero(binner.is_categorical_ & (np.asarray(drawn) > 0))
    categorical = best_categorical_split(hist, total_wz, total_w, total_n, binner.n_bins_,
                                         binner.missing_bin, features, l2_regularization,
                                         min_child_weight, min_samples_leaf, smoothing,
                                         bounds)
    if categorical[1] < 0:
        return found
    if found[1] < 0 or categorical[0] > found[0] or (
            categorical[0] == found[0] and categorical[1] < found[1]):
        return categorical
    return found


def left_bins(hist_j, n_bins_j, missing_bin, total_n, total_w, smoothing, code,
              missing_left):
    """The bins going left (bool, ``missing_bin + 1``) for the partition ``code``.

    The sorted categories' prefix (``code > 0``) or suffix (``code < 0``) of
    ``_best_split_of_categorical_feature``; the other categories with rows
    in the node go right; categories without rows in the node, and NaN when
    the node has none, go where ``missing_left`` says.
    """
    order = sorted_categories(hist_j, n_bins_j, missing_bin, total_n, total_w, smoothing)
    table = np.full(missing_bin + 1, bool(missing_left))
    table[hist_j[:, 2] > 0] = False
    table[order[:code] if code > 0 else order[len(order) + code:]] = True
    return table


def to_bitset(table):
    """A bool table of at most 256 bins as 8 uint32 words: bin ``b`` is bit ``b % 32`` of
    word ``b // 32``."""
    bits = np.zeros(BITSET_WORDS * 32, dtype=bool)
    bits[:len(table)] = table
    return np.packbits(bits.reshape(BITSET_WORDS, 32), axis=1,
                       bitorder="little").view("<u4").reshape(BITSET_WORDS).astype(np.uint32)


@njit(cache=True, nogil=True, inline="always")
def in_bitset(bitset, b):
    """Whether bin ``b`` is in the ``bitset`` (8 uint32 words)."""
    return (bitset[b >> 5] >> (b & 31)) & 1 == 1
