r"""The boosting loop and the scikit-learn estimators around it (chapters 3–6).

Every method in the book is one loop with three choices plugged in: Friedman's
Algorithm 1 as chapter 3 writes it out, with any direction, learner and step.

1. ``F_0(x)``: the loss's optimal constant, zero, or ``ρ_0 f_0(x)`` with a
   learner ``f_0`` fitted to ``y``: Damião's *Boosted Neural Networks* scales it by
   the step rule, the *Newton Boosting* post's R code takes it as it is
   (``ρ_0 = 1``, ``init_step="constant"``);
2. for ``m = 1 … M``:

   - step 2.1, the direction: a target ``z`` and a weight ``w`` from the
     loss's derivatives at ``F_{m−1}`` (Friedman's pseudo-response ``ỹ = −g``, ``w = 1``);
   - step 2.2, fit the learner: ``a_m = argmin_a Σ w (z − f(x; a))²``, ``u = f(x; a_m)``;
   - step 2.3, the step ``ρ_m``;
   - step 2.4, the update ``F_m = F_{m−1} + ν ρ_m u``, with ``ν`` the learning rate.

``_Boosting._boost`` is that loop, a line per step. Everything else it needs
is a named piece, one idea to a module, each taught in its own chapter:

* :mod:`boostlib.losses`, :mod:`boostlib.directions`, :mod:`boostlib.steps`:
  the loss's derivatives and the choices of steps 2.1 and 2.3 (chapters 3–5);
* :mod:`boostlib.subsampling`: the stage's weights, the sample weight times
  the subsample of stochastic gradient boosting (chapter 7);
* :mod:`boostlib.early_stopping`: when to stop before ``M`` stages (chapter 3);
* ``_Boosting._fit_stage_per_class``: steps 2.1–2.3 once per class, ``K``
  learners per stage (Friedman's Algorithm 6, chapter 4);
* ``_Boosting._bin_once``: ``X`` binned once per fit for a learner that bins
  (:mod:`boostlib.trees.binning`, chapter 8).

This module keeps the estimators' side: checking parameters and data, the
labels of a classifier, prediction, and the relative influence of chapter 10.

For ``K`` classes the classifier runs steps 2.1–2.3 once per class by default
(``multiclass="per_class"``; scikit-learn, XGBoost and LightGBM also fit ``K``
single-output trees per stage): learner ``k`` is fitted to column ``k`` of the
direction of the scalar loss ``F_k ↦ L(y, F)`` (:class:`~boostlib.losses.Coordinate`,
Hessian ``p_k (1 − p_k)``; XGBoost takes ``2 p_k (1 − p_k)``), all at the stage's
start ``F_{m−1}``.
``multiclass="joint"`` fits one multi-output learner to the vector direction instead.

The random state reaches the learners the way scikit-learn's gradient boosting
hands it out — one ``RandomState`` passed to each learner in turn (to the ``K``
learners of a stage in class order), after the subsample of that stage is drawn
from it — so the same configuration reproduces
``GradientBoostingRegressor``/``Classifier`` exactly, for the losses both
define alike (``huber`` differs: boostlib's ``δ`` is fixed, scikit-learn's is
reset at every stage to a quantile of ``|y − F|``, and scikit-learn starts from the
median and gives each leaf Friedman's one-step value, the median of its residuals
plus the mean of their deviations from it clipped at ``δ``, where boostlib starts from the
best constant and solves each leaf exactly; and on two classes
``log_loss`` and ``exponential`` keep the start's probability in
``[1e-15, 1 − 1e-15]``, where scikit-learn clips at float64's eps, so a fit whose
weighted class share is below 1e-15 starts elsewhere).
"""

from __future__ import annotations

import copy
import inspect
import numbers
import re
import time

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.dummy import DummyRegressor
from sklearn.preprocessing import LabelEncoder
from sklearn.tree import DecisionTreeRegressor, ExtraTreeRegressor
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    _check_y,
    _num_samples,
    check_array,
    check_consistent_length,
    check_is_fitted,
    has_fit_parameter,
    validate_data,
)

from .directions import get_direction, newton
from .early_stopping import TrainingLossChange, ValidationLoss, hold_out, never
from .losses import Coordinate, Loss, LossAt, Softmax, get_loss
from .row_blocks import loop_threads
from .steps import get_step, leaf_newton
from .subsampling import StageWeights
from .trees.binning import binning_seed
from .trees.categorical import category_codes
from .trees.threads import effective_n_threads

__all__ = ["BoostingClassifier", "BoostingRegressor", "loss_targets"]

INITS = ("constant", "zero", "learner")
MULTICLASS = ("per_class", "joint")
# Learners that take float32 X and check_input=False (scikit-learn's own trees).
TREES = (DecisionTreeRegressor, ExtraTreeRegressor)


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _naming_data(exc, names):
    """``exc`` again, its message prefixed with ``names`` unless it names X or y already."""
    text = str(exc)
    if re.search(r"\b(X|y)\b", text):
        return exc
    return ValueError(f"{names}: {text}")


def loss_targets(estimator, y):
    """``y`` in the convention of ``estimator.loss_``, as the fit used it.

    A classifier's labels become ``loss.labels`` for a binary loss (``{0, 1}``
    or ``{−1, +1}``, the second for ``classes_[1]``) and one-hot rows for a
    vector loss (softmax); a regressor's targets become floats, one column per
    output for a vector loss (quadratic). A label the classifier was not
    fitted on raises ``ValueError``.
    """
    loss = estimator.loss_
    if not is_classifier(estimator):
        y = np.asarray(y, dtype=float)
        return y.reshape(len(y), -1) if loss.vector else y
    classes = estimator.classes_
    y = np.asarray(y)
    codes = np.clip(np.searchsorted(classes, y), 0, len(classes) - 1)
    unknown = classes[codes] != y
    if np.any(unknown):
        raise ValueError(f"y has labels the estimator was not fitted on: {np.unique(y[unknown])}")
    if loss.vector:
        return np.eye(len(classes))[codes]
    return np.where(codes == 1, loss.labels[1], loss.labels[0]).astype(float)


def _validation_targets(estimator, validation, Y):
    """The checked validation set with ``y_val`` as ``loss_targets`` makes ``y`` (or None).

    ``Y`` is the training targets so converted: ``y_val`` must have as many
    outputs, finite values, and (for a classifier) only labels seen in ``y``.
    """
    if validation is None:
        return None
    X_val, y_val, s_val = validation
    try:
        Y_val = loss_targets(estimator, y_val)
    except ValueError as exc:
        raise ValueError(f"y_val: {exc}") from exc
    if Y_val.shape[1:] != Y.shape[1:]:
        raise ValueError(f"y_val has {Y_val.shape[1:] or 'one'} outputs per row, "
                         f"but y has {Y.shape[1:] or 'one'}")
    if not np.all(np.isfinite(Y_val)):
        raise ValueError("y_val holds NaN or infinity")
    return X_val, Y_val, s_val


def _object_array(rows, K):
    """Learners in an object ndarray of shape (stages, K), as scikit-learn keeps its trees."""
    array = np.empty((len(rows), K), dtype=object)
    for m, row in enumerate(rows):
        for k, learner in enumerate(row):
            array[m, k] = learner  # one by one: a learner may look like a sequence
    return array


def _is_monotone(learner):
    """Whether ``learner`` has a ``monotonic_cst`` that constrains some feature."""
    constraints = learner.get_params().get("monotonic_cst")
    return constraints is not None and bool(np.any(np.asarray(constraints, dtype=object) != 0))


def _nonnegative(step):
    """``step`` with a ``ρ < 0`` replaced by 0, for learners with monotone constraints.

    A tree whose leaves are ordered along a constrained feature keeps that order
    when it is multiplied by ``ρ ≥ 0`` and reverses it when ``ρ < 0``. The line
    search gives ``ρ < 0`` when ``φ′(0) > 0`` (``φ(ρ) = Σ s L(y, F + ρu)``);
    ``φ`` is convex, so on ``ρ ≥ 0`` its minimum is then at ``ρ = 0``: the
    stage leaves ``F`` as it is.
    """
    def rule(*args, **kwargs):
        rho, u = step(*args, **kwargs)
        return np.maximum(rho, 0.0) if np.ndim(rho) else max(rho, 0.0), u

    return rule


def _takes(function, keyword):
    """Whether ``function`` names ``keyword`` as a parameter (a ``**kwargs`` catch-all does not
    count; False when its signature cannot be read)."""
    try:
        return keyword in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _takes_bag(step):
    """Whether a step rule names ``bag`` (leaf_newton does; a user's callable may not)."""
    return _takes(step, "bag")


def _tree_importances(learner, n_features):
    """One tree's unnormalised ``I_ℓ²``: each feature's summed split improvement / root ``Σ w``."""
    tree = getattr(learner, "tree_", None)
    if tree is None:
        raise AttributeError(
            f"feature_importances_ needs tree learners (with tree_); {type(learner).__name__} "
            "has no splits to credit. Use sklearn.inspection.permutation_importance instead."
        )
    if hasattr(tree, "compute_feature_importances"):  # scikit-learn's trees
        return tree.compute_feature_importances(normalize=False)
    internal = tree.children_left != -1  # boostlib's Tree: the split gains Δ
    total = np.bincount(tree.feature[internal], weights=tree.gain[internal],
                        minlength=n_features).astype(np.float64)
    root = tree.weighted_n_node_samples[0]
    return total / root if root > 0 else total


class _StageMemory:
    """Arrays with one entry per row of ``X`` that every stage of one fit writes into again.

    A fresh array of ten million rows costs the operating system's time to zero and map
    its pages, on top of the pass that fills it (:class:`~boostlib.losses.LossAt` reuses
    the memory of ``L``, ``g`` and ``h`` for a loss computed in one pass, for the same
    reason). The arrays, only for the direction ``newton`` (the only built-in direction
    that takes ``out``), a scalar loss, and a learner that bins ``X`` and whose
    ``fit_predict`` takes ``out`` (boostlib's :class:`~boostlib.trees.HistTreeRegressor`):

    * ``direction`` (the keywords for the direction) and ``u`` (for ``_fit_learner``): the
      target ``z`` and weights ``w``, and the learner's output ``u``. Such a learner must
      keep none of its ``y``, its ``sample_weight`` and its ``out`` after the fit;
      ``HistTreeRegressor`` keeps none;
    * ``update``: the update ``ν ρ_m u``, which the loop then adds to ``F`` in ``F``'s own
      memory (the same bits as ``F + ν ρ_m u``).

    Otherwise (another direction, a vector loss or another learner) ``direction`` is
    ``{}`` and ``u`` and ``update`` are None: another learner may keep the ``y`` it was
    fitted to (a nearest-neighbours regressor does), so it gets
    fresh arrays, and the update is a temporary array, freed once it is added to ``F``:
    kept for the whole fit it would raise the peak memory of a fit of scikit-learn trees
    by one array of ``N`` rows.
    """

    def __init__(self, boosting, F):
        self.direction, self.u, self.update = {}, None, None
        writes_out = boosting._bins_X and _takes(boosting._prototype.fit_predict, "out")
        if writes_out and boosting._direction is newton and F.ndim == 1:
            self.direction, self.u = {"out": np.empty((2, len(F)))}, np.empty(len(F))
            self.update = np.empty_like(F)


class _Record:
    """What the loop keeps of its stages: learners, steps, training losses; verbose lines."""

    def __init__(self, train_loss, verbose):
        self.learners, self.steps, self.train_loss = [], [], [train_loss]
        self.verbose = verbose
        if verbose:
            print(f"{'Iter':>10} {'Train Loss':>16} {'Step':>12} {'Elapsed':>10}")
        self.start = time.perf_counter()

    def add(self, m, learner, rho, train_loss):
        """Keep stage ``m``: its learner, its step ``ρ_m`` and the training loss of ``F_m``."""
        self.learners.append(learner)
        self.steps.append(rho)
        self.train_loss.append(train_loss)
        if self.verbose:
            print(f"{m:>10d} {train_loss:>16.4f} {np.mean(rho, dtype=float):>12.4g} "
                  f"{time.perf_counter() - self.start:>9.2f}s")


class _Boosting(BaseEstimator):
    """The loop shared by :class:`BoostingRegressor` and :class:`BoostingClassifier`."""

    # K single-output learners per stage (set by BoostingClassifier.fit)
    _per_class = False

    # no defaults here: each estimator's own __init__ holds them (and get_params reads it)
    def __init__(self, *, loss, direction, step, learner, n_estimators, learning_rate, init,
                 init_step, subsample, tol, n_iter_no_change, validation_fraction,
                 random_state, verbose):
        self.loss = loss
        self.direction = direction
        self.step = step
        self.learner = learner
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.init = init
        self.init_step = init_step
        self.subsample = subsample
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.verbose = verbose

    # -- parameters -------------------------------------------------------
    def _check_params(self):
        """Validate every hyper-parameter; ``ValueError`` names the one at fault.

        Called first by ``fit``, it also forgets any earlier fit, so a fit that
        fails leaves an estimator that refuses to predict, not a stale one.
        """
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)
        if not _is_int(self.n_estimators) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if not _is_real(self.learning_rate) or not 0 < self.learning_rate < np.inf:
            raise ValueError(f"learning_rate must be a positive number, got {self.learning_rate!r}")
        if not _is_real(self.subsample) or not 0 < self.subsample <= 1:
            raise ValueError(f"subsample must be in (0, 1], got {self.subsample!r}")
        if self.tol is not None and (not _is_real(self.tol) or not 0 <= self.tol < np.inf):
            raise ValueError(f"tol must be None or a number >= 0, got {self.tol!r}")
        if self.n_iter_no_change is not None and (
            not _is_int(self.n_iter_no_change) or self.n_iter_no_change < 1
        ):
            raise ValueError(
                f"n_iter_no_change must be None or an integer >= 1, got {self.n_iter_no_change!r}"
            )
        if not _is_real(self.validation_fraction) or not 0 < self.validation_fraction < 1:
            raise ValueError(
                f"validation_fraction must be in (0, 1), got {self.validation_fraction!r}"
            )
        if not isinstance(self.init, str) or self.init not in INITS:
            raise ValueError(f"init={self.init!r} is not one of {list(INITS)}")
        if not (_is_int(self.verbose) or isinstance(self.verbose, bool)) or self.verbose < 0:
            raise ValueError(f"verbose must be an integer >= 0, got {self.verbose!r}")
        if self.learner is not None and not (
            hasattr(self.learner, "fit") and hasattr(self.learner, "predict")
        ):
            raise ValueError(f"learner must be a scikit-learn regressor, got {self.learner!r}")
        self._direction = get_direction(self.direction)
        self._step = get_step(self.step)
        self._step_takes_bag = _takes_bag(self._step)
        try:
            self._init_step = self._step if self.init_step is None else get_step(self.init_step)
        except ValueError as exc:
            raise ValueError(f"init_step: {exc}; or None for the step rule") from None

    def _prepare_learners(self):
        """The learner every stage copies, and how it is called.

        scikit-learn's trees work in float32: like scikit-learn's gradient
        boosting, X is converted once and the trees skip their input checks.
        """
        prototype = clone(self.learner) if self.learner is not None else DecisionTreeRegressor(
            max_depth=3
        )
        self._prototype = prototype
        self._shares_random_state = "random_state" in prototype.get_params()
        is_tree = isinstance(prototype, TREES)
        # the trees' own check of y >= 0 for Poisson is among the input checks skipped
        if is_tree and prototype.get_params().get("criterion") == "poisson":
            raise ValueError("learner: criterion='poisson' needs targets >= 0, but the "
                             "pseudo-responses each stage fits take both signs; use "
                             "'squared_error' or 'friedman_mse'")
        self._tree_kwargs = {"check_input": False} if is_tree else {}
        # a learner with bin() (HistTreeRegressor) reads X binned: once per fit, not per stage
        self._bins_X = callable(getattr(prototype, "bin", None))
        if _is_monotone(prototype):
            self._keep_monotone()

    def _keep_monotone(self):
        """Refuse the step rules that would undo a learner's ``monotonic_cst``; keep ``ρ ≥ 0``.

        ``leaf_newton`` rewrites every leaf with its own Newton value, which
        knows nothing of the bounds the tree put on its leaves: refused. The
        other rules multiply the whole tree by one ``ρ``, which keeps its order
        along a constrained feature when ``ρ ≥ 0``: a ``ρ < 0`` becomes 0
        (:func:`_nonnegative`). A callable step is trusted not to rewrite the tree.
        """
        rules = [("step", self._step)]
        if self.init == "learner":
            rules.append(("init_step", self._init_step))
        for name, rule in rules:
            if rule is leaf_newton:
                raise ValueError(
                    f"{name}='leaf_newton' rewrites every leaf of the learner's trees and "
                    "would undo the bounds its monotonic_cst puts on them; with monotonic_cst "
                    f"use {name}='constant', 'newton' or 'line_search', which multiply the "
                    "whole tree by one step ρ (kept >= 0, so the order is kept)")
        self._step = _nonnegative(self._step)
        self._init_step = _nonnegative(self._init_step)

    def _input_dtype(self):
        return np.float32 if self._tree_kwargs else "numeric"

    def _allow_nan(self):
        """Whether the learner takes NaN in X (its scikit-learn tags say so).

        scikit-learn's trees and boostlib's HistTreeRegressor do; ±inf is refused either way.
        """
        return bool(get_tags(self._prototype).input_tags.allow_nan)

    def _passes_X_through(self, X):
        """Whether ``X`` reaches the learner as it is: a DataFrame or a sparse matrix, for a
        learner that bins (its ``bin`` reads category columns, labels and sparse columns)."""
        return self._bins_X and (hasattr(X, "columns") or sparse.issparse(X))

    def _check_X(self, X, **kwargs):
        """``validate_data`` with NaN let through when the learner handles it, else named.

        A DataFrame or sparse ``X`` for a learner that bins is not converted: only
        its features (number, names) and ``y`` are checked here; its values are
        checked when it is binned. scikit-learn's trees take a sparse ``X``.
        """
        if self._passes_X_through(X):
            return self._check_X_as_is(X, **kwargs)
        try:
            X_or_Xy = validate_data(self, X, dtype=self._input_dtype(), order="C",
                                    ensure_all_finite="allow-nan",
                                    accept_sparse=("csr", "csc") if self._tree_kwargs else False,
                                    **kwargs)
        except ValueError as exc:
            if hasattr(X, "columns") and "could not convert" in str(exc):
                raise ValueError(
                    f"X has non-numeric columns ({exc}), which learner={self._prototype!r} "
                    "cannot read: use HistTreeRegressor(categorical_features='from_dtype') "
                    "for pandas category columns, or encode them first "
                    "(sklearn.preprocessing.OrdinalEncoder)") from exc
            raise
        X_checked = X_or_Xy[0] if isinstance(X_or_Xy, tuple) else X_or_Xy
        values = X_checked.data if sparse.issparse(X_checked) else X_checked
        has_nan = X_checked.dtype.kind == "f" and bool(np.isnan(values).any())
        if has_nan and not self._allow_nan():
            raise ValueError(
                f"Input X contains NaN, and learner={self._prototype!r} does not accept "
                "missing values. Learners that do: scikit-learn's DecisionTreeRegressor "
                "(the default) and ExtraTreeRegressor, boostlib's HistTreeRegressor, and any "
                "regressor whose tags say allow_nan (HistGradientBoostingRegressor); or "
                "impute first (sklearn.impute)."
            )
        if kwargs.get("reset", True):  # fit: the learners are told (predict changes nothing)
            self._has_nan = has_nan
        return X_or_Xy

    def _check_X_as_is(self, X, y="no_validation", reset=True, multi_output=False,
                       y_numeric=False):
        """``_check_X`` for an ``X`` the learner bins itself: features and ``y`` checked."""
        validate_data(self, X, skip_check_array=True, reset=reset)  # n_features_in_, names
        if reset:
            self._has_nan = False  # told to scikit-learn's trees only, which do not bin
        if isinstance(y, str) and y == "no_validation":
            return X
        y = _check_y(y, multi_output=multi_output, y_numeric=y_numeric, estimator=self)
        check_consistent_length(X, y)
        return X, y

    def _check_sample_weight(self, sample_weight, X):
        """The sample weights ``s``, float64 of shape (N,): finite, ≥ 0, not all zero; or None.

        A ``ValueError`` names ``sample_weight``.
        """
        if sample_weight is None:
            return None
        try:
            s = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                     ensure_non_negative=True, allow_all_zero_weights=True)
        except ValueError as exc:
            text = str(exc)
            raise ValueError(text if "sample_weight" in text else f"sample_weight: {text}") \
                from exc
        if not np.sum(s) > 0:
            raise ValueError("sample_weight sums to zero: at least one sample needs a "
                             "positive weight")
        if not has_fit_parameter(self._prototype, "sample_weight"):
            raise ValueError(
                f"sample_weight reaches every learner's fit, but learner={self._prototype!r} "
                "takes no sample_weight"
            )
        return s

    def _check_validation(self, X_val, y_val, sample_weight_val):
        """The validation set handed to ``fit``, checked: ``(X_val, y_val, s_val)`` or None.

        As HistGradientBoosting takes it: both ``X_val`` and ``y_val`` or
        neither, and only when early stopping is on (``n_iter_no_change``);
        ``validation_fraction`` then goes unused. ``X_val`` is checked as
        ``predict`` checks ``X`` (same features; NaN only if the learner takes
        it); ``s_val`` as ``sample_weight`` is. ``y_val`` is converted by the
        caller, once the loss and the classes are known.
        """
        if X_val is None and y_val is None:
            if sample_weight_val is not None:
                raise ValueError("sample_weight_val is given, but X_val and y_val are not")
            return None
        if X_val is None or y_val is None:
            given, missing = ("X_val", "y_val") if y_val is None else ("y_val", "X_val")
            raise ValueError(f"{given} is given, but {missing} is not; early stopping needs both")
        if self.n_iter_no_change is None:
            raise ValueError("X_val and y_val are for early stopping, which is off: set "
                             "n_iter_no_change (the patience) to stop early on them")
        try:
            X_val = self._check_X(X_val, reset=False)
        except ValueError as exc:
            raise ValueError(f"X_val: {exc}") from exc
        y_val = np.asarray(y_val)
        if y_val.dtype.kind in "US":
            y_val = y_val.astype(object)
        if len(y_val) != _num_samples(X_val):
            raise ValueError(f"X_val has {_num_samples(X_val)} rows, but y_val has {len(y_val)}")
        s_val = None
        if sample_weight_val is not None:
            try:
                s_val = _check_sample_weight(sample_weight_val, X_val, dtype=np.float64,
                                             ensure_non_negative=True,
                                             allow_all_zero_weights=True)
            except ValueError as exc:
                raise ValueError(f"sample_weight_val: {exc}") from exc
            if not np.sum(s_val) > 0:
                raise ValueError("sample_weight_val sums to zero: the validation loss "
                                 "needs a positive weight")
        return X_val, y_val, s_val

    def _learner_input(self, X):
        """``X`` as the learners read it: binned once (with ``binner_``), or unchanged.

        A DataFrame or sparse ``X`` is coded and checked as the learner's ``bin``
        did it in ``fit``: category labels to codes, NaN allowed, ±inf refused.
        """
        if not self._bins_X:
            return X
        if self._passes_X_through(X):
            X = check_array(category_codes(X, getattr(self.binner_, "labels", None)),
                            accept_sparse=("csr", "csc"), dtype=np.float64,
                            ensure_all_finite="allow-nan", input_name="X")
        return self.binner_.transform(X)

    def _fit_learner(self, X, z, w, weight, rng, out=None):
        """Step 2.2: a new learner ``f(x; a)`` fitted to ``z`` by weighted least squares.

        The weights are the direction's ``w`` times the stage's ``weight`` (or
        ``w`` alone when it is None); the learner draws from the shared random
        state ``rng`` if it has a ``random_state``. Returns the learner and its output
        ``u_i = f(x_i; a)``;
        ``out`` (see :class:`_StageMemory`) goes to the ``fit_predict`` of a learner that
        bins ``X``, which writes ``u`` into it, and is not used by any other learner.
        """
        learner = copy.deepcopy(self._prototype)  # clone() would re-inspect every stage
        if self._shares_random_state:
            learner.random_state = rng
        w = w if weight is None else w * weight
        # a scikit-learn tree finds the features with NaN only when it checks its input
        tree_kwargs = {} if self._has_nan or sparse.issparse(X) else self._tree_kwargs
        first = np.asarray(w).flat[:1]  # a Newton w is mostly told from 1 by its first entry
        unit = np.all(first == 1.0) and np.all(w == 1.0)
        kwargs = dict(tree_kwargs) if unit else dict(sample_weight=w, **tree_kwargs)
        if self._bins_X:  # HistTreeRegressor: u read off the fit (each row's leaf is known)
            if out is not None:
                kwargs["out"] = out
            u = np.asarray(learner.fit_predict(X, z, **kwargs), dtype=float)
            return learner, (u.reshape(len(X), -1) if self.loss_.vector else u)
        learner.fit(X, z, **kwargs)
        return learner, self._learner_output(learner, X)

    def _learner_output(self, learner, X):
        # a sparse X is checked by the tree (which wants CSR to predict, CSC to fit)
        kwargs = self._tree_kwargs if isinstance(learner, TREES) and not sparse.issparse(X) else {}
        u = np.asarray(learner.predict(X, **kwargs), dtype=float)
        n = _num_samples(X)
        return u.reshape(n, -1) if self.loss_.vector else u.reshape(n)

    # -- the loop ---------------------------------------------------------
    def _fit_boosting(self, X, Y, stratify=None, sample_weight=None, validation=None):
        """Fit on internal targets ``Y`` (the loss's convention). Sets the fitted attributes.

        ``sample_weight`` (``s``, validated, or None) multiplies every sample's
        loss: the learners are fitted with weights ``w s`` (``w s · bag`` when
        subsampling, as scikit-learn combines them), the steps, ``F_0``, the
        validation loss and ``train_loss_`` are weighted by ``s``.
        ``validation``: the user's ``(X_val, Y_val, s_val)``, checked, or None;
        early stopping then reads it and nothing is held out of ``X``.
        """
        held_out = validation
        if self.n_iter_no_change is not None and validation is None:  # held out of X
            (X, Y, sample_weight), held_out = hold_out(
                X, Y, sample_weight, self.validation_fraction, self.random_state, stratify)
        rng = check_random_state(self.random_state)
        X = self._bin_once(X, sample_weight)
        with loop_threads(self._loop_threads()):  # the same bits on any number (row_blocks)
            self._boost(X, Y, sample_weight, rng, held_out)
        return self

    def _loop_threads(self):
        """The threads the loop's per-row formulas (loss, ``g``, ``h``) use between trees.

        Those of a learner that bins ``X`` (boostlib's :class:`~boostlib.trees.HistTreeRegressor`,
        whose ``n_jobs`` means what :func:`~boostlib.trees.threads.effective_n_threads`
        says: ``None`` is every core); one for any other learner, as before. The
        loop and the trees take turns, so the threads never compete.
        """
        if not self._bins_X or "n_jobs" not in self._prototype.get_params():
            return 1
        return effective_n_threads(self._prototype.get_params()["n_jobs"])

    def _bin_once(self, X, sample_weight):
        """``X`` binned once per fit for a learner that bins (chapter 8); otherwise ``X``.

        Every stage's learner then reuses the bins, kept in ``binner_`` (None
        for a learner that reads ``X`` itself). Rows of weight 0 place no
        thresholds; the rows that place them are drawn with a seed taken from
        ``random_state`` (:func:`~boostlib.trees.binning.binning_seed`), which
        leaves the loop's own draws scikit-learn's.
        """
        self.binner_ = None
        if not self._bins_X:
            return X
        try:
            X = self._prototype.bin(X, sample_weight, seed=binning_seed(self.random_state))
        except ValueError as exc:
            if "could not convert" not in str(exc):
                raise
            raise ValueError(f"X has non-numeric columns ({exc}) that learner="
                             f"{self._prototype!r} does not treat as categorical: name them in "
                             "its categorical_features (or 'from_dtype' for pandas category "
                             "columns)") from exc
        self.binner_ = X.binner
        return X

    def _boost(self, X, Y, s, rng, held_out):
        """Friedman's Algorithm 1 (chapter 3), step 1 and steps 2.1–2.4 for ``m = 1 … M``, with
        ``s`` the sample weights or None, ``held_out`` early stopping's validation set or None."""
        loss, nu = self.loss_, self.learning_rate
        F = self._fit_init(X, Y, rng, s)                              # 1. F_0
        at = LossAt(loss, Y, F)                                       # L, g, h at F, once
        record = _Record(at.mean(Y, F, s), self.verbose)              # estimators_, steps_, ...
        stop = self._early_stopping(held_out, record.train_loss[0])
        stage_weights = StageWeights(s, self.subsample, len(Y), rng, self._step_takes_bag)
        memory = _StageMemory(self, F)                                # arrays stages reuse
        for m in range(1, self.n_estimators + 1):                     # 2. stages m = 1 … M
            weight, bag = stage_weights.draw()                        # s × the subsample
            if self._per_class:                                       # K classes: K learners
                learner, rho, u = self._fit_stage_per_class(X, Y, F, weight, bag, rng)
            else:
                z, w = self._direction(at, Y, F, **memory.direction)  # 2.1 target z (ỹ = −g)
                learner, u = self._fit_learner(X, z, w, weight, rng, memory.u)  # 2.2 u = f(x; a_m)
                rho, u = self._step(loss, Y, F, u, sample_weight=weight,  # 2.3 ρ_m
                                    learner=learner, X=X, **bag)
            F += np.multiply(nu * rho, u, out=memory.update)          # 2.4 F_m (= F + ν ρ u)
            at = LossAt(loss, Y, F, reuse=at)                         # in at's memory
            record.add(m, learner, rho, at.mean(Y, F, s))
            if stop(learner, rho, record.train_loss[-1]):             # early stopping
                break
        self._keep(record)

    def _early_stopping(self, held_out, train_loss):
        """The rule the loop asks after every stage (:mod:`boostlib.early_stopping`).

        With ``n_iter_no_change``: scikit-learn's rule on the held-out points
        (binned as ``X`` is, and starting from ``F_0`` there); with ``tol``
        alone, the R code's rule on the training loss (``train_loss`` is that
        of ``F_0``); with neither, none.
        """
        if held_out is not None:
            X_val, Y_val, s_val = held_out
            X_val = self._learner_input(X_val)
            F_val = self.init_step_ * self._learner_output(self.init_, X_val)
            return ValidationLoss(self.loss_, Y_val, F_val, s_val,
                                  lambda learner, rho: self._stage_output(rho, learner, X_val),
                                  self.n_iter_no_change, 1e-4 if self.tol is None else self.tol)
        if self.tol is not None:
            return TrainingLossChange(self.tol, train_loss)
        return never

    def _keep(self, record):
        """Set ``estimators_``, ``steps_``, ``train_loss_``, ``n_estimators_`` from the record."""
        self.steps_ = np.asarray(record.steps, dtype=float)
        self.train_loss_ = np.asarray(record.train_loss)
        self.n_estimators_ = len(record.learners)
        self.estimators_ = record.learners
        if self._per_class:
            self.estimators_ = _object_array(record.learners, len(record.learners[0]))

    def _fit_stage_per_class(self, X, Y, F, weight, bag, rng):
        """Steps 2.1–2.3 once per class ``k``, all at ``F_{m−1}`` (Friedman's Algorithm 6).

        Learner ``k`` is fitted to the direction of the scalar loss
        ``F_k ↦ L(y, F)`` (:class:`~boostlib.losses.Coordinate`: gradient
        ``g_k``, Hessian ``H_kk``) and stepped along it (chapter 4). Returns the
        ``K`` learners, their steps ``ρ_k`` and their outputs ``u_k``, column by column.
        """
        learners, rhos, u = [], [], np.empty_like(F)
        for k, coordinate in enumerate(Coordinate.per_class(self.loss_, Y, F)):
            y_k, F_k = Y[:, k], F[:, k]
            z, w = self._direction(coordinate, y_k, F_k)                # 2.1
            learner, u_k = self._fit_learner(X, z, w, weight, rng)      # 2.2
            rho, u[:, k] = self._step(coordinate, y_k, F_k, u_k.reshape(len(y_k)),  # 2.3
                                      sample_weight=weight, learner=learner, X=X, **bag)
            learners.append(learner)
            rhos.append(rho)
        return learners, np.asarray(rhos), u

    def _stage_output(self, rho, learner, X):
        """``ν ρ_m f_m(X)``: one stage's update (per class: column ``k`` from learner ``k``)."""
        if not self._per_class:
            return self.learning_rate * rho * self._learner_output(learner, X)
        return np.column_stack([
            self.learning_rate * rho_k * self._learner_output(f_k, X).reshape(_num_samples(X))
            for rho_k, f_k in zip(rho, learner, strict=True)
        ])

    def _fit_init(self, X, Y, rng, sample_weight=None):
        """``F_0``: optimal constant, zero, or ``ρ_0 f_0(x)`` with ``f_0`` fitted to ``y``.

        ``ρ_0`` comes from the ``init_step`` rule (by default the stages' step rule).
        With ``sample_weight`` ``s``: the constant ``argmin_c Σ_i s_i L(y_i, c)``
        (step 1 of Friedman's Algorithm 1, chapter 3, weighted), or ``f_0``
        fitted with weights ``s`` and ``ρ_0`` weighted by them.
        """
        loss = self.loss_
        s = sample_weight
        if self.init == "learner":
            learner, u = self._fit_learner(X, Y, np.ones(len(Y)), s, rng)
            F_zero = np.zeros_like(u)
            rho, u = self._init_step(loss, Y, F_zero, u, sample_weight=s, learner=learner,
                                     X=X)
            self.init_, self.init_step_ = learner, rho
            return rho * u
        if self.init == "constant":
            c = loss.optimal_constant(Y) if s is None else loss.optimal_constant(Y, s)
        else:
            c = np.zeros(Y.shape[1:])
        target = np.broadcast_to(c, Y.shape).astype(float)
        self.init_ = DummyRegressor(strategy="constant", constant=c).fit(X[:1], target[:1])
        self.init_step_ = 1.0
        return target.copy()

    # -- prediction -------------------------------------------------------
    def _staged_raw(self, X):
        """Yield ``F_m(X)`` after every stage ``m = 1 … M``."""
        F = self.init_step_ * self._learner_output(self.init_, X)
        for rho, learner in zip(self.steps_, self.estimators_, strict=True):
            F = F + self._stage_output(rho, learner, X)
            yield F

    def _raw_predict(self, X):
        F = self.init_step_ * self._learner_output(self.init_, X)
        for rho, learner in zip(self.steps_, self.estimators_, strict=True):
            F += self._stage_output(rho, learner, X)
        return F

    # -- reading the model ------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # NaN in X is fine exactly when the learner takes it (the default tree does)
        learner = self.learner if self.learner is not None else DecisionTreeRegressor()
        try:
            tags.input_tags.allow_nan = bool(get_tags(learner).input_tags.allow_nan)
        except (AttributeError, TypeError):
            tags.input_tags.allow_nan = False
        # sparse X: scikit-learn's trees and a learner that bins (HistTreeRegressor) take it
        tags.input_tags.sparse = isinstance(learner, TREES) or callable(getattr(learner, "bin",
                                                                                None))
        return tags

    @property
    def feature_importances_(self):
        r"""Friedman's squared relative influence ``I_ℓ²`` of each feature, normalised (chapter 10).

        The shares ``I_ℓ² / Σ_ℓ' I_ℓ'²`` sum to 1; Friedman (2001, §8.1) calls
        the square root ``I_ℓ`` the relative influence.

        For one tree ``T``, ``I_ℓ²(T) = Σ_η î_η² 1(ℓ_η = ℓ)`` over its internal
        nodes ``η`` that split on feature ``ℓ`` (chapter 10, eq. ``influence-tree``),
        with ``î_η²`` the node's improvement in weighted squared error,
        ``W_η imp_η − W_L imp_L − W_R imp_R`` (``W`` a node's cover, ``imp`` its
        weighted variance; Friedman 2001, §8.1; ESL eq. 10.42), divided by the
        root's cover. The
        boosted model's influence is the mean over its trees, then normalised
        — as scikit-learn's gradient boosting computes it (trees that are a
        single leaf left out), so on the same model the two agree.

        For :class:`~boostlib.trees.HistTreeRegressor` learners ``î_η²`` is the
        split's gain ``Δ`` (chapter 8), the same improvement (with ``λ = 0``; the
        penalised one otherwise, XGBoost's ``total_gain``). The initial model
        ``F_0`` is not counted.

        Impurity-based importances are computed on the training data and
        favour features with many distinct values (high cardinality), which
        offer more split points to fit noise with; permutation importance on
        held-out data (``sklearn.inspection.permutation_importance``) does not
        share this bias. Raises ``AttributeError`` when the learners are not trees.
        """
        check_is_fitted(self, "estimators_")
        trees = [learner for learner in np.ravel(np.asarray(self.estimators_, dtype=object))]
        per_tree = [_tree_importances(learner, self.n_features_in_) for learner in trees]
        relevant = [imp for learner, imp in zip(trees, per_tree, strict=True)
                    if learner.tree_.node_count > 1]
        if not relevant:  # every tree is a single leaf
            return np.zeros(self.n_features_in_, dtype=np.float64)
        mean = np.mean(relevant, axis=0, dtype=np.float64)
        return mean / np.sum(mean)

    def _validate_X(self, X):
        """``X`` checked against the fit, then as the learners read it (binned once)."""
        check_is_fitted(self, "estimators_")
        X = self._check_X(X, reset=False)
        return self._learner_input(X)


class BoostingRegressor(RegressorMixin, _Boosting):
    """Boosting for regression: ``F(x) = F_0(x) + ν Σ_m ρ_m f_m(x)``.

    Parameters
    ----------
    loss : str or Loss, default="squared_error"
        ``"squared_error"``, ``"absolute_error"``, ``"huber"`` or, for a
        two-dimensional ``y``, ``"quadratic"`` (Damião's quadratic loss, ``(y − F)ᵀ(y − F)``);
        or a :class:`~boostlib.losses.Loss` instance.
    direction : str or callable, default="gradient"
        What the learner is fitted to: ``"gradient"``, ``"newton"``,
        ``"newton_unweighted"``, ``"newton_raphson"`` (see :mod:`boostlib.directions`),
        or a callable ``direction(loss, y, F)`` that returns ``(z, w)`` as they
        do: the target ``z``, shaped like ``F``, and one weight per sample
        ``w``; the learner is fitted to ``z`` with the weights ``w`` (times the
        sample weights and the subsample, if any). ``loss`` is the fit's
        :class:`~boostlib.losses.Loss` at ``F`` (a :class:`~boostlib.losses.LossAt`:
        the loss's attributes and methods, whose arrays at ``F`` are computed once,
        read-only, and valid for the stage; it is not an instance of the loss's
        class), ``y`` the targets in its convention
        (labels mapped as under ``loss``) and ``F`` the scores at the stage's
        start, which the loop overwrites at the stage's end (copy it to keep it).
        With ``multiclass="per_class"`` it is called once per class
        ``k`` with the class's :class:`~boostlib.losses.Coordinate` (in
        :class:`BoostingClassifier`),
        ``y[:, k]`` and ``F[:, k]``.
    step : str or callable, default="leaf_newton"
        How far to go: ``"line_search"``, ``"newton"``, ``"leaf_newton"``,
        ``"constant"`` (see :mod:`boostlib.steps`), or a callable
        ``step(loss, y, F, u, sample_weight=None, learner=None, X=None)`` that
        returns ``(ρ, u)`` as they do, ``loss`` being the fit's
        :class:`~boostlib.losses.Loss` itself (per class its
        :class:`~boostlib.losses.Coordinate`); the loop overwrites ``F`` at the stage's end
        and may write the next stage's ``u`` into this one's memory (copy them to keep
        them). A callable that also names ``bag`` as a parameter is
        given, when the fit has sample weights, the boolean mask of the rows
        that take part in the stage (all of them without subsampling), as
        ``leaf_newton`` is.
    learner : regressor or None, default=None
        Any scikit-learn regressor, cloned per stage; ``None`` means
        ``DecisionTreeRegressor(max_depth=3)``. Its ``random_state`` is replaced
        by the shared random state. :class:`~boostlib.trees.HistTreeRegressor`
        (XGBoost's tree, chapter 8) bins ``X`` once per fit and accepts NaN; a
        DataFrame (``category`` columns, labels of any type) or a sparse ``X``
        reaches it as it is. scikit-learn's trees take a sparse ``X`` as well. A
        scikit-learn tree with ``criterion="poisson"`` is refused: the
        pseudo-responses it would fit take both signs. With a learner whose
        ``monotonic_cst`` constrains a feature, ``step="leaf_newton"`` is
        refused (it rewrites the leaves past their bounds) and every ``ρ`` is
        kept ``≥ 0``, so each tree keeps its order.
    n_estimators : int, default=100
        Number of stages ``M``.
    learning_rate : float, default=0.1
        Shrinkage ``ν``.
    init : {"constant", "zero", "learner"}, default="constant"
        ``F_0``: the loss's optimal constant, zero, or ``ρ_0 f_0(x)`` with a
        learner ``f_0`` fitted to ``y``.
    init_step : str or None, default=None
        With ``init="learner"``, the rule for ``ρ_0``: ``None`` uses ``step``
        (Damião's ``F_0 = ρ_0 f_0``), ``"constant"`` gives ``ρ_0 = 1``
        (the *Newton Boosting* post's ``F_0 = f_0``); any name ``step`` takes. Ignored otherwise.
    subsample : float, default=1.0
        Fraction of samples drawn without replacement for each stage (Friedman 2002).
    tol : float or None, default=None
        Without ``n_iter_no_change``: stop when the mean training loss changes
        by less than ``tol`` (the R code's rule, which compares the *summed*
        loss with 1e-3: ``tol = 1e-3 / n_samples``). With it: the margin of
        the validation rule below (scikit-learn's ``tol``; 1e-4 if None), on
        the loss as scikit-learn measures it: twice the mean loss for
        ``"squared_error"`` and a two-class ``"log_loss"``, the mean loss itself
        for the others, softmax (a ``"log_loss"`` of more than two classes)
        included.
    n_iter_no_change : int or None, default=None
        The patience ``n`` of early stopping on a validation set, as
        scikit-learn's gradient boosting does it (same split, same rule): after
        every stage the validation loss ``V_m`` is compared with the last ``n``
        values, and the fit stops at the first stage where ``V_m + tol`` is not
        below the largest of them. The first ``n`` stages never stop. This is
        not "``n`` stages without a new best": the fit goes on while each new
        value beats the worst of the last ``n``, however long ago the best was
        (:class:`~boostlib.early_stopping.ValidationLoss`, chapter 3).
    validation_fraction : float, default=0.1
        Share of the training data held out for ``n_iter_no_change``; not
        used when ``fit`` is given ``X_val`` and ``y_val``.
    random_state : int, RandomState or None, default=None
        Seeds subsampling, the validation split, every learner and the rows
        that place the bins of a learner that bins ``X`` (drawn from a copy:
        :func:`~boostlib.trees.binning.binning_seed`).
    verbose : int, default=0
        Print one line per stage when > 0.

    Attributes
    ----------
    estimators_ : list
        The fitted learners ``f_m``, one per stage.
    steps_ : ndarray of shape (n_estimators_,)
        The steps ``ρ_m``.
    train_loss_ : ndarray of shape (n_estimators_ + 1,)
        The mean training loss after ``F_0`` and after every stage; with
        ``sample_weight``, the weighted mean ``Σ s L / Σ s``.
    init_ : estimator
        The fitted initial model: ``F_0(x) = init_step_ · init_.predict(x)``.
    init_step_ : float
        ``ρ_0``: 1 for ``init="constant"`` and ``"zero"``.
    n_estimators_ : int
        The number of stages actually built.
    loss_ : Loss
        The :class:`~boostlib.losses.Loss` in use.
    binner_ : Binner or None
        With a learner that bins ``X`` (:class:`~boostlib.trees.HistTreeRegressor`):
        the bins every stage shares, made once per fit; else None.
    feature_importances_ : ndarray of shape (n_features,)
        Friedman's squared relative influence ``I_ℓ²`` of each feature ``ℓ``,
        normalised to sum to 1: the improvements of the splits on ``ℓ``, per
        tree over its root's cover, averaged over the trees, as scikit-learn's
        gradient boosting computes it (chapter 10). Tree learners only. Measured on the training
        data, it favours features with many distinct values; permutation
        importance on held-out data does not.
    """

    def __init__(
        self,
        loss="squared_error",
        direction="gradient",
        step="leaf_newton",
        learner=None,
        n_estimators=100,
        learning_rate=0.1,
        init="constant",
        init_step=None,
        subsample=1.0,
        tol=None,
        n_iter_no_change=None,
        validation_fraction=0.1,
        random_state=None,
        verbose=0,
    ):
        super().__init__(
            loss=loss, direction=direction, step=step, learner=learner,
            n_estimators=n_estimators, learning_rate=learning_rate, init=init,
            init_step=init_step, subsample=subsample, tol=tol, n_iter_no_change=n_iter_no_change,
            validation_fraction=validation_fraction, random_state=random_state,
            verbose=verbose,
        )

    def fit(self, X, y, sample_weight=None, X_val=None, y_val=None, sample_weight_val=None):
        """Fit the boosted model to ``X`` of shape (N, d) and ``y`` of shape (N,) or (N, K).

        ``sample_weight`` (N,), default None: ``s_i ≥ 0`` multiplies sample ``i``'s
        loss everywhere, ``Σ s L(y, F)`` (zero weights allowed, not all zero).
        ``X`` may hold NaN when the learner accepts it (the default tree does).
        ``X_val``, ``y_val`` (and ``sample_weight_val``), default None: a
        validation set of one's own for early stopping (``n_iter_no_change``
        must be set); nothing is then held out of ``X``, and the stopping
        rule is unchanged.
        """
        self._check_params()
        loss = get_loss(self.loss)
        if loss.labels is not None:
            raise ValueError(f"loss={loss.name!r} is a classification loss; use BoostingClassifier")
        self._prepare_learners()
        if np.asarray(y).dtype.kind in "US":  # strings: converted, or refused, as object y is
            y = np.asarray(y).astype(object)
        try:
            X, y = self._check_X(X, y=y, y_numeric=True, multi_output=loss.vector)
        except ValueError as exc:
            raise _naming_data(exc, "X and y") from exc
        sample_weight = self._check_sample_weight(sample_weight, X)
        validation = self._check_validation(X_val, y_val, sample_weight_val)
        self._y_2d = np.ndim(y) == 2
        self.loss_ = loss
        Y = loss_targets(self, y)
        return self._fit_boosting(X, Y, sample_weight=sample_weight,
                                  validation=_validation_targets(self, validation, Y))

    def _output(self, F):
        return F if self._y_2d or not self.loss_.vector else F[:, 0]

    def predict(self, X):
        """``F_M(x)``, the prediction."""
        return self._output(self._raw_predict(self._validate_X(X)))

    def staged_predict(self, X):
        """Yield the prediction after every stage ``m = 1 … M``."""
        for F in self._staged_raw(self._validate_X(X)):
            yield self._output(F)


class BoostingClassifier(ClassifierMixin, _Boosting):
    """Boosting for classification; any label type, binary or multi-class.

    Parameters are those of :class:`BoostingRegressor`, except

    loss : str or Loss, default="log_loss"
        ``"log_loss"`` (``F`` = log-odds; multi-class: ``"softmax"``),
        ``"binomial_deviance"`` (``log(1 + e^{−2yF})``, the *Newton Boosting* post's),
        ``"exponential"`` (AdaBoost) or ``"softmax"``. Labels are mapped to
        each loss's convention internally: ``{0, 1}``, ``{−1, +1}`` or one-hot.

    and one more,

    multiclass : {"per_class", "joint"}, default="per_class"
        How a vector loss (softmax, ``K`` classes) is boosted. ``"per_class"``:
        ``K`` single-output learners per stage, learner ``k`` fitted to class
        ``k``'s column of the direction with the diagonal Hessian
        ``p_k (1 − p_k)``, every one at the stage's start; ``leaf_newton``
        multiplies its leaves by Friedman's ``(K − 1)/K``, as scikit-learn's
        ``GradientBoostingClassifier`` and LightGBM (through its Hessian factor
        ``K/(K − 1)``) do, and with the default tree it equals
        ``GradientBoostingClassifier``; ``HistGradientBoostingClassifier`` keeps
        the Newton value (factor 1); XGBoost also
        fits ``K`` trees per stage but takes the Hessian ``2 p_k (1 − p_k)``,
        so its leaves are ½ of the Newton value at λ = 0. ``"joint"``: one multi-output
        learner per stage, fitted to ``−H⁺g`` (``direction="newton"``, with
        the weight of :func:`~boostlib.directions.vector_newton`) or ``−g``.
        Ignored for binary losses.

    Attributes are those of :class:`BoostingRegressor`, plus ``classes_``;
    with ``multiclass="per_class"`` and ``K`` classes, ``estimators_`` is an
    object ndarray of shape ``(n_estimators_, K)`` (learner ``[m − 1, k]``, stage
    ``m``'s for class ``k``, moves the score of ``classes_[k]``) and ``steps_`` has
    shape ``(n_estimators_, K)``.
    """

    def __init__(
        self,
        loss="log_loss",
        direction="gradient",
        step="leaf_newton",
        learner=None,
        n_estimators=100,
        learning_rate=0.1,
        init="constant",
        init_step=None,
        subsample=1.0,
        tol=None,
        n_iter_no_change=None,
        validation_fraction=0.1,
        random_state=None,
        verbose=0,
        multiclass="per_class",
    ):
        super().__init__(
            loss=loss, direction=direction, step=step, learner=learner,
            n_estimators=n_estimators, learning_rate=learning_rate, init=init,
            init_step=init_step, subsample=subsample, tol=tol, n_iter_no_change=n_iter_no_change,
            validation_fraction=validation_fraction, random_state=random_state,
            verbose=verbose,
        )
        self.multiclass = multiclass

    def fit(self, X, y, sample_weight=None, X_val=None, y_val=None, sample_weight_val=None):
        """Fit to ``X`` of shape (N, d) and labels ``y`` of any type (at least two classes).

        ``sample_weight`` (N,), default None: ``s_i ≥ 0`` multiplies sample ``i``'s
        loss everywhere (class weights: ``s_i`` = the weight of ``y_i``'s class,
        e.g. ``sklearn.utils.class_weight.compute_sample_weight``). ``X`` may hold
        NaN when the learner accepts it (the default tree does). ``X_val``,
        ``y_val`` (and ``sample_weight_val``), default None: a validation set of
        one's own for early stopping (``n_iter_no_change`` must be set; its
        labels must occur in ``y``); nothing is then held out of ``X``.
        """
        self._check_params()
        if not isinstance(self.multiclass, str) or self.multiclass not in MULTICLASS:
            raise ValueError(f"multiclass={self.multiclass!r} is not one of {list(MULTICLASS)}")
        self._prepare_learners()
        try:
            X, y = self._check_X(X, y=y)
        except ValueError as exc:
            raise _naming_data(exc, "X and y") from exc
        sample_weight = self._check_sample_weight(sample_weight, X)
        validation = self._check_validation(X_val, y_val, sample_weight_val)
        try:
            check_classification_targets(y)
        except ValueError as exc:
            raise _naming_data(exc, "y") from exc
        encoder = LabelEncoder().fit(y)
        self.classes_ = encoder.classes_
        K = len(self.classes_)
        if K < 2:
            raise ValueError(
                f"y has only one class ({self.classes_.tolist()[0]!r}); "
                "a classifier needs at least 2 classes"
            )
        codes = encoder.transform(y)
        if sample_weight is not None and np.count_nonzero(
                np.bincount(codes, weights=sample_weight, minlength=K)) < 2:
            raise ValueError("sample_weight leaves fewer than 2 classes with a positive weight")
        loss = get_loss(self.loss)
        if loss.name == "log_loss" and K > 2:
            loss = Softmax()
        if not isinstance(loss, Loss) or loss.labels is None:
            raise ValueError(f"loss={loss.name!r} is a regression loss; use BoostingRegressor")
        if K > 2 and not loss.vector:
            raise ValueError(f"loss={loss.name!r} is binary only, but y has {K} classes")
        self.loss_ = loss
        self._per_class = loss.vector and self.multiclass == "per_class"
        Y = loss_targets(self, y)
        return self._fit_boosting(X, Y, stratify=codes, sample_weight=sample_weight,
                                  validation=_validation_targets(self, validation, Y))

    def decision_function(self, X):
        """The raw score ``F_M(x)``: shape (n_samples,) for two classes, (n_samples, K) for more."""
        return self._raw_predict(self._validate_X(X))

    def staged_decision_function(self, X):
        """Yield ``F_m(x)`` after every stage."""
        yield from self._staged_raw(self._validate_X(X))

    def _proba(self, F):
        if self.loss_.vector:
            return self.loss_.predict_proba(F)
        p = self.loss_.predict_proba(F)
        return np.column_stack([1 - p, p])

    def predict_proba(self, X):
        """Class probabilities through the loss's link: ``σ(F)``, ``σ(2F)`` or ``softmax(F)``."""
        return self._proba(self.decision_function(X))

    def staged_predict_proba(self, X):
        """Yield the class probabilities after every stage."""
        for F in self.staged_decision_function(X):
            yield self._proba(F)

    def _labels(self, F):
        codes = F.argmax(axis=1) if F.ndim == 2 else (F >= 0).astype(int)
        return self.classes_[codes]

    def predict(self, X):
        """The most probable class (binary: ``F ≥ 0``, scikit-learn's rule at a tie)."""
        return self._labels(self.decision_function(X))

    def staged_predict(self, X):
        """Yield the predicted classes after every stage."""
        for F in self.staged_decision_function(X):
            yield self._labels(F)
