r"""Steps: how far to go along the learner's output ``u`` (chapters 3 and 5).

Every step takes the loss, the targets ``y``, the current model ``F`` on the
training points and the fitted learner's output ``u = f(x; a)`` there, and
returns ``(ρ, u)``; the boosting loop then updates ``F ← F + ν ρ u`` with the
learning rate ``ν``. Only ``leaf_newton`` changes ``u`` (it rewrites the
leaves of a tree learner, as Friedman's TreeBoost does).

==================  =====================================================
name                rule
==================  =====================================================
``line_search``     ``ρ = argmin_ρ Σ s L(y, F + ρ u)`` (root of its slope, scipy's brentq)
``newton``          Newton iterations on ``ρ``: ``ρ ← ρ − Σ s gᵀu / Σ s uᵀHu``
``leaf_newton``     per leaf ``R_j``: ``γ_j = −Σ_{R_j} s g / Σ_{R_j} s h``; absolute
                    error and Huber: ``γ_j = argmin_γ Σ_{R_j} s L(y, F + γ)``
``constant``        ``ρ = 1``
==================  =====================================================

For quadratic loss the first Newton iteration is already exact: it is the
closed-form step ``ρ = Σ (y − F)ᵀu / Σ uᵀu`` of Damião's *Boosted Neural Networks*
(chapter 5; the report calls it γ).
Every ``ρ`` is kept in ``[−RHO_MAX, RHO_MAX]``: on separable data the exact
line search would otherwise run off to infinity (chapter 4).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from .directions import pseudo_inverse
from .losses import Coordinate, LogLoss, Softmax, SquaredError

__all__ = [
    "NEWTON_MAX_ITER",
    "RHO_MAX",
    "STEPS",
    "constant",
    "get_step",
    "leaf_newton",
    "line_search",
    "newton",
    "root_of_slope",
]

#: The bound on every step, ``ρ ∈ [−RHO_MAX, RHO_MAX]``, so that on separable data
#: the line search stops there instead of running off (chapter 4).
RHO_MAX = 1e4
#: The most iterations ``step="newton"`` makes on ``ρ`` (:func:`newton`'s ``max_iter``).
NEWTON_MAX_ITER = 50
# Below this a curvature (Σ s h, Σ s uᵀHu) counts as zero: no Newton step is
# possible and the value is 0, as in scikit-learn's _safe_divide.
TINY = 1e-150
# A directional derivative this small relative to its terms is rounding noise: a
# direction along which the loss is flat to rounding gets ρ = 0 (line_search, newton).
FLAT = 1e-12
# φ′(ρ) where its terms overflow float64 (the exponential loss far along u): φ is
# convex and φ′ rises with ρ, so an overflow past a finite negative φ′ is +∞; the
# searches read it as this, the largest float, which brentq can bracket with.
OVERFLOW_SLOPE = float(np.finfo(np.float64).max)
# A leaf value this close (relative to the leaf's mean |g| / h) to γ_j is γ_j
# up to the rounding of the tree's own sums. For squared error leaf_newton keeps
# the least-squares tree's own values when they agree with γ_j to this: a sum
# taken in another order can differ in the last bit, and at a later stage that
# breaks a tie between two equally good splits differently, so the model would
# no longer be scikit-learn's tree for tree.
LEAF_ROUNDING = 1e-9
# Two loss values closer than this (relative) are equal up to rounding.
ROUNDING = 1e-13


def _directional_derivatives(loss, y, F, u, sample_weight):
    """``φ′(0) = Σ s gᵀu`` and ``φ″(0) = Σ s uᵀHu`` for ``φ(ρ) = Σ s L(y, F + ρu)``.

    Each is returned as 0 when it is zero up to rounding: smaller than
    ``FLAT`` times the same sum taken over absolute values (softmax along
    ``u ∝ (1, …, 1)`` gives terms of size 1 that cancel to 1e-16). Both are
    returned as they are (±inf or NaN) when a term overflows float64.
    """
    s = np.ones(len(F)) if sample_weight is None else sample_weight
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is returned as it is
        g, H = loss.gradient_hessian(y, F)
        if loss.vector:
            slope = np.einsum("i,ik,ik->", s, g, u)
            slope_size = np.einsum("i,ik,ik->", s, np.abs(g), np.abs(u))
            curvature = np.einsum("i,ij,ijk,ik->", s, u, H, u)
            curvature_size = np.einsum("i,ij,ijk,ik->", s, np.abs(u), np.abs(H), np.abs(u))
        else:
            slope, slope_size = np.dot(s, g * u), np.dot(s, np.abs(g * u))
            curvature = curvature_size = np.dot(s, H * u * u)
    if not (math.isfinite(slope) and math.isfinite(curvature)):
        return float(slope), float(curvature)
    slope = 0.0 if abs(slope) <= FLAT * slope_size else float(slope)
    curvature = 0.0 if curvature <= max(FLAT * curvature_size, TINY) else float(curvature)
    return slope, curvature


def root_of_slope(slope, guess=1.0, limit=RHO_MAX):
    """The ``ρ ≥ 0`` where a convex ``φ`` stops falling: the root of its slope ``φ′``.

    ``φ′(0) < 0`` is assumed (a descent direction). The bracket starts as
    ``[0, guess]`` and doubles, ``[ρ/2, ρ]`` (the last one capped at ``limit``),
    until ``φ′(ρ) ≥ 0`` at its right end, then scipy's ``brentq``
    finds the root in the scaled variable ``ρ / ρ_bracket`` (relative
    precision ~1e-14 at every scale). Returns ``(ρ, True)``, or
    ``(limit, False)`` when ``φ′`` is still negative at ``ρ = limit``.

    Solving ``φ′(ρ) = 0`` rather than comparing values of ``φ`` keeps full
    precision near the optimum, where ``φ`` changes by less than round-off
    long before ``φ′`` does (chapter 1, eq. ``zig-zag``).
    """
    low, high = 0.0, float(guess)
    while slope(high) < 0:
        if high >= limit:
            return float(limit), False
        low, high = high, min(2.0 * high, limit)
    root = brentq(lambda t: slope(t * high), low / high, 1.0, xtol=1e-15, rtol=1e-14)
    return float(root * high), True


def _slope(loss, y, F, u, s):
    """``φ′(0) = Σ s gᵀu``, or 0 when it is rounding noise (see ``FLAT``); ±inf or NaN
    as it is when a term overflows float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        g = loss.gradient(y, F)
        terms = s[:, None] * g * u if loss.vector else s * g * u
        slope = terms.sum()
        if not math.isfinite(slope):
            return float(slope)
        return 0.0 if abs(slope) <= FLAT * np.abs(terms).sum() else float(slope)


def line_search(loss, y, F, u, sample_weight=None, learner=None, X=None):
    """Exact line search ``ρ = argmin_ρ Σ s L(y, F + ρu)`` (chapter 3, eq. ``line-search``).

    ``φ(ρ) = Σ s L(y, F + ρu)`` is convex, so its minimiser is the root of the
    slope ``φ′(ρ) = Σ s g(F + ρu)ᵀu``. The sign of ``φ′(0)`` says which side
    of zero to search; :func:`root_of_slope` brackets and solves (scipy's
    ``brentq``), up to ``|ρ| = RHO_MAX``.
    """
    s = np.ones(len(F)) if sample_weight is None else sample_weight
    slope0 = _slope(loss, y, F, u, s)
    if slope0 == 0.0 or not math.isfinite(slope0):  # flat, or F itself at float64's edge
        return 0.0, u
    sign = -np.sign(slope0)

    def slope(r):  # φ′ along the descent side; an overflow lies past the root (OVERFLOW_SLOPE)
        value = sign * _slope(loss, y, F + sign * r * u, u, s)
        return value if math.isfinite(value) else OVERFLOW_SLOPE

    rho, _ = root_of_slope(slope)
    return float(sign * rho), u


def newton(loss, y, F, u, sample_weight=None, learner=None, X=None, max_iter=NEWTON_MAX_ITER):
    """Newton's method on the step: ``ρ ← ρ − φ′(ρ)/φ″(ρ)`` (chapter 5, eq. ``newton-step``).

    ``φ′(ρ) = Σ s gᵀu`` and ``φ″(ρ) = Σ s uᵀHu`` at ``F + ρu``. From ``ρ = 0``
    the first iteration is ``−Σ s gᵀu / Σ s uᵀHu``, exact for quadratic loss
    (the closed-form step of Damião's *Boosted Neural Networks*). A step that
    raises the loss by more than rounding is halved until it does not, so the
    iterations never go uphill; ``max_iter=1`` gives one Newton step, halved
    where it would go uphill. Where ``φ′`` or ``φ″`` overflows float64 (the
    exponential loss on a margin far below zero) the iterations stop at the
    last ``ρ``, whose loss is finite.
    """
    if not loss.positive_hessian:
        raise ValueError(
            f"step='newton' needs a loss with a positive Hessian; {loss.name}'s is zero "
            "on part of its domain. Use step='line_search' or 'leaf_newton'."
        )
    rho = 0.0
    current = loss.mean(y, F, sample_weight)
    for _ in range(max_iter):
        slope, curvature = _directional_derivatives(loss, y, F + rho * u, u, sample_weight)
        if curvature == 0.0 or not (math.isfinite(slope) and math.isfinite(curvature)):
            break  # no Newton step: flat, or its derivatives overflow float64 at this ρ
        delta = -slope / curvature
        candidate = float(np.clip(rho + delta, -RHO_MAX, RHO_MAX))
        value = loss.mean(y, F + candidate * u, sample_weight)
        # uphill beyond rounding: near the optimum the values differ in the last bits
        while value > current + ROUNDING * abs(current) and abs(candidate - rho) > 1e-15 * (
            1 + abs(rho)
        ):
            candidate = 0.5 * (rho + candidate)
            value = loss.mean(y, F + candidate * u, sample_weight)
        converged = abs(candidate - rho) <= 1e-12 * (1 + abs(rho))
        rho, current = candidate, min(value, current)
        if converged:
            break
    return rho, u


# Why leaf_newton computes as it does (kept outside the function, which chapter 3
# prints): the leaf values are computed in scikit-learn's order of arithmetic
# (_leaf_newton_value), and rows of weight 0 inside the bag join their leaf's sums
# with weight 0 as in scikit-learn (the boosting loop passes bag= with sample
# weights): the same sums in the same order, so the same bits, so subsampled and
# weighted fits grow scikit-learn's trees even after a tie between two splits.
# Squared error keeps the tree's own values (see LEAF_ROUNDING) for the same reason.
def leaf_newton(loss, y, F, u, sample_weight=None, learner=None, X=None, bag=None):
    """One value per tree leaf: Friedman's TreeBoost (chapter 3, eq. ``leaf-newton``).

    For a loss with a positive Hessian each leaf ``R`` gets one Newton step,
    ``γ_j = −Σ_{R_j} s g / Σ_{R_j} s h`` (``−(Σ_{R_j} s H)⁺ Σ_{R_j} s g`` for a vector loss, with
    the pseudo-inverse ``⁺`` because softmax's Hessian is singular);
    for absolute error and Huber, the leaf's exact minimiser
    ``argmin_γ Σ_{R_j} s L(y, F + γ)`` (for absolute error the lower weighted
    median of the residuals ``y − F``, as scikit-learn computes it).
    The tree's leaf values are overwritten in place; returns ``(1, new u)``.

    Per class (a :class:`~boostlib.losses.Coordinate` of softmax, one tree
    per class and stage) the value is Friedman's
    ``γ_j = (K − 1)/K · Σ_{R_j} s (−g_k) / Σ_{R_j} s p_k (1 − p_k)`` (his Algorithm 6,
    as scikit-learn computes it).

    For squared error a least-squares tree fitted to ``−g = y − F`` already
    holds ``γ_j``, the leaf's mean residual; a tree fitted to another target
    (say ``newton_raphson``'s) gets ``γ_j``.

    ``bag`` (boolean, shape (N,)) marks the rows that take part in the stage
    (its subsample); None: the rows of positive weight.
    """
    tree = getattr(learner, "tree_", None)
    if tree is None or X is None:
        raise ValueError(
            "step='leaf_newton' needs a tree learner (with tree_ and apply), such as "
            f"DecisionTreeRegressor; got {type(learner).__name__}"
        )
    s = np.ones(len(F)) if sample_weight is None else sample_weight
    taking_part = s > 0 if bag is None else np.asarray(bag, dtype=bool)
    leaves = learner.apply(X)
    leaf_ids = np.flatnonzero(tree.children_left == -1)
    values = tree.value  # a view: writing to it changes the tree's predictions
    if loss.vector:
        g, H = loss.gradient(y, F), loss.hessian(y, F)
        for leaf in leaf_ids:
            inside = leaves == leaf
            G = s[inside] @ g[inside]
            Hsum = np.einsum("i,ijk->jk", s[inside], H[inside])
            values[leaf, :, 0] = -pseudo_inverse(Hsum) @ G
    elif isinstance(loss, SquaredError):
        # the tree's own values, unless they differ from γ_j by more than rounding
        n_nodes = tree.node_count
        g = loss.gradient(y, F)
        G = np.bincount(leaves, weights=s * g, minlength=n_nodes)[leaf_ids]
        size = np.bincount(leaves, weights=s * np.abs(g), minlength=n_nodes)[leaf_ids]
        Hsum = np.bincount(leaves, weights=s, minlength=n_nodes)[leaf_ids]
        safe = Hsum >= TINY
        gamma = np.where(safe, -G / np.where(safe, Hsum, 1), 0)
        tree_value = values[leaf_ids, 0, 0]
        rounding = LEAF_ROUNDING * np.where(safe, size / np.where(safe, Hsum, 1), 0)
        values[leaf_ids, 0, 0] = np.where(np.abs(tree_value - gamma) <= rounding, tree_value, gamma)
    elif loss.positive_hessian:
        neg_g = -loss.gradient(y, F)
        h = _leaf_hessian(loss, y, F, neg_g)
        factor = getattr(loss, "leaf_factor", 1.0)  # (K − 1)/K per softmax class
        in_bag = np.where(taking_part, leaves, -1)
        for leaf in leaf_ids:
            inside = np.nonzero(in_bag == leaf)[0]
            values[leaf, 0, 0] = _leaf_newton_value(neg_g[inside], h[inside], s[inside], factor)
    else:
        residual = y - F
        for leaf in leaf_ids:
            inside = (leaves == leaf) & taking_part
            values[leaf, 0, 0] = (
                loss.optimal_constant(residual[inside], s[inside]) if inside.any() else 0.0
            )
    new_u = values[leaves, :, 0]
    return 1.0, (new_u if loss.vector else new_u[:, 0])


def _leaf_hessian(loss, y, F, neg_g):
    """Per-sample ``h`` as scikit-learn's ``_update_terminal_regions`` evaluates it.

    Log loss and a softmax class: ``p (1 − p)`` with ``p = y − (−g)``; any
    other loss (the exponential's is already scikit-learn's ``|g|``): its own
    :meth:`~boostlib.losses.Loss.hessian`.
    """
    if isinstance(loss, LogLoss) or (
        isinstance(loss, Coordinate) and isinstance(loss.loss, Softmax)
    ):
        p = y - neg_g
        return p * (1 - p)
    return loss.hessian(y, F)


def _leaf_newton_value(neg_g, h, s, factor=1.0):
    """``γ_j = −Σ_{R_j} s g / Σ_{R_j} s h`` for one leaf (chapter 3, eq. ``leaf-newton``).

    Written as scikit-learn writes it, a ratio of two weighted means,
    ``np.average(−g, s) / np.average(h, s)``, the numerator times ``factor``
    (Friedman's ``(K − 1)/K`` per softmax class, 1 otherwise), and 0 where
    the mean ``h`` is below ``TINY`` (its ``_safe_divide``): the same sums in
    the same order, so the same bits, so the same trees after a tie between
    two splits.
    """
    if len(neg_g) == 0 or not np.sum(s) > 0:
        return 0.0
    numerator = np.average(neg_g, weights=s) * factor
    denominator = np.average(h, weights=s)
    return 0.0 if abs(denominator) < TINY else float(numerator) / float(denominator)


def constant(loss, y, F, u, sample_weight=None, learner=None, X=None):
    """No search: ``ρ = 1``; the learning rate alone scales the step (XGBoost's choice)."""
    return 1.0, u


#: The steps by the name the estimators' ``step`` takes.
#:
#: :meta hide-value:
STEPS = {
    "line_search": line_search,
    "newton": newton,
    "leaf_newton": leaf_newton,
    "constant": constant,
}


def get_step(name):
    """The step function for ``name``; ``ValueError`` naming the parameter otherwise."""
    if callable(name):
        return name
    if isinstance(name, str) and name in STEPS:
        return STEPS[name]
    raise ValueError(f"step={name!r} is not one of {sorted(STEPS)}")
