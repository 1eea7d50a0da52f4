r"""The stage-wise loop and the scikit-learn estimators around it (chapters 3–6).

Every method in the book is this loop with three choices plugged in
(chapter 3, Algorithm ``gbm``):

1. ``F_0(x)``: the loss's optimal constant, zero, or ``ρ_0 h_0(x)`` with a
   learner ``h_0`` fitted to ``y``: seed 001 scales it by the step rule
   (``f_0 = γ_0 h_0``), seed 000 takes it as it is (``ρ_0 = 1``,
   ``init_step="constant"``);
2. for ``m = 1 … M``:

   a. target and weight ``(z, w) = direction(L, y, F_{m−1})``;
   b. fit the learner: ``a_m = argmin_a Σ w (z − h(x; a))²``, ``u = h(x; a_m)``;
   c. step ``ρ_m = step(L, y, F_{m−1}, u)``;
   d. ``F_m = F_{m−1} + ν ρ_m u``, with ``ν`` the learning rate.

For ``K`` classes the classifier runs steps a–d once per class by default
(``multiclass="per_class"``, Friedman's Algorithm 6, as scikit-learn, XGBoost
and LightGBM do): ``K`` single-output learners per stage, learner ``k`` fitted
to column ``k`` of the direction of the scalar loss ``F_k ↦ L(y, F)``
(:class:`~boostlib.losses.Coordinate`, Hessian ``p_k (1 − p_k)``), all at the
stage's start ``F_{m−1}``. ``multiclass="joint"`` fits one multi-output
learner to the vector direction instead.

The random state reaches the learners the way scikit-learn's gradient boosting
hands it out — one ``RandomState`` passed to each learner in turn (to the ``K``
learners of a stage in class order), after the subsample of that stage is drawn
from it — so the same configuration reproduces
``GradientBoostingRegressor``/``Classifier`` exactly.
"""

from __future__ import annotations

import copy
import numbers
import re
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.dummy import DummyRegressor

# scikit-learn's own subsample mask (Knuth's selection sampling): using it makes
# subsampled runs reproduce scikit-learn's gradient boosting draw for draw.
from sklearn.ensemble._gradient_boosting import _random_sample_mask
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder
from sklearn.tree import DecisionTreeRegressor, ExtraTreeRegressor
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .directions import get_direction
from .losses import Coordinate, Loss, Softmax, get_loss
from .steps import get_step

__all__ = ["BoostingClassifier", "BoostingRegressor", "loss_targets"]

INITS = ("constant", "zero", "learner")
MULTICLASS = ("per_class", "joint")
# scikit-learn compares twice these losses (the old deviances) with tol when it
# stops early; boostlib does the same, so that n_iter_no_change matches it.
SKLEARN_DEVIANCE_FACTOR = {"squared_error": 2.0, "log_loss": 2.0}
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


def _object_array(rows, K):
    """Learners in an object ndarray of shape (stages, K), as scikit-learn keeps its trees."""
    array = np.empty((len(rows), K), dtype=object)
    for m, row in enumerate(rows):
        for k, learner in enumerate(row):
            array[m, k] = learner  # one by one: a learner may look like a sequence
    return array


class _Boosting(BaseEstimator):
    """The loop shared by :class:`BoostingRegressor` and :class:`BoostingClassifier`."""

    # K single-output learners per stage (set by BoostingClassifier.fit)
    _per_class = False

    def __init__(
        self,
        loss,
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
        self._tree_kwargs = {"check_input": False} if is_tree else {}
        # a learner with bin() (HistTreeRegressor) reads X binned: once per fit, not per stage
        self._bins_X = callable(getattr(prototype, "bin", None))

    def _input_dtype(self):
        return np.float32 if self._tree_kwargs else "numeric"

    def _allow_nan(self):
        """NaN in X reaches the learners only when they bin it (a NaN bin of their own)."""
        return "allow-nan" if self._bins_X else True

    def _learner_input(self, X):
        """``X`` as the learners read it: binned once (with ``binner_``), or unchanged."""
        if not self._bins_X:
            return X
        return self.binner_.transform(X)

    def _new_learner(self, rng):
        """A fresh copy of the learner that draws from the shared random state."""
        learner = copy.deepcopy(self._prototype)  # clone() would re-inspect every stage
        if self._shares_random_state:
            learner.random_state = rng
        return learner

    def _fit_learner(self, learner, X, z, w):
        """Fit ``h(x; a)`` to target ``z`` by (weighted) least squares; return ``u``."""
        kwargs = dict(self._tree_kwargs) if np.all(w == 1.0) else dict(
            sample_weight=w, **self._tree_kwargs)
        if self._bins_X:  # HistTreeRegressor: u read off the fit (each row's leaf is known)
            u = np.asarray(learner.fit_predict(X, z, **kwargs), dtype=float)
            return u.reshape(len(X), -1) if self.loss_.vector else u
        learner.fit(X, z, **kwargs)
        return self._learner_output(learner, X)

    def _learner_output(self, learner, X):
        kwargs = self._tree_kwargs if isinstance(learner, TREES) else {}
        u = np.asarray(learner.predict(X, **kwargs), dtype=float)
        return u.reshape(len(X), -1) if self.loss_.vector else u.reshape(len(X))

    # -- the loop ---------------------------------------------------------
    def _fit_boosting(self, X, Y, stratify=None):
        """Fit on internal targets ``Y`` (the loss's convention). Sets the fitted attributes."""
        loss = self.loss_
        if self.n_iter_no_change is not None:
            X, X_val, Y, Y_val = train_test_split(
                X, Y, random_state=self.random_state, test_size=self.validation_fraction,
                stratify=stratify,
            )
        n = len(X)
        rng = check_random_state(self.random_state)
        binner = None
        if self._bins_X:  # binned once here; every stage's learner reuses the bins
            X = self._prototype.bin(X)
            binner = X.binner
            if self.n_iter_no_change is not None:
                X_val = binner.transform(X_val)
        self.binner_ = binner
        F = self._fit_init(X, Y, rng)
        self.estimators_, steps, losses = [], [], [loss.mean(Y, F)]
        n_inbag = max(1, int(self.subsample * n))
        bag = None
        if self.n_iter_no_change is not None:
            F_val = self.init_step_ * self._learner_output(self.init_, X_val)
            history = np.full(self.n_iter_no_change, np.inf)
            val_tol = 1e-4 if self.tol is None else self.tol
            factor = SKLEARN_DEVIANCE_FACTOR.get(loss.name, 1.0)
        if self.verbose:
            print(f"{'Iter':>10} {'Train Loss':>16} {'Step':>12} {'Elapsed':>10}")
        start = time.perf_counter()
        for m in range(self.n_estimators):
            if self.subsample < 1.0:
                bag = _random_sample_mask(n, n_inbag, rng).astype(float)
            if self._per_class:
                learner, rho, update = self._fit_stage_per_class(X, Y, F, bag, rng)
            else:
                z, w = self._direction(loss, Y, F)
                learner = self._new_learner(rng)
                u = self._fit_learner(learner, X, z, w if bag is None else w * bag)
                rho, u = self._step(loss, Y, F, u, sample_weight=bag, learner=learner, X=X)
                update = self.learning_rate * rho * u
            F = F + update
            self.estimators_.append(learner)
            steps.append(rho)
            losses.append(loss.mean(Y, F))
            if self.verbose:
                print(f"{m + 1:>10d} {losses[-1]:>16.4f} {np.mean(rho):>12.4g} "
                      f"{time.perf_counter() - start:>9.2f}s")
            if self.n_iter_no_change is not None:
                # scikit-learn's rule: stop unless the validation loss beats
                # one of the last n_iter_no_change values by more than tol
                F_val = F_val + self._stage_output(rho, learner, X_val)
                val_loss = factor * loss.mean(Y_val, F_val)
                if np.any(val_loss + val_tol < history):
                    history[m % len(history)] = val_loss
                else:
                    break
            elif self.tol is not None and abs(losses[-1] - losses[-2]) < self.tol:
                break  # seed 000's stop: the training loss no longer changes
        self.steps_ = np.asarray(steps, dtype=float)
        self.train_loss_ = np.asarray(losses)
        self.n_estimators_ = len(self.estimators_)
        if self._per_class:
            self.estimators_ = _object_array(self.estimators_, Y.shape[1])
        return self

    def _fit_stage_per_class(self, X, Y, F, bag, rng):
        """Steps a–c once per class ``k``, all at the stage start ``F`` (Friedman's Algorithm 6).

        Learner ``k`` is fitted to the direction of the scalar loss
        ``F_k ↦ L(y, F)`` (:class:`~boostlib.losses.Coordinate`: gradient
        ``g_k``, Hessian ``H_kk``) and stepped along it. Returns the ``K``
        learners, their steps ``ρ_k`` and the update ``ν ρ_k u_k``, column by column.
        """
        learners, rhos, update = [], [], np.zeros_like(F)
        for k, coordinate in enumerate(Coordinate.per_class(self.loss_, Y, F)):
            y_k, F_k = Y[:, k], F[:, k]
            z, w = self._direction(coordinate, y_k, F_k)
            learner = self._new_learner(rng)
            u = self._fit_learner(learner, X, z, w if bag is None else w * bag).reshape(len(X))
            rho, u = self._step(coordinate, y_k, F_k, u, sample_weight=bag, learner=learner,
                                X=X)
            update[:, k] = self.learning_rate * rho * u
            learners.append(learner)
            rhos.append(rho)
        return learners, np.asarray(rhos, dtype=float), update

    def _stage_output(self, rho, learner, X):
        """``ν ρ_m h_m(X)``: one stage's update (per class: column ``k`` from learner ``k``)."""
        if not self._per_class:
            return self.learning_rate * rho * self._learner_output(learner, X)
        return np.column_stack([
            self.learning_rate * rho_k * self._learner_output(h_k, X).reshape(len(X))
            for rho_k, h_k in zip(rho, learner, strict=True)
        ])

    def _fit_init(self, X, Y, rng):
        """``F_0``: optimal constant, zero, or ``ρ_0 h_0(x)`` with ``h_0`` fitted to ``y``.

        ``ρ_0`` comes from the ``init_step`` rule (by default the stages' step rule).
        """
        loss = self.loss_
        if self.init == "learner":
            learner = self._new_learner(rng)
            u = self._fit_learner(learner, X, Y, np.ones(len(Y)))
            F_zero = np.zeros_like(u)
            rho, u = self._init_step(loss, Y, F_zero, u, sample_weight=None, learner=learner,
                                     X=X)
            self.init_, self.init_step_ = learner, rho
            return rho * u
        c = loss.optimal_constant(Y) if self.init == "constant" else np.zeros(Y.shape[1:])
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

    def _validate_X(self, X):
        """``X`` checked against the fit, then as the learners read it (binned once)."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, reset=False, dtype=self._input_dtype(), order="C",
                          ensure_all_finite=self._allow_nan())
        return self._learner_input(X)


class BoostingRegressor(RegressorMixin, _Boosting):
    """Boosting for regression: ``F(x) = F_0(x) + ν Σ_m ρ_m h_m(x)``.

    Parameters
    ----------
    loss : str or Loss, default="squared_error"
        ``"squared_error"``, ``"absolute_error"``, ``"huber"`` or, for a
        two-dimensional ``y``, ``"quadratic"`` (seed 001's ``(y − f)ᵀ(y − f)``);
        or a :class:`~boostlib.losses.Loss` instance.
    direction : str, default="gradient"
        What the learner is fitted to: ``"gradient"``, ``"newton"``,
        ``"newton_unweighted"``, ``"newton_raphson"`` (see :mod:`boostlib.directions`).
    step : str, default="leaf_newton"
        How far to go: ``"line_search"``, ``"newton"``, ``"leaf_newton"``,
        ``"constant"`` (see :mod:`boostlib.steps`).
    learner : regressor or None, default=None
        Any scikit-learn regressor, cloned per stage; ``None`` means
        ``DecisionTreeRegressor(max_depth=3)``. Its ``random_state`` is replaced
        by the shared random state. :class:`~boostlib.trees.HistTreeRegressor`
        (XGBoost's tree, chapter 8) bins ``X`` once per fit and accepts NaN.
    n_estimators : int, default=100
        Number of stages ``M``.
    learning_rate : float, default=0.1
        Shrinkage ``ν``.
    init : {"constant", "zero", "learner"}, default="constant"
        ``F_0``: the loss's optimal constant, zero, or ``ρ_0 h_0(x)`` with a
        learner ``h_0`` fitted to ``y``.
    init_step : str or None, default=None
        With ``init="learner"``, the rule for ``ρ_0``: ``None`` uses ``step``
        (seed 001's ``f_0 = γ_0 h_0``), ``"constant"`` gives ``ρ_0 = 1``
        (seed 000's ``F_0 = h_0``); any name ``step`` takes. Ignored otherwise.
    subsample : float, default=1.0
        Fraction of samples drawn without replacement for each stage (Friedman 2002).
    tol : float or None, default=None
        Without ``n_iter_no_change``: stop when the mean training loss changes
        by less than ``tol`` (seed 000's rule, which compares the *summed*
        loss with 1e-3: ``tol = 1e-3 / n_samples``). With it: the improvement
        in validation loss that counts (scikit-learn's ``tol``; 1e-4 if None),
        measured as scikit-learn measures it, twice the mean loss for
        ``"squared_error"`` and ``"log_loss"``.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not improved by ``tol`` in this many
        stages, as scikit-learn does (same split, same rule).
    validation_fraction : float, default=0.1
        Share of the training data held out for ``n_iter_no_change``.
    random_state : int, RandomState or None, default=None
        Seeds subsampling, the validation split and every learner.
    verbose : int, default=0
        Print one line per stage when > 0.

    Attributes
    ----------
    estimators_ : list
        The fitted learners ``h_m``, one per stage.
    steps_ : ndarray of shape (n_estimators_,)
        The steps ``ρ_m``.
    train_loss_ : ndarray of shape (n_estimators_ + 1,)
        The mean training loss after ``F_0`` and after every stage.
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

    def fit(self, X, y):
        """Fit the boosted model to ``X`` of shape (n, d) and ``y`` of shape (n,) or (n, K)."""
        self._check_params()
        loss = get_loss(self.loss)
        if loss.labels is not None:
            raise ValueError(f"loss={loss.name!r} is a classification loss; use BoostingClassifier")
        self._prepare_learners()
        try:
            X, y = validate_data(
                self, X, y, y_numeric=True, multi_output=loss.vector,
                dtype=self._input_dtype(), order="C", ensure_all_finite=self._allow_nan(),
            )
        except ValueError as exc:
            raise _naming_data(exc, "X and y") from exc
        self._y_2d = np.ndim(y) == 2
        self.loss_ = loss
        return self._fit_boosting(X, loss_targets(self, y))

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
        ``"binomial_deviance"`` (``log(1 + e^{−2yF})``, seed 000),
        ``"exponential"`` (AdaBoost) or ``"softmax"``. Labels are mapped to
        each loss's convention internally: ``{0, 1}``, ``{−1, +1}`` or one-hot.

    and one more,

    multiclass : {"per_class", "joint"}, default="per_class"
        How a vector loss (softmax, ``K`` classes) is boosted. ``"per_class"``:
        ``K`` single-output learners per stage, learner ``k`` fitted to class
        ``k``'s column of the direction with the diagonal Hessian
        ``p_k (1 − p_k)``, every one at the stage's start; ``leaf_newton``
        multiplies its leaves by Friedman's ``(K − 1)/K``. This is what
        scikit-learn, XGBoost and LightGBM do, and with the default tree it
        equals ``GradientBoostingClassifier``. ``"joint"``: one multi-output
        learner per stage, fitted to ``−H⁺g`` (``direction="newton"``, with
        the weight of :func:`~boostlib.directions.vector_newton`) or ``−g``.
        Ignored for binary losses.

    Attributes are those of :class:`BoostingRegressor`, plus ``classes_``;
    with ``multiclass="per_class"`` and ``K`` classes, ``estimators_`` is an
    object ndarray of shape ``(n_estimators_, K)`` (learner ``[m, k]`` moves
    the score of ``classes_[k]``) and ``steps_`` has shape ``(n_estimators_, K)``.
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

    def fit(self, X, y):
        """Fit to ``X`` of shape (n, d) and labels ``y`` of any type (at least two classes)."""
        self._check_params()
        if not isinstance(self.multiclass, str) or self.multiclass not in MULTICLASS:
            raise ValueError(f"multiclass={self.multiclass!r} is not one of {list(MULTICLASS)}")
        self._prepare_learners()
        try:
            X, y = validate_data(self, X, y, dtype=self._input_dtype(), order="C",
                                 ensure_all_finite=self._allow_nan())
        except ValueError as exc:
            raise _naming_data(exc, "X and y") from exc
        try:
            check_classification_targets(y)
        except ValueError as exc:
            raise _naming_data(exc, "y") from exc
        encoder = LabelEncoder().fit(y)
        self.classes_ = encoder.classes_
        K = len(self.classes_)
        if K < 2:
            raise ValueError(
                f"y has only one class ({self.classes_[0]!r}); "
                "a classifier needs at least 2 classes"
            )
        codes = encoder.transform(y)
        loss = get_loss(self.loss)
        if loss.name == "log_loss" and K > 2:
            loss = Softmax()
        if not isinstance(loss, Loss) or loss.labels is None:
            raise ValueError(f"loss={loss.name!r} is a regression loss; use BoostingRegressor")
        if K > 2 and not loss.vector:
            raise ValueError(f"loss={loss.name!r} is binary only, but y has {K} classes")
        self.loss_ = loss
        self._per_class = loss.vector and self.multiclass == "per_class"
        return self._fit_boosting(X, loss_targets(self, y), stratify=codes)

    def decision_function(self, X):
        """The raw score ``F_M(x)``: shape (n,) for two classes, (n, K) for more."""
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
        codes = F.argmax(axis=1) if F.ndim == 2 else (F > 0).astype(int)
        return self.classes_[codes]

    def predict(self, X):
        """The most probable class (binary: ``F > 0``)."""
        return self._labels(self.decision_function(X))

    def staged_predict(self, X):
        """Yield the predicted classes after every stage."""
        for F in self.staged_decision_function(X):
            yield self._labels(F)
