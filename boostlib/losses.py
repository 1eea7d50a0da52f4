r"""Loss functions: value, gradient, Hessian and optimal constant in one object.

Conventions (chapter 3, "Losses and their derivatives"), in the book's symbols:

* ``y`` is the target in the loss's own convention (see :attr:`Loss.labels`),
  ``F`` is the model's raw output (the *score*), ``L(y, F)`` the per-sample loss.
* A **scalar** loss takes ``y`` and ``F`` of shape ``(N,)`` (``N`` samples) and
  returns ``L``, ``g = ∂L/∂F`` and ``h = ∂²L/∂F²`` of shape ``(N,)``.
* A **vector** loss (``vector = True``) takes ``y`` and ``F`` of shape
  ``(N, K)``; ``L`` has shape ``(N,)``, the gradient ``g`` shape ``(N, K)`` and
  the Hessian ``H`` shape ``(N, K, K)``.
* Every method is safe for finite ``F`` with ``|F|`` up to ``1e4``: no overflow
  warning, no ``inf`` and no ``NaN``.

Boosting code never differentiates a loss itself: it asks the loss object.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange
from scipy.optimize import minimize_scalar
from scipy.special import expit, logit, logsumexp, softmax

# scikit-learn's link and compiled losses, for the last bits (see _compiled).
from sklearn._loss.link import MultinomialLogit
from sklearn._loss.loss import ExponentialLoss, HalfBinomialLoss, HalfMultinomialLoss

from .row_blocks import by_row_blocks, loop_thread_count
from .trees.threads import PRANGE_ONLY, using_threads

__all__ = [
    "Loss",
    "SquaredError",
    "AbsoluteError",
    "Huber",
    "LogLoss",
    "BinomialDeviance",
    "Exponential",
    "Quadratic",
    "Softmax",
    "Coordinate",
    "LossAt",
    "LOSSES",
    "get_loss",
    "weighted_lower_median",
]

# The exponential loss clips its exponent at 650 (e^650 ~ 1e282): finite, and a
# sum over 1e25 such samples still fits in float64.
EXP_CLIP = 650.0
# Probabilities are kept in [P_CLIP, 1 - P_CLIP] when turned into log-odds.
P_CLIP = 1e-15
_HALF_BINOMIAL, _EXPONENTIAL = HalfBinomialLoss(), ExponentialLoss()
# The class shares of softmax's optimal constant are clipped as scikit-learn's
# gradient boosting clips its prior: to [eps, 1 - eps].
SHARE_CLIP = np.finfo(np.float64).eps


def _average(values, sample_weight):
    """Weighted mean over samples (axis 0); plain mean when no weights."""
    return np.average(values, axis=0, weights=sample_weight)


def _weighted_shares(codes, K, sample_weight):
    """The weighted share of each class ``k < K`` among integer ``codes``, ``Σ_{y=k} s / Σ s``
    (``s`` the sample weights).

    Summed as scikit-learn's ``DummyClassifier(strategy="prior")`` sums them (``np.bincount``),
    so that weighted fits start where its gradient boosting starts, to the last bit.
    """
    counts = np.bincount(np.asarray(codes, dtype=np.intp), weights=sample_weight, minlength=K)
    return counts / counts.sum()


def _compiled(method, y, F):
    """``method(y, F)`` of a scikit-learn compiled loss, for arrays of any matching shape.

    scikit-learn's compiled losses call the C library's ``exp``; numpy's
    vectorised ``exp`` differs from it in the last bit on a few per cent of
    inputs (AVX-512). Trees fitted to gradients that differ in the last bit
    can break a tie between two splits differently, so boostlib takes these
    gradients from scikit-learn to grow the same trees (subsampled fits too).
    Evaluated on blocks of rows, one per thread of the loop (:mod:`boostlib.row_blocks`).
    """
    y, F = np.broadcast_arrays(np.asarray(y, dtype=float), np.asarray(F, dtype=float))
    out = by_row_blocks(method, np.ascontiguousarray(y).ravel(), np.ascontiguousarray(F).ravel(),
                        out_keyword=f"{method.__name__}_out")  # loss_out=, gradient_out=
    return out.reshape(F.shape)


def weighted_lower_median(values, sample_weight=None):
    r"""The lower weighted median: the smallest ``v`` with ``Σ_{values ≤ v} s ≥ ½ Σ s``
    (``s`` the sample weights).

    This is the inverted-CDF median that scikit-learn's gradient boosting
    uses for the leaves of absolute-error trees. With unit weights and an even
    count it is the lower of the two middle values.
    """
    values = np.asarray(values, dtype=float)
    w = np.ones_like(values) if sample_weight is None else np.asarray(sample_weight, float)
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(w[order])
    k = np.searchsorted(cumulative, 0.5 * cumulative[-1], side="left")
    return float(values[order][min(k, len(values) - 1)])


class Loss:
    """A loss ``L(y, F)`` with its derivative family.

    Attributes
    ----------
    name : str
        The string name estimators accept (``loss="..."``).
    labels : tuple or None
        For classification losses, the label values the loss expects for
        ``(negative, positive)`` classes: ``(0, 1)`` or ``(-1, 1)``; ``None``
        for regression losses. Vector classification losses use one-hot rows.
    vector : bool
        ``True`` when ``F`` is a vector per sample (shape ``(N, K)``).
    positive_hessian : bool
        ``True`` when the Hessian vanishes only along directions that are the
        same at every finite ``F`` and that boostlib's directions never take:
        ``h > 0`` for a scalar loss; for a vector loss ``H ⪰ 0`` with a fixed
        kernel (none for :class:`Quadratic`, ``H = 2I``; the line of
        ``(1, …, 1)`` for :class:`Softmax`, whose ``H`` is never positive
        definite). For ``H_i ⪰ 0`` the Newton step on ρ (chapter 5) divides by
        ``φ″(0) = Σ s_i u_iᵀH_i u_i``, which is positive exactly when some
        ``u_i`` with ``s_i > 0`` (a stage's weights are 0 off its subsample) lies
        outside the kernel of ``H_i``: a positive-definite Hessian
        is sufficient, not necessary. It is needed only for ``−H_i⁻¹g_i`` to be
        the unique minimiser of the second-order model over every ``u_i``;
        boostlib's Newton direction takes ``−H_i⁺g_i``. ``False`` when ``h = 0``
        on part of the domain (absolute error everywhere, Huber beyond δ):
        ``step="newton"`` and ``direction="newton"`` refuse such a loss.
    hessian_is_exact : bool
        ``False`` for the absolute error, whose :meth:`hessian` (0) says
        nothing of its curvature (undefined at ``F = y``); ``True`` for the
        others, though Huber's is the one-sided value at ``|y − F| = δ`` and the
        exponential loss's is exact only while ``|yF| ≤ 650`` (see each loss).
        Nothing in boostlib reads it.
    """

    name = "loss"
    labels = None
    vector = False
    positive_hessian = True
    hessian_is_exact = True
    one_pass = False  # loss_gradient_hessian(y, F, out=None) costs less than the three
    # methods, and may write into out (float64, shape (3, N)): use the arrays it returns

    def __call__(self, y, F):
        """Per-sample loss ``L(y, F)``, shape ``(N,)``."""
        raise NotImplementedError

    def gradient(self, y, F):
        """``g = ∂L/∂F`` at ``F``, same shape as ``F``."""
        raise NotImplementedError

    def hessian(self, y, F):
        """``h = ∂²L/∂F²`` at ``F``: shape ``(N,)``, or ``(N, K, K)`` for vector losses."""
        raise NotImplementedError

    def gradient_hessian(self, y, F):
        """``(g, h)`` at ``F``, as :meth:`gradient` and :meth:`hessian` give them (a loss
        may compute both in one pass, to the same bits)."""
        return self.gradient(y, F), self.hessian(y, F)

    def loss_gradient_hessian(self, y, F):
        """``(L(y, F), g, h)``, as the three methods give them (one pass where a loss can)."""
        return self(y, F), self.gradient(y, F), self.hessian(y, F)

    def optimal_constant(self, y, sample_weight=None):
        """``argmin_c Σ s L(y, c)``: the best constant model, where boosting starts."""
        raise NotImplementedError

    def mean(self, y, F, sample_weight=None):
        """The (weighted) mean loss ``Σ s L(y, F) / Σ s``, ``s`` the sample weights."""
        return float(_average(self(y, F), sample_weight))

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"


class SquaredError(Loss):
    r"""Half squared error ``L = ½ (y − F)²``.

    ``g = F − y`` (so the pseudo-response ``−g`` is the residual),
    ``h = 1``; the ½ is there to make the Hessian one. Optimal constant: the
    weighted mean of ``y``. Derived in chapter 2, eq. (l2-gradient).
    """

    name = "squared_error"

    def __call__(self, y, F):
        return 0.5 * (y - F) ** 2

    def gradient(self, y, F):
        return F - y

    def hessian(self, y, F):
        return np.ones_like(F, dtype=float)

    def optimal_constant(self, y, sample_weight=None):
        return float(_average(y, sample_weight))


class AbsoluteError(Loss):
    r"""Absolute error ``L = |y − F|``.

    ``g = sign(F − y)``, and at the kink ``F = y`` the subgradient ``−1``
    (any value in ``[−1, 1]`` is one; ``−1`` is scikit-learn's, and a weighted
    fit starts at a weighted median, which is one of the ``y``: with it the
    first tree is scikit-learn's); the Hessian is zero wherever it exists (``F ≠ y``),
    so :meth:`hessian` returns zeros and Newton directions are undefined.
    Optimal constant: a median of ``y``; ``np.median`` (the midpoint of the
    two middle values) without weights, the lower weighted median with them,
    as scikit-learn does. Every point between the two middle values minimises
    ``Σ |y − c|``.
    """

    name = "absolute_error"
    positive_hessian = False
    hessian_is_exact = False  # zero almost everywhere; undefined at F = y

    def __call__(self, y, F):
        return np.abs(y - F)

    def gradient(self, y, F):
        return np.where(F > y, 1.0, -1.0)  # −1 at F = y, as scikit-learn's AbsoluteError

    def hessian(self, y, F):
        return np.zeros_like(F, dtype=float)

    def optimal_constant(self, y, sample_weight=None):
        if sample_weight is None:
            return float(np.median(y))
        return weighted_lower_median(y, sample_weight)


class Huber(Loss):
    r"""Huber loss with threshold ``δ`` on the residual ``r = y − F``.

    ``L = ½ r²`` for ``|r| ≤ δ``, else ``δ (|r| − ½ δ)``;
    ``g = −r`` for ``|r| ≤ δ``, else ``−δ sign(r)``;
    ``h = 1`` for ``|r| ≤ δ``, else ``0`` (exact except at ``|r| = δ``).
    The optimal constant has no closed form: scipy's bounded Brent search
    over ``[min y, max y]``.
    """

    name = "huber"
    positive_hessian = False

    def __init__(self, delta=1.0):
        if not delta > 0:
            raise ValueError(f"Huber delta must be positive, got {delta!r}")
        self.delta = float(delta)

    def __call__(self, y, F):
        r = np.abs(y - F)
        return np.where(r <= self.delta, 0.5 * r**2, self.delta * (r - 0.5 * self.delta))

    def gradient(self, y, F):
        r = y - F
        return np.where(np.abs(r) <= self.delta, -r, -self.delta * np.sign(r))

    def hessian(self, y, F):
        return (np.abs(y - F) <= self.delta).astype(float)

    def optimal_constant(self, y, sample_weight=None):
        y = np.asarray(y, float)
        if y.min() == y.max():
            return float(y[0])
        result = minimize_scalar(
            lambda c: self.mean(y, np.full_like(y, c), sample_weight),
            bounds=(y.min(), y.max()),
            method="bounded",
            options={"xatol": 1e-10 * max(1.0, np.ptp(y))},
        )
        return float(result.x)


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def _logistic_loss_gradient_hessian(y, F, out):
    """``out[0] = L``, ``out[1] = g = p − y``, ``out[2] = h = σ(F) σ(−F)``: two ``exp`` and at
    most one ``log`` per row, where the three methods of :class:`LogLoss` take four ``exp``
    (one for ``L``, one for ``g``, two for ``h``) and at most one ``log``.

    The same bits as each method: ``L = log(1 + e^F) − y F`` by scikit-learn's branches
    (``log1pexp``), ``g = ((1 − y) − y e^{−F}) / (1 + e^{−F})`` (``e^F − y`` for
    ``F ≤ −37``) as scikit-learn computes it, and ``h = expit(F) · expit(−F)`` with scipy's
    ``expit(x) = 1 / (1 + e^{−x})``: ``e^{−F}`` and ``e^F`` serve all three. Rows are
    shared out among numba's threads, the trees' own: each row's values are its own.
    """
    for i in prange(len(F)):
        e_minus, e_plus = math.exp(-F[i]), math.exp(F[i])
        if F[i] <= -37:
            log1pexp = e_plus
        elif F[i] <= -2:
            log1pexp = math.log1p(e_plus)
        elif F[i] <= 18:
            log1pexp = math.log(1.0 + e_plus)
        elif F[i] <= 33.3:
            log1pexp = F[i] + e_minus
        else:
            log1pexp = F[i]
        out[0, i] = log1pexp - y[i] * F[i]
        if F[i] > -37:
            out[1, i] = ((1 - y[i]) - y[i] * e_minus) / (1 + e_minus)
        else:
            out[1, i] = e_plus - y[i]
        out[2, i] = (1 / (1 + e_minus)) * (1 / (1 + e_plus))


def _logistic_curvature(F):
    """``σ(F) σ(−F) = p (1 − p)``, the log loss's Hessian, in one temporary less."""
    h = expit(F)
    h *= expit(-F)
    return h


class LogLoss(Loss):
    r"""Binary log loss with labels ``y ∈ {0, 1}`` and ``F`` the log-odds.

    ``L = log(1 + e^F) − y F``, ``p = σ(F) = 1 / (1 + e^{−F})``,
    ``g = p − y``, ``h = p (1 − p)`` (exact). Optimal constant:
    ``log(p̄ / (1 − p̄))``, ``p̄`` the share of labels 1. This is scikit-learn's ``HalfBinomialLoss``.
    """

    name = "log_loss"
    labels = (0, 1)
    one_pass = True

    def __call__(self, y, F):
        # log(1 + e^F) − y F, by scikit-learn's compiled loss (2× numpy's logaddexp)
        return _compiled(_HALF_BINOMIAL.loss, y, F)

    def gradient(self, y, F):
        # p − y as scikit-learn's HalfBinomialLoss computes it, to the last bit
        return _compiled(_HALF_BINOMIAL.gradient, y, F)

    def hessian(self, y, F):
        # σ(F) σ(−F): no cancellation at any F. (e^{−|F|}/(1 + e^{−|F|})² is one exp
        # cheaper but differs in the last bits, and those bits flip tied splits: newton +
        # constant then stops being the same model as newton + leaf_newton, chapter 7.)
        # Row by row, so on blocks of rows, one per thread (boostlib.row_blocks).
        return by_row_blocks(_logistic_curvature, F)

    def loss_gradient_hessian(self, y, F, out=None):
        # one pass, to the same bits; out: float64 (3, N) to write them into
        y, F = np.broadcast_arrays(np.asarray(y, dtype=float), np.asarray(F, dtype=float))
        if F.ndim != 1:
            return super().loss_gradient_hessian(y, F)
        if out is None or out.shape != (3, len(F)) or out.dtype != np.float64:
            out = np.empty((3, len(F)))
        # on numba's threads, as many as the loop's (row_blocks): a second pool of threads
        # would wait for cores that numba's threads still hold after a tree's kernels
        with using_threads(loop_thread_count()):
            _logistic_loss_gradient_hessian(np.ascontiguousarray(y), np.ascontiguousarray(F), out)
        values, g, h = out
        return values, g, h

    def gradient_hessian(self, y, F):
        return self.loss_gradient_hessian(y, F)[1:]

    def optimal_constant(self, y, sample_weight=None):
        y = np.asarray(y, dtype=float)  # float32 labels: the mean in float64 all the same
        if sample_weight is None or not np.isin(y, (0, 1)).all():
            p = _average(y, sample_weight)
        else:
            p = _weighted_shares(y, 2, sample_weight)[1]
        # scipy's logit, as scikit-learn computes its starting value: the same bits,
        # so that subsampled fits stay identical to its gradient boosting
        return float(logit(np.clip(p, P_CLIP, 1 - P_CLIP)))

    def predict_proba(self, F):
        """Probability of the positive class, ``σ(F)``."""
        return expit(F)


class _HalfLogOdds(Loss):
    """Labels ``y ∈ {−1, +1}`` and ``F`` half the log-odds: ``P(y = 1 | x) = σ(2F)``.

    Shared by the binomial deviance and the exponential loss, whose best
    constant is the same: ``½ log(p̄ / (1 − p̄))``, ``p̄`` the weighted rate of ``y = 1``
    (``½ logit(p̄)``, scikit-learn's ``HalfLogitLink`` arithmetic).
    """

    labels = (-1, 1)

    def optimal_constant(self, y, sample_weight=None):
        y01 = (np.asarray(y, dtype=float) + 1) / 2
        if sample_weight is None or not np.isin(y01, (0, 1)).all():
            p = _average(y01, sample_weight)
        else:
            p = _weighted_shares(y01, 2, sample_weight)[1]
        return float(0.5 * logit(np.clip(p, P_CLIP, 1 - P_CLIP)))

    def predict_proba(self, F):
        """Probability of the positive class, ``σ(2F)``."""
        return expit(2.0 * F)


class BinomialDeviance(_HalfLogOdds):
    r"""Friedman's binomial deviance ``L = log(1 + e^{−2yF})``, ``y ∈ {−1, +1}``.

    Friedman calls it the negative binomial log-likelihood, ESL (§10.5) the binomial
    deviance; it is 1 × the negative log-likelihood, and the statistician's deviance,
    ``−2 ×`` the log-likelihood, is twice that (chapter 4, "Factors of two").

    ``F`` is *half* the log-odds: ``P(y = 1 | x) = σ(2F)`` (the *Newton Boosting* post's loss,
    Friedman 2001 §4.5). ``g = −2 y σ(−2yF)`` and
    ``h = 4 σ(−2yF) (1 − σ(−2yF)) = 4 σ(2yF) σ(−2yF)`` (exact, using ``y² = 1``).
    Optimal constant: ``½ log(p̄ / (1 − p̄))`` with ``p̄`` the rate of ``y = 1``.
    """

    name = "binomial_deviance"

    # row by row, so on blocks of rows, one per thread (boostlib.row_blocks)
    def __call__(self, y, F):
        return by_row_blocks(lambda y, F: np.logaddexp(0.0, -2.0 * y * F), y, F)

    def gradient(self, y, F):
        return by_row_blocks(lambda y, F: -2.0 * y * expit(-2.0 * y * F), y, F)

    def hessian(self, y, F):
        return by_row_blocks(lambda y, F: 4.0 * expit(-2.0 * y * F) * expit(2.0 * y * F), y, F)


class Exponential(_HalfLogOdds):
    r"""AdaBoost's exponential loss ``L = e^{−yF}``, ``y ∈ {−1, +1}``.

    ``g = −y e^{−yF}``, ``h = e^{−yF} = −y g`` (exact while ``|yF| ≤ 650``;
    beyond, ``F`` is clipped to ``±650`` so that values stay finite: ``L`` and
    ``h`` are ``e^{650}`` where ``−yF > 650``, and ``g``, ``h`` are
    ``∓e^{−650}``, ``e^{−650}``, not 0, where ``yF > 650``). ``F`` is half the
    log-odds, ``P(y = 1 | x) = σ(2F)`` (Friedman, Hastie & Tibshirani 2000).
    Optimal constant: ``½ log(Σ_{y=1} s / Σ_{y=−1} s)``.
    """

    name = "exponential"

    def _e(self, y, F):
        # row by row, so on blocks of rows, one per thread (boostlib.row_blocks)
        return by_row_blocks(lambda y, F: np.exp(np.minimum(-y * F, EXP_CLIP)), y, F)

    def __call__(self, y, F):
        return self._e(y, F)

    def gradient(self, y, F):
        # −y e^{−yF} as scikit-learn's ExponentialLoss computes it, to the last
        # bit: −y/e^F + (1 − y) e^F with labels 0/1, which needs e^F finite (0 · inf)
        F = np.clip(F, -EXP_CLIP, EXP_CLIP)
        return _compiled(_EXPONENTIAL.gradient, (np.asarray(y) + 1) / 2, F)

    def hessian(self, y, F):
        # |g| = −y g = e^{−yF}, the same bits as the gradient's: the Newton
        # target −g/h is then exactly y (Gentle AdaBoost fits the labels).
        return -np.asarray(y) * self.gradient(y, F)


class LossAt:
    """The loss at one point ``(y, F)`` of the loop: ``L``, ``g`` and ``h`` there, each
    computed once, all three in one pass where the loss has one (``one_pass``).

    The loop reads the loss at ``F_m`` for two things: its mean is the training loss of
    stage ``m``, and its gradient and Hessian give stage ``m + 1``'s direction. (The
    step is given the loss itself, and a step that reads ``g`` and ``h`` computes them
    again.) Everything else is the loss's own: its attributes, and its values at any
    other point. The arrays it hands out are read-only, since two readers may share them,
    and valid until a later ``LossAt`` takes its memory: copy them to keep them.

    ``reuse``: the previous stage's ``LossAt``, whose memory this one takes over for a
    loss computed in one pass (the previous one's arrays are then overwritten, and it
    forgets them). A fresh array of a hundred megabytes costs the operating system
    time of its own on top of the pass that fills it: its pages are zeroed on first touch.
    """

    def __init__(self, loss, y, F, reuse=None):
        self.loss, self.y, self.F = loss, y, F
        self._kept = [None, None, None]  # L, g, h
        self._memory = None
        if reuse is not None and reuse._memory is not None:
            self._memory, reuse._memory, reuse._kept = reuse._memory, None, [None] * 3

    def __getattr__(self, name):
        if name == "loss" or name.startswith("__"):  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.loss, name)

    def _here(self, y, F):
        return y is self.y and F is self.F

    def _get(self, k):
        if self._kept[k] is None:
            if self.loss.one_pass:
                if self._memory is None:
                    self._memory = np.empty((3, len(self.F)))
                self._kept = list(self.loss.loss_gradient_hessian(self.y, self.F,
                                                                  out=self._memory))
            else:
                method = (self.loss.__call__, self.loss.gradient, self.loss.hessian)[k]
                self._kept[k] = np.asarray(method(self.y, self.F))
            for array in self._kept:
                if array is not None:
                    array.flags.writeable = False
        return self._kept[k]

    def __call__(self, y, F):
        return self._get(0) if self._here(y, F) else self.loss(y, F)

    def gradient(self, y, F):
        return self._get(1) if self._here(y, F) else self.loss.gradient(y, F)

    def hessian(self, y, F):
        return self._get(2) if self._here(y, F) else self.loss.hessian(y, F)

    def gradient_hessian(self, y, F):
        if not self._here(y, F):
            return self.loss.gradient_hessian(y, F)
        return self._get(1), self._get(2)

    def loss_gradient_hessian(self, y, F):
        if not self._here(y, F):
            return self.loss.loss_gradient_hessian(y, F)
        return self._get(0), self._get(1), self._get(2)

    def mean(self, y, F, sample_weight=None):
        return Loss.mean(self, y, F, sample_weight)

    def __repr__(self):
        return f"LossAt({self.loss!r})"


class Quadratic(Loss):
    r"""Multi-output quadratic loss ``L = (y − F)ᵀ(y − F)`` (Damião's *Boosted Neural Networks*).

    ``y`` and ``F`` have shape ``(N, K)``. No ½ in front, as in the source:
    ``g = −2 (y − F)``, ``H = 2 I`` (exact), so the Newton direction
    ``−H⁻¹ g`` is the residual ``y − F``. Optimal constant: the column means.
    """

    name = "quadratic"
    vector = True

    def __call__(self, y, F):
        return np.sum((y - F) ** 2, axis=1)

    def gradient(self, y, F):
        return -2.0 * (y - F)

    def hessian(self, y, F):
        N, K = np.shape(F)
        return np.broadcast_to(2.0 * np.eye(K), (N, K, K)).copy()

    def optimal_constant(self, y, sample_weight=None):
        return np.asarray(_average(y, sample_weight), dtype=float)


class Softmax(Loss):
    r"""Multinomial log loss for ``K`` classes, ``y`` one-hot of shape ``(N, K)``.

    ``p = softmax(F)``, ``L = log Σ_k e^{F_k} − Σ_k y_k F_k``, ``g = p − y``,
    ``H = diag(p) − p pᵀ`` (exact). ``H`` is singular along ``(1, …, 1)``
    because adding a constant to every ``F_k`` changes nothing; the Newton
    direction handles that (see :mod:`boostlib.directions`). Optimal constant:
    the log class shares, centred to sum to zero (``log p_k − mean_j log p_j``,
    computed as scikit-learn's ``MultinomialLogit`` link computes it).
    Its diagonal, ``H_kk = p_k (1 − p_k)``, is the curvature of ``L`` in ``F_k``
    alone: what boosting per class uses (:class:`Coordinate`).
    """

    name = "softmax"
    labels = (0, 1)
    vector = True

    def __call__(self, y, F):
        return logsumexp(F, axis=1) - np.sum(y * F, axis=1)

    def gradient(self, y, F):
        y = np.asarray(y, dtype=float)
        codes = y.argmax(axis=1)
        if not np.array_equal(y, np.eye(y.shape[1])[codes]):
            return softmax(F, axis=1) - y  # soft labels: not scikit-learn's case
        # p − y as scikit-learn's HalfMultinomialLoss computes it, to the last bit
        # (per-class fits then grow its trees; see _compiled)
        return HalfMultinomialLoss(n_classes=y.shape[1]).gradient(
            y_true=codes.astype(float), raw_prediction=np.ascontiguousarray(F, dtype=float)
        )

    def hessian(self, y, F):
        p = softmax(F, axis=1)
        return np.einsum("ij,jk->ijk", p, np.eye(p.shape[1])) - np.einsum("ij,ik->ijk", p, p)

    def diagonal_hessian(self, y, F):
        """``H_kk = p_k (1 − p_k)``, shape ``(N, K)``: the curvature in each ``F_k`` alone."""
        p = softmax(F, axis=1)
        return p * (1 - p)

    def optimal_constant(self, y, sample_weight=None):
        y = np.asarray(y, dtype=float)
        codes = y.argmax(axis=1)
        if sample_weight is None or not np.array_equal(y, np.eye(y.shape[1])[codes]):
            share = _average(y, sample_weight)
        else:
            share = _weighted_shares(codes, y.shape[1], sample_weight)
        share = np.clip(share, SHARE_CLIP, 1 - SHARE_CLIP)
        return MultinomialLogit().link(share[None, :])[0]

    def predict_proba(self, F):
        """Class probabilities ``softmax(F)``, shape ``(N, K)``."""
        return softmax(F, axis=1)


class Coordinate(Loss):
    r"""A vector loss seen along one score: ``L_k(F_k) = L(y, F)``, the other ``F_j`` held fixed.

    Boosting per class (chapter 4, "One learner per class") fits one
    single-output learner to each class's score in turn, every one at the same
    stage start ``F``. Along ``F_k`` alone the loss is a scalar loss with
    ``g = ∂L/∂F_k`` (column ``k`` of the gradient) and ``h = ∂²L/∂F_k² = H_kk``,
    the diagonal of the Hessian: ``p_k (1 − p_k)`` for softmax. Every direction
    and step of the scalar losses then applies unchanged.

    Its methods take ``(y, F_k)`` like any scalar loss: ``y`` is ``Y[:, k]``
    (the loss reads all of ``Y``), ``F_k`` of shape ``(N,)`` replaces ``F[:, k]``.

    ``leaf_factor`` is what ``step="leaf_newton"`` multiplies each leaf's
    Newton value by: Friedman's ``(K − 1)/K`` for softmax (his Algorithm 6,
    which scikit-learn's ``GradientBoostingClassifier`` keeps; LightGBM gets the
    same leaves by multiplying the Hessian by ``K/(K − 1)``), 1 otherwise.

    Parameters
    ----------
    loss : Loss
        The vector loss (``vector = True``).
    Y, F : ndarray of shape (N, K)
        The targets and the scores at the start of the stage.
    k : int
        The score this view moves.
    """

    def __init__(self, loss, Y, F, k):
        if not loss.vector:
            raise ValueError(f"Coordinate needs a vector loss, got {loss.name!r}")
        self.loss, self.k = loss, int(k)
        self.Y, self.F = np.asarray(Y, dtype=float), np.asarray(F, dtype=float)
        K = self.F.shape[1]
        self.name = f"{loss.name}[{self.k}]"
        self.labels, self.positive_hessian = loss.labels, loss.positive_hessian
        self.leaf_factor = (K - 1) / K if isinstance(loss, Softmax) else 1.0
        self._g = None  # the full gradient at F, computed once

    def __repr__(self):
        return f"Coordinate({self.loss!r}, k={self.k})"

    def _scores(self, F_k):
        if F_k is None or np.array_equal(F_k, self.F[:, self.k]):
            return None  # the stage start itself
        F = self.F.copy()
        F[:, self.k] = F_k
        return F

    def __call__(self, y, F_k):
        F = self._scores(F_k)
        return self.loss(self.Y, self.F if F is None else F)

    def gradient(self, y, F_k):
        F = self._scores(F_k)
        if F is not None:
            return self.loss.gradient(self.Y, F)[:, self.k]
        if self._g is None:
            self._g = self.loss.gradient(self.Y, self.F)
        return self._g[:, self.k].copy()

    def hessian(self, y, F_k):
        F = self._scores(F_k)
        F = self.F if F is None else F
        if isinstance(self.loss, Softmax):
            return self.loss.diagonal_hessian(self.Y, F)[:, self.k]
        return self.loss.hessian(self.Y, F)[:, self.k, self.k]

    @classmethod
    def per_class(cls, loss, Y, F):
        """The ``K`` coordinates of ``loss`` at ``F``; they share one gradient evaluation."""
        coordinates = [cls(loss, Y, F, k) for k in range(np.shape(F)[1])]
        g = loss.gradient(Y, F)
        for c in coordinates:
            c._g = g
        return coordinates


#: The losses by the name the estimators' ``loss`` takes.
#:
#: :meta hide-value:
LOSSES = {
    cls.name: cls
    for cls in (
        SquaredError,
        AbsoluteError,
        Huber,
        LogLoss,
        BinomialDeviance,
        Exponential,
        Quadratic,
        Softmax,
    )
}


def get_loss(loss):
    """A :class:`Loss` from its name, or the instance itself.

    Raises ``ValueError`` naming the parameter for an unknown name.
    """
    if isinstance(loss, Loss):
        return loss
    if isinstance(loss, str) and loss in LOSSES:
        return LOSSES[loss]()
    raise ValueError(f"loss={loss!r} is not one of {sorted(LOSSES)} or a boostlib Loss instance")
