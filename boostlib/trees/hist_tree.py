r"""``HistTreeRegressor``: XGBoost's second-order tree as a scikit-learn regressor (chapter 8).

Fitted to a target ``z`` with sample weights ``w`` it grows, greedily, split by
split, a tree on binned features that lowers the penalised weighted least squares
``Σ_i w_i (z_i − f(x_i))² + λ Σ_j γ_j²`` (``γ_j`` the value of leaf ``j``), and
gives every leaf the value that minimises it. Inside the boosting loop with
``direction="newton"`` (``z = −g/h``, ``w = h``) that *is* XGBoost's tree: ``Σ w z = −G`` and
``Σ w = H``, so the leaf values are ``−G/(H + λ)`` and the splits maximise
XGBoost's gain (:mod:`~boostlib.trees.splitting`).

It reads ``X`` binned (:mod:`~boostlib.trees.binning`): given a float array it
bins it itself; given a :class:`~boostlib.trees.binning.BinnedX` (what the
boosting loop passes, binned once per boosting fit) it uses those bins. A
sparse ``X`` (CSR or CSC) is binned without a dense copy
(:mod:`~boostlib.trees.sparse`), and predicted through its bins.
"""

from __future__ import annotations

import contextlib
import numbers
import weakref

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import (
    _assert_all_finite,
    _check_sample_weight,
    _num_samples,
    check_array,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from .binning import BinnedX, Binner
from .categorical import CategoricalBinner, categorical_mask, category_codes, category_labels
from .grower import Scratch, grow, weighted_targets
from .monotone import check_monotonic_cst
from .predictor import Tree, values_of_rows
from .threads import effective_n_threads, using_threads

__all__ = ["HistTreeRegressor"]


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_auto(value):
    return isinstance(value, str) and value == "auto"


class HistTreeRegressor(RegressorMixin, BaseEstimator):
    """A regression tree on binned features with an L2 penalty on its leaf values.

    Parameters
    ----------
    max_depth : int, None or "auto", default="auto"
        The deepest a leaf may be; None for no limit. ``"auto"``: 3 when the
        tree grows depth-wise, no limit when ``max_leaf_nodes`` is set, so that
        ``max_leaf_nodes`` alone sets the size of a best-first tree, as in
        scikit-learn's trees (``HistTreeRegressor(max_leaf_nodes=31)`` grows 31
        leaves). Both set: both limits hold, and a budget above ``2**max_depth``
        leaves cannot be reached.
    max_leaf_nodes : int or None, default=None
        None: grow depth-wise (XGBoost). An integer ≥ 2: grow best-first, the
        leaf with the largest gain next, up to this many leaves (LightGBM).
    max_bins : int, default=255
        Bins per feature, 2 … 255, plus one for missing values.
    min_samples_leaf : int, default=1
        The fewest rows (with positive weight) a leaf may hold.
    min_child_weight : float, default=1e-3
        The smallest ``Σ w`` (``= H``) a child may have: XGBoost's ``min_child_weight``.
    l2_regularization : float, default=0.0
        ``λ``: the penalty ``λ γ_j²`` on every leaf value ``γ_j``.
    min_split_gain : float, default=0.0
        The smallest gain ``Δ`` a split needs (XGBoost's ``gamma``, compared
        with the un-halved gain as XGBoost does); refused up front, as
        XGBoost's ``hist`` method does.
    monotonic_cst : array-like of int of shape (n_features,) or None, default=None
        Per feature: +1 the tree's output never falls as the feature grows,
        −1 it never rises, 0 no constraint (scikit-learn's name; XGBoost's and
        LightGBM's ``monotone_constraints``). Leaf values are bounded by
        mid-values carried down the tree (:mod:`~boostlib.trees.monotone`).
        In a boosting estimator the step must scale each tree by one number
        ``ρ ≥ 0``: ``"constant"``, ``"newton"`` or ``"line_search"``, whose ρ
        the boosting estimators keep ≥ 0 (a ρ < 0 becomes 0, the stage then
        leaving ``F`` as it is); ``"leaf_newton"``, which rewrites every leaf
        without the bounds, is refused at ``fit`` (as ``step`` and, with
        ``init="learner"``, as ``init_step``).
    max_features : float in (0, 1], default=1.0
        The share of the features each node draws to look for its split
        among, ``max(1, ⌈max_features · d⌉)`` of them (per node, as
        scikit-learn's HistGradientBoosting; XGBoost's ``colsample_bynode``):
        :mod:`~boostlib.trees.column_subsampling`.
    random_state : int, RandomState or None, default=None
        Draws the rows that place the quantile thresholds (over 200 000 rows):
        the same int, the same bins. Inside a boosting estimator the
        estimator's ``random_state`` decides instead
        (:func:`~boostlib.trees.binning.binning_seed`). With
        ``max_features < 1`` it also draws each node's features; inside a
        boosting estimator these come from the estimator's shared random state.
    n_jobs : int or None, default=None
        Threads for ``fit``, ``predict`` and ``bin``: None every core (as
        scikit-learn's HistGradientBoosting), a positive integer that many, −1
        every core and −2 all but one (:mod:`~boostlib.trees.threads`). The
        fitted tree is the same, to the last bit, on any number of threads.
    categorical_features : array-like, "from_dtype" or None, default=None
        The categorical features (:mod:`~boostlib.trees.categorical`), as
        scikit-learn's HistGradientBoosting reads them: indices, a boolean
        mask, column names of a DataFrame, or ``"from_dtype"`` for the
        DataFrame's ``category`` columns; None for none. Each category is a
        bin (at most ``max_bins`` of them), coded as a non-negative integer
        or given as labels in a DataFrame column; negative or non-integer
        codes raise. A split sends any set of categories left, the best one
        found by scanning the categories sorted by ``G_c/H_c``. NaN, and a
        category this node saw no rows of (one never seen in training
        included), go where the node sends missing values. Inside
        BoostingRegressor and BoostingClassifier, a DataFrame reaches the
        learner as it is; an array does, too, so give it indices or a mask
        (an array has no dtypes or names). A categorical feature takes no
        monotone constraint (its ``monotonic_cst`` must be 0).
    categorical_smoothing : float, default=0.0
        ``β``: categories are sorted by ``G_c/(H_c + β)``, and with ``β > 0``
        a category with ``H_c`` below ``β`` (in rows) takes no part in the
        scan and goes right. 0 finds the best partition for every ``λ ≥ 0``
        when ``min_samples_leaf`` and ``min_child_weight`` rule none out
        (with them, the best allowed partition may be missed);
        scikit-learn's HistGradientBoosting uses 10, as LightGBM's
        ``cat_smooth`` does by default.

    Attributes
    ----------
    is_categorical_ : ndarray of bool of shape (n_features,) or None
        Which features are categorical; None when none is.
    tree_ : Tree
        The nodes as flat arrays (:class:`~boostlib.trees.predictor.Tree`).
    binner_ : Binner
        The bin thresholds of every feature.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.
    """

    def __init__(self, max_depth="auto", max_leaf_nodes=None, max_bins=255, min_samples_leaf=1,
                 min_child_weight=1e-3, l2_regularization=0.0, min_split_gain=0.0,
                 monotonic_cst=None, max_features=1.0, random_state=None, n_jobs=None,
                 categorical_features=None, categorical_smoothing=0.0):
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.min_samples_leaf = min_samples_leaf
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.min_split_gain = min_split_gain
        self.monotonic_cst = monotonic_cst
        self.max_features = max_features
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features
        self.categorical_smoothing = categorical_smoothing

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags

    def _check_params(self):
        """``ValueError`` naming the parameter at fault; nothing is clipped silently."""
        if not _is_auto(self.max_depth) and self.max_depth is not None and (
            not _is_int(self.max_depth) or self.max_depth < 1
        ):
            raise ValueError(
                f"max_depth must be None, 'auto' or an integer >= 1, got {self.max_depth!r}"
            )
        if self.max_leaf_nodes is not None and (
            not _is_int(self.max_leaf_nodes) or self.max_leaf_nodes < 2
        ):
            raise ValueError(
                f"max_leaf_nodes must be None or an integer >= 2, got {self.max_leaf_nodes!r}"
            )
        if not _is_int(self.max_bins) or not 2 <= self.max_bins <= 255:
            raise ValueError(f"max_bins must be an integer in 2..255, got {self.max_bins!r}")
        if not _is_int(self.min_samples_leaf) or self.min_samples_leaf < 1:
            raise ValueError(
                f"min_samples_leaf must be an integer >= 1, got {self.min_samples_leaf!r}"
            )
        for name in ("min_child_weight", "l2_regularization", "min_split_gain",
                     "categorical_smoothing"):
            value = getattr(self, name)
            if not _is_real(value) or not 0 <= value < np.inf:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if not _is_real(self.max_features) or not 0 < self.max_features <= 1:
            raise ValueError(f"max_features must be a number in (0, 1], got {self.max_features!r}")
        effective_n_threads(self.n_jobs)  # a ValueError naming n_jobs

    def _max_depth(self):
        """``max_depth`` with ``"auto"`` resolved: 3 depth-wise, no limit best-first."""
        if _is_auto(self.max_depth):
            return 3 if self.max_leaf_nodes is None else None
        return self.max_depth

    def bin(self, X, sample_weight=None, seed=None):
        """``X`` binned for this tree's settings: a :class:`BinnedX` its copies can be fitted to.

        The boosting loop calls this once per fit, with the ``seed`` of the
        thresholds' subsample (:func:`~boostlib.trees.binning.binning_seed`);
        every stage's tree then reuses the bins. ``seed=None``: the subsample
        is drawn from this tree's ``random_state``.
        """
        self._check_params()
        binner = self._binner(X, self.random_state if seed is None else seed)
        X = check_array(category_codes(X, getattr(binner, "labels", None)),
                        accept_sparse=("csr", "csc"), dtype=np.float64,
                        ensure_all_finite="allow-nan", input_name="X")
        with using_threads(self.n_jobs):
            return binner.fit(X, sample_weight).transform(X)

    def _binner(self, X, random_state):
        """A :class:`Binner`, or a :class:`CategoricalBinner` when ``X`` has categorical
        features (which it reads from ``X`` itself: its columns, names and dtypes)."""
        mask = categorical_mask(X, self.categorical_features)
        if mask is None:
            return Binner(self.max_bins, random_state)
        return CategoricalBinner(self.max_bins, random_state, mask, category_labels(X, mask))

    def fit(self, X, y, sample_weight=None):
        """Fit to ``X`` (N, d) or a :class:`BinnedX`, targets ``y`` (N,), weights ``w`` (N,)."""
        with using_threads(self.n_jobs), _scratch_of(X) as scratch:
            self._grow(X, y, sample_weight, scratch)
        return self

    def fit_predict(self, X, y, sample_weight=None, out=None):
        """Fit, and return ``f(x)`` on the training rows, read off the fit.

        Growing partitions the rows into their leaves, so each row's value is
        known without walking the tree; the boosting loop calls this every stage.
        When some row has zero weight (it takes no part in the partition), every
        row is walked down the tree instead. ``out``: a writeable C-contiguous float64
        array of shape ``(n_samples,)`` to write ``f(x)`` into and return (the boosting
        loop's, reused stage after stage: a fresh array of ten million rows costs the
        operating system's time to zero and map its pages, on top of the pass that fills
        it, ``_StageMemory`` in :mod:`boostlib.boosting`); None: a fresh one. Any other
        ``out`` raises a ``ValueError`` before the fit. The tree keeps none of ``y``,
        ``sample_weight`` and ``out``.
        """
        if out is not None:  # checked before the fit: a bad out costs no fit
            n_rows = _num_samples(X)  # len() of a sparse matrix is an error
            if not (isinstance(out, np.ndarray) and out.dtype == np.float64
                    and out.shape == (n_rows,) and out.flags.c_contiguous
                    and out.flags.writeable):
                raise ValueError(f"out must be a writeable C-contiguous float64 array of "
                                 f"shape ({n_rows},), one entry per row of X; got "
                                 f"{_described(out)}")
        with using_threads(self.n_jobs), _scratch_of(X) as scratch:
            nodes, rows = self._grow(X, y, sample_weight, scratch)
            n_samples = _num_samples(X)
            u = np.empty(n_samples) if out is None else out
            if len(rows[0]) != n_samples:
                u[:] = self.predict(X)
                return u
            leaves = [k for k, node in enumerate(nodes) if node.left == -1]
            values_of_rows(*rows, np.array([nodes[k].start for k in leaves]),
                           np.array([nodes[k].stop for k in leaves]),
                           np.array([nodes[k].depth % 2 == 1 for k in leaves]),
                           self.tree_.value[leaves, 0, 0], u)
        return u

    def _grow(self, X, y, sample_weight, scratch):
        """Validate, bin if needed, grow; set ``tree_`` and return the grower's nodes and rows."""
        # forget any earlier fit: a fit that fails leaves nothing that predicts
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)
        self._check_params()
        shape = np.asarray(y).shape
        if len(shape) == 2 and shape[1] != 1:
            raise ValueError(
                f"HistTreeRegressor fits one output, but y has shape {shape}: boost a "
                "vector loss with a multi-output learner (such as DecisionTreeRegressor) or "
                "one learner per class (BoostingClassifier's multiclass='per_class')"
            )
        if isinstance(X, BinnedX):
            if X.binner.max_bins != self.max_bins:
                raise ValueError(
                    f"X was binned with max_bins={X.binner.max_bins}, "
                    f"but this tree has max_bins={self.max_bins}"
                )
            binned = X
            # NaN and inf in y: refused below, where y is weighted
            y = column_or_1d(check_array(y, ensure_2d=False, dtype=np.float64, input_name="y",
                                         ensure_all_finite=False), warn=True)
            if len(y) != len(binned):
                _assert_all_finite(y, input_name="y")  # the error scikit-learn's check gives first
                raise ValueError(f"X has {len(binned)} samples but y has {len(y)}")
            self.n_features_in_ = binned.shape[1]
        else:
            binner = self._binner(X, self.random_state)
            X, y = validate_data(self, category_codes(X, getattr(binner, "labels", None)), y,
                                 accept_sparse=("csr", "csc"), y_numeric=True,
                                 dtype=np.float64, ensure_all_finite="allow-nan")
            binned = None
        wz = scratch.array("wz", len(y), np.float64)
        every_row = None  # whether every row takes part (w > 0), once the checks pass
        if binned is X and _is_row_vector(sample_weight, len(y)):
            # the boosting loop's case: w z and every check in one pass over the rows
            n_bad, n_taking_part = weighted_targets(y, sample_weight, wz)
            if n_bad == 0 and n_taking_part > 0:  # (no weight at all: refused below)
                every_row = n_taking_part == len(y)
        if every_row is None:  # scikit-learn's checks, and their errors
            if binned is X:
                _assert_all_finite(y, input_name="y")
            # refuses NaN, inf and negative weights, naming sample_weight
            sample_weight = _check_sample_weight(sample_weight, np.empty((len(y), 0)),
                                                 dtype=np.float64, ensure_non_negative=True)
            np.multiply(sample_weight, y, out=wz)
        monotonic_cst = check_monotonic_cst(self.monotonic_cst, self.n_features_in_)
        if binned is None:
            binned = binner.fit(X, sample_weight).transform(X)
        is_categorical = getattr(binned.binner, "is_categorical_", None)
        if monotonic_cst is not None and is_categorical is not None:
            constrained = np.flatnonzero(is_categorical & (monotonic_cst != 0))
            if len(constrained):
                raise ValueError(
                    f"monotonic_cst constrains feature {constrained[0]}, which is categorical: "
                    "categories have no order to be monotone in (give it 0)")
        # each node's features are drawn from random_state (the boosting loop's shared one)
        rng = check_random_state(self.random_state) if self.max_features < 1 else None
        nodes, rows = grow(binned, wz, sample_weight, max_depth=self._max_depth(),
                           max_leaf_nodes=self.max_leaf_nodes,
                           min_samples_leaf=self.min_samples_leaf,
                           min_child_weight=self.min_child_weight,
                           l2_regularization=self.l2_regularization,
                           min_split_gain=self.min_split_gain, monotonic_cst=monotonic_cst,
                           max_features=self.max_features, rng=rng,
                           categorical_smoothing=self.categorical_smoothing,
                           scratch=scratch, every_row=every_row)
        self.binner_ = binned.binner
        self.is_categorical_ = getattr(binned.binner, "is_categorical_", None)
        self.tree_ = Tree(nodes, binned.binner.missing_bin)
        return nodes, rows

    def _validated_X(self, X):
        check_is_fitted(self, "tree_")
        if isinstance(X, BinnedX):
            if X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input"
                )
            return X
        X = validate_data(self, category_codes(X, getattr(self.binner_, "labels", None)),
                          accept_sparse=("csr", "csc"), dtype=np.float64,
                          ensure_all_finite="allow-nan", reset=False)
        # a sparse X, and a tree with categorical splits, go down the tree by their bins:
        # the same rule as the values (categories binned as training binned them)
        if sparse.issparse(X) or self.is_categorical_ is not None:
            return self.binner_.transform(X)
        return X

    def apply(self, X):
        """The index of the leaf each row of ``X`` (or a :class:`BinnedX`) lands in."""
        X = self._validated_X(X)
        with using_threads(self.n_jobs):
            return self.tree_.apply(X)

    def predict(self, X):
        """``f(x)``: the value of the leaf each row lands in."""
        X = self._validated_X(X)
        with using_threads(self.n_jobs):
            return self.tree_.predict(X)

    def get_n_leaves(self):
        """The number of leaves of the fitted tree (as scikit-learn's trees say it)."""
        check_is_fitted(self)
        return self.tree_.n_leaves

    def get_depth(self):
        """The depth of the fitted tree, the root at depth 0 (as scikit-learn's trees say it)."""
        check_is_fitted(self)
        return self.tree_.max_depth


def _described(array):
    """``array``'s type, and for a numpy array its dtype, shape and flags that matter."""
    if not isinstance(array, np.ndarray):
        return type(array).__name__
    flags = [name for name, on in (("not C-contiguous", not array.flags.c_contiguous),
                                   ("read-only", not array.flags.writeable)) if on]
    return f"{array.dtype} array of shape {array.shape}" + "".join(f", {f}" for f in flags)


def _is_row_vector(sample_weight, n):
    """Whether ``sample_weight`` is already what scikit-learn's check would make of it:
    float64, one dimension, ``n`` values, contiguous."""
    return (isinstance(sample_weight, np.ndarray) and sample_weight.dtype == np.float64
            and sample_weight.shape == (n,) and sample_weight.flags.c_contiguous)


# binned X -> the Scratch its trees' growth reuses, while no tree is growing on it
_SCRATCHES = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def _scratch_of(X):
    """The :class:`~boostlib.trees.grower.Scratch` of a binned ``X``, lent for one fit.

    Every stage of a boosting fit fits its tree to the same :class:`BinnedX`, so
    the working arrays of one tree serve the next (none is fresh memory when every
    weight is positive). Only one
    fit at a time holds it: a second fit on the same ``X`` meanwhile gets its own.
    It goes when the binned ``X`` goes. Any other ``X`` is binned anew, and gets
    a fresh one.
    """
    if not isinstance(X, BinnedX):
        yield Scratch()
        return
    scratch = _SCRATCHES.pop(X, None) or Scratch()
    try:
        yield scratch
    finally:
        _SCRATCHES[X] = scratch
