r"""Gradient descent in parameter space and in function space (chapters 1 and 2).

Both are the same loop, the update of Lei Mao's *Gradient Boosting Machine* with an exact
line search:

* **parameter space** (chapter 1): the model is ``F(x; P)``, the objective
  ``Φ(P) = E[L(y, F(x; P))]``, which the code has as its training mean
  ``(1/N) Σ_i L(y_i, F(x_i; P))`` (chapter 1's eq. ``param-empirical``);
  ``g_t = ∇Φ(P_{t−1})`` (eq. ``param-gradient``),
  ``P_t = P_{t−1} − ρ_t g_t`` (eq. ``param-update``).
* **function space** (chapter 2): the parameters are the values ``F(x_i)`` at
  the ``N`` training points; at stage ``m``, ``g_m(x_i) = ∂L(y_i, F)/∂F`` at
  ``F_{m−1}(x_i)`` (eq. ``function-gradient``), ``F_m = F_{m−1} − ρ_m g_m``
  (eq. ``function-update``).

Chapter 1 counts the steps of parameter descent by ``t``; chapter 2 counts the
stages in function space by ``m``, as boosting does. In both the step is the
exact line search, ``ρ_t = argmin_ρ Φ(P_{t−1} − ρ g_t)`` (eq.
``param-line-search``, ``Φ`` the training mean) and
``ρ_m = argmin_ρ (1/N) Σ_i L(y_i, F_{m−1}(x_i) − ρ g_m(x_i))`` (eq.
``function-line-search``: the training mean, not chapter 2's expectation ``Φ``,
whose minimiser differs), unless a fixed step ``ρ`` is given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from boostlib.losses import get_loss
from boostlib.steps import line_search, root_of_slope

__all__ = [
    "DescentPath",
    "function_descent",
    "linear_model_risk",
    "minimise_along",
    "parameter_descent",
]

# Bracketing doubles or halves the trial step at most this many times:
# 2**±200 covers every step size float64 can usefully take.
MAX_BRACKET_STEPS = 200


@dataclass(frozen=True, repr=False)
class DescentPath:
    """The iterates of a descent run of ``n_steps`` updates, ``t = 1, …, n_steps``.

    Written in chapter 1's symbols, the step ``t`` and the parameters ``P``, a
    vector of ``n_params`` numbers (the number of parameters). In function space
    (chapter 2) read the stage ``m`` for ``t``, the number of stages ``M`` for
    ``n_steps`` and ``F`` for ``P``: there ``n_params = N`` and row ``m`` of
    ``params`` holds ``F_m(x_1), …, F_m(x_N)`` (for a vector loss each entry is
    itself a vector of ``K``).

    Attributes
    ----------
    params : ndarray, shape (n_steps + 1, n_params)
        ``P_0, P_1, …``, the start and the iterate after each step.
    values : ndarray, shape (n_steps + 1,)
        ``Φ`` at each iterate.
    rhos : ndarray, shape (n_steps,)
        The step sizes ``ρ_1, ρ_2, …``.
    gradients : ndarray, shape (n_steps, n_params)
        ``g_1, g_2, …``: ``g_t`` is taken at ``P_{t−1}``.
    """

    params: np.ndarray
    values: np.ndarray
    rhos: np.ndarray
    gradients: np.ndarray

    @property
    def steps(self):
        """The increments ``−ρ_t g_t``, one row per step, shape (n_steps, n_params).

        Row ``t − 1`` holds ``−ρ_t g_t = P_t − P_{t−1}`` (eq. ``param-update``),
        so the first ``t`` rows add up to ``P_t − P_0`` (eq. ``param-unrolled``).
        """
        return -self.rhos.reshape((-1,) + (1,) * (self.gradients.ndim - 1)) * self.gradients

    def __repr__(self):
        return (
            f"DescentPath(n_steps={len(self.rhos)}, "
            f"Φ: {self.values[0]:.4g} → {self.values[-1]:.4g})"
        )


def minimise_along(phi, slope=None, guess=1.0):
    r"""``argmin_{ρ ≥ 0} φ(ρ)`` for a function ``φ`` of the step size alone.

    The line search of chapter 1, ``φ(ρ) = Φ(P − ρ g)``. The minimum
    is the global one when ``φ`` is unimodal, as it is for convex ``Φ``.

    Without ``slope``: starting at ``ρ = guess``, the step is halved until
    ``φ(ρ) < φ(0)``, then doubled until ``φ`` rises, which brackets a
    minimiser; scipy's bounded Brent method refines it in the scaled variable
    ``ρ / ρ_bracket`` (relative precision about 1e-8 at any scale).

    With ``slope`` (``φ′``; for ``φ(ρ) = Φ(P − ρ g)`` it is
    ``−∇Φ(P − ρ g)ᵀ g``): the step is doubled until ``φ′(ρ) ≥ 0`` and the root
    of ``φ′`` is found by scipy's ``brentq``. This is the exact line-search
    condition, chapter 1 eq. ``zig-zag``, and it stays accurate near the
    optimum, where ``φ`` changes by less than round-off long before ``φ′``
    does.

    Returns ``0.0`` when no ``ρ > 0`` lowers ``φ`` (``g`` is zero or not a
    descent direction). Raises ``ValueError`` when ``φ`` still falls at
    ``2**200`` times the first step that lowered it (``guess · 2**200`` with
    ``slope``): the infimum is not attained (for example
    logistic regression on separable data).
    """
    if not (np.isfinite(guess) and guess > 0):
        raise ValueError(f"guess must be a positive finite step, got {guess!r}")
    if slope is not None:
        return _root_of_slope(slope, float(guess))
    phi0 = phi(0.0)
    rho = float(guess)
    for _ in range(MAX_BRACKET_STEPS):
        if phi(rho) < phi0:
            break
        rho /= 2.0
    else:
        return 0.0
    # φ(ρ) < φ(0): double until φ rises (a flat stretch is walked through).
    low, mid, phi_mid = 0.0, rho, phi(rho)
    for _ in range(MAX_BRACKET_STEPS):
        high = 2.0 * mid
        phi_high = phi(high)
        if not phi_high <= phi_mid:
            break
        low, mid, phi_mid = mid, high, phi_high
    else:
        raise ValueError(f"the line search has no minimiser: φ(ρ) has not risen by ρ = {mid:.3g}")
    result = minimize_scalar(
        lambda s: phi(s * mid),
        bounds=(low / mid, high / mid),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return float(result.x * mid) if result.fun < phi_mid else mid


def _root_of_slope(slope, guess):
    """The ``ρ > 0`` where ``φ′(ρ) = 0``, or 0 when ``φ′(0) ≥ 0``."""
    if not slope(0.0) < 0:
        return 0.0
    limit = guess * 2.0**MAX_BRACKET_STEPS
    rho, found = root_of_slope(slope, guess, limit)
    if not found:
        raise ValueError(f"the line search has no minimiser: φ′(ρ) < 0 still at ρ = {limit:.3g}")
    return rho


def _check_n_steps_and_rho(n_steps, rho):
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 1:
        raise ValueError(f"n_steps must be an integer >= 1, got {n_steps!r}")
    if rho is not None and not (np.isfinite(rho) and rho > 0):
        raise ValueError(f"rho must be None (line search) or a positive finite step, got {rho!r}")


def _descend(objective, gradient, search, start, n_steps, rho):
    """The loop shared by both spaces: ``g_t``, ``ρ_t``, ``P_t = P_{t−1} − ρ_t g_t``.

    In function space the same lines read ``g_m``, ``ρ_m``,
    ``F_m = F_{m−1} − ρ_m g_m``. ``search(P, g)`` returns the line-search step
    along ``−g`` from ``P``.
    """
    params, values, rhos, gradients = [start], [objective(start)], [], []
    P = start
    for _ in range(n_steps):
        g = np.asarray(gradient(P), dtype=float)
        if g.shape != P.shape:
            raise ValueError(f"gradient returned shape {g.shape}, expected {P.shape}")
        step = rho if rho is not None else search(P, g)
        P = P - step * g
        params.append(P)
        values.append(objective(P))
        rhos.append(step)
        gradients.append(g)
    return DescentPath(
        params=np.array(params),
        values=np.array(values, dtype=float),
        rhos=np.array(rhos, dtype=float),
        gradients=np.array(gradients),
    )


def parameter_descent(objective, gradient, P0, n_steps, rho=None):
    r"""Steepest descent on ``Φ(P)`` (chapter 1).

    ``g_t = ∇Φ(P_{t−1})`` (eq. ``param-gradient``),
    ``ρ_t = argmin_ρ Φ(P_{t−1} − ρ g_t)`` (eq. ``param-line-search``) when
    ``rho`` is ``None``, else ``ρ_t = rho``;
    ``P_t = P_{t−1} − ρ_t g_t`` (eq. ``param-update``). The line search is
    :func:`minimise_along` with the slope ``φ′(ρ) = −∇Φ(P_{t−1} − ρ g_t)ᵀ g_t``,
    so consecutive gradients come out orthogonal (eq. ``zig-zag``).

    Parameters
    ----------
    objective : callable
        ``Φ``: array of shape (n_params,) → float, ``n_params`` the number of
        parameters.
    gradient : callable
        ``∇Φ``: array of shape (n_params,) → array of shape (n_params,).
    P0 : array_like, shape (n_params,)
        The starting parameters ``P_0``.
    n_steps : int
        The number of updates, at least 1: ``t = 1, …, n_steps``.
    rho : float or None
        A fixed step size, or ``None`` for the exact line search.

    Returns
    -------
    DescentPath
    """
    P0 = np.atleast_1d(np.asarray(P0, dtype=float))
    if P0.ndim != 1 or not np.all(np.isfinite(P0)):
        raise ValueError(f"P0 must be a finite 1-D array, got {P0!r}")
    _check_n_steps_and_rho(n_steps, rho)

    def phi(P):
        return float(objective(P))

    def search(P, g):
        # φ′(ρ) = −∇Φ(P − ρg)ᵀg: the root of the slope is exact to gradient precision.
        return minimise_along(
            lambda r: phi(P - r * g), slope=lambda r: -float(np.dot(gradient(P - r * g), g))
        )

    return _descend(phi, gradient, search, P0, n_steps, rho)


def function_descent(loss, y, F0, n_steps, rho=None):
    r"""Steepest descent on the values ``F(x_i)`` at the training points (chapter 2).

    The objective is the training mean ``(1/N) Σ_i L(y_i, F(x_i))``, the stand-in for
    chapter 2's expectation ``Φ`` (eq. ``function-objective``); at stage ``m = 1 … M``,
    ``g_m(x_i) = ∂L(y_i, F)/∂F`` at ``F_{m−1}(x_i)`` (eq. ``function-gradient``,
    ``loss.gradient``); ``ρ_m = argmin_ρ Σ_i L(y_i, F_{m−1}(x_i) − ρ g_m(x_i))``
    (eq. ``function-line-search``, by :func:`boostlib.steps.line_search` with
    ``u = −g_m``, the search the boosting loop uses) when ``rho`` is ``None``,
    else ``ρ_m = rho``;
    ``F_m = F_{m−1} − ρ_m g_m`` (eq. ``function-update``).

    ``g_m`` is the per-point derivative, as in Mao's post, not the gradient of the
    mean (which is ``g_m / N``): the direction is the same, and with squared
    error a step ``ρ = 1`` lands on ``y`` (eq. ``l2-one-step``).

    Parameters
    ----------
    loss : str or boostlib.losses.Loss
    y : array_like, shape (N,) or (N, K) for vector losses
        Targets in the loss's convention.
    F0 : float or array_like, shape of ``y``
        The starting values ``F_0(x_i)``; a scalar is a constant model.
    n_steps : int
        The number of stages ``M >= 1``.
    rho : float or None
        A fixed step size, or ``None`` for the exact line search. Where the
        loss has no minimiser along ``−g`` (log loss: every ``L(y_i, ·)``
        falls towards 0 as ``F(x_i) → ±∞``) the search runs off until the
        slope underflows to zero (or is rounding noise) or ``ρ`` reaches
        the cap :data:`boostlib.steps.RHO_MAX`.

    Returns
    -------
    DescentPath
        ``params`` has shape (M + 1, N) (or (M + 1, N, K)), row ``m`` holding
        ``F_m``; ``values`` holds the mean training loss.
    """
    loss = get_loss(loss)
    y = np.asarray(y, dtype=float)
    if y.ndim == 0 or y.size == 0 or not np.all(np.isfinite(y)):
        raise ValueError(f"y must be a non-empty finite array, got shape {y.shape}")
    F0 = np.asarray(F0, dtype=float)
    if F0.ndim == 0:
        F0 = np.full_like(y, F0)
    if F0.shape != y.shape:
        raise ValueError(f"F0 has shape {F0.shape}; it must be a scalar or of y's shape {y.shape}")
    if not np.all(np.isfinite(F0)):
        raise ValueError("F0 must be finite")
    _check_n_steps_and_rho(n_steps, rho)

    def phi(F):
        return loss.mean(y, F)

    def gradient(F):
        return loss.gradient(y, F)

    def search(F, g):
        # The same search the boosting loop uses (chapter 3), along u = −g.
        return line_search(loss, y, F, -g)[0]

    return _descend(phi, gradient, search, F0, n_steps, rho)


def linear_model_risk(loss, X, y):
    r"""``Φ(P)`` and ``∇Φ(P)`` for the linear model ``F(x; P) = xᵀP`` (chapter 1).

    ``Φ(P) = (1/N) Σ_i L(y_i, x_iᵀP)`` (eq. ``param-objective`` with the
    expectation replaced by the training mean) and, by the chain rule,
    ``∇Φ(P) = (1/N) Σ_i g_i x_i = Xᵀ g / N`` with ``g_i = ∂L(y_i, F)/∂F`` at
    ``F = x_iᵀP``. For half squared error ``∇Φ(P) = Xᵀ(XP − y) / N`` and
    ``Φ`` is the quadratic with Hessian ``B = XᵀX / N``.

    Parameters
    ----------
    loss : str or boostlib.losses.Loss
        A scalar loss; a vector loss (``loss.vector``) raises ``ValueError``.
    X : array_like, shape (N, d)
        The inputs; add a column of ones for an intercept.
    y : array_like, shape (N,)

    Returns
    -------
    objective, gradient : callables for :func:`parameter_descent`
    """
    loss = get_loss(loss)
    if loss.vector:
        raise ValueError(
            f"loss={loss.name!r} is a vector loss; linear_model_risk needs a scalar loss"
        )
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0] or y.size == 0:
        raise ValueError(f"X must have shape (N, d) and y shape (N,), got {X.shape} and {y.shape}")

    def objective(P):
        return loss.mean(y, X @ P)

    def gradient(P):
        return X.T @ loss.gradient(y, X @ P) / len(y)

    return objective, gradient
