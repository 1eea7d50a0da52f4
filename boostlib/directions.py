r"""Directions: what the next learner is fitted to (chapters 3 and 4).

A direction turns the loss's derivatives at the current model ``F`` into a
*target* ``z`` and a *sample weight* ``w``; the learner then solves the
weighted least-squares problem ``min_a Σ w_i (z_i − h(x_i; a))²``.

=====================  ===========  ======  ===================================
name                   target z     weight  known as
=====================  ===========  ======  ===================================
``gradient``           ``−g``       1       Friedman (2001); seed 000 "gbm"
``newton``             ``−g/h``     ``h``   second-order Taylor step; XGBoost, λ=0
``newton_unweighted``  ``−g/h``     1       seed 000 "nbm_2"
``newton_raphson``     ``−L/g``     1       seed 000 "nbm_1" (root of L)
=====================  ===========  ======  ===================================

Why ``newton`` is weighted (chapter 4, eq. ``taylor-complete-square``): the
second-order expansion ``Σ g u + ½ h u²`` equals ``½ Σ h (u + g/h)²`` up to a
constant, a least-squares fit of ``u`` to ``−g/h`` with weights ``h``.

For a vector ``F`` (multi-output quadratic, softmax) ``newton`` fits the
per-sample Newton direction ``z_i = −H_i⁻¹ g_i`` with weight ``tr(H_i)/K``.

**Bounds.** Where ``h`` (or ``g``) vanishes, a Newton target would be
infinite. The rule used everywhere here: divide by ``max(h, HESSIAN_FLOOR)``
and weight by it too, so that the weights never all vanish on separable
data; for ``g``, keep its sign and floor its size; use the pseudo-inverse ``H⁺``
of a Hessian matrix (softmax's is singular along ``(1, …, 1)``; ``H⁺`` gives
the minimum-norm Newton direction), and clip every target to
``[−TARGET_BOUND, TARGET_BOUND]``. In ``H⁺`` (:func:`pseudo_inverse`) an
eigenvalue below ``PINV_RTOL · λ_max`` belongs to the null direction and
counts as zero; every other eigenvalue is floored at ``HESSIAN_FLOOR``, the
rule for a scalar ``h``, so that ``1/λ ≤ 1/HESSIAN_FLOOR`` (softmax scores
~710 apart give subnormal eigenvalues ~1e-310, whose reciprocals overflow).
Targets are therefore always finite.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DIRECTIONS",
    "HESSIAN_FLOOR",
    "PINV_RTOL",
    "TARGET_BOUND",
    "get_direction",
    "gradient",
    "newton",
    "newton_raphson",
    "newton_unweighted",
    "pseudo_inverse",
]

HESSIAN_FLOOR = 1e-12
TARGET_BOUND = 1e6
# Eigenvalues of a Hessian matrix below PINV_RTOL × its largest count as zero in
# H⁺: softmax's null direction (1, …, 1) comes out of eigh as ~1e-17, not 0.
PINV_RTOL = 1e-10


def pseudo_inverse(H):
    """``H⁺`` of symmetric matrices ``H`` (shape ``(..., K, K)``), from ``H = V diag(λ) Vᵀ``.

    ``H⁺ = V diag(1/max(λ, HESSIAN_FLOOR)) Vᵀ`` over the eigenvalues with
    ``|λ| > PINV_RTOL · max|λ|``; the others (the null direction) count as
    zero (see **Bounds**). ``−H⁺g`` is the minimum-norm Newton direction
    (chapter 4, eq. ``vector-newton``).
    """
    lam, V = np.linalg.eigh(H)
    size = np.abs(lam)
    largest = size.max(axis=-1, keepdims=True)
    # where H underflowed to exactly 0 nothing is a null direction: all are floored
    null = (size <= PINV_RTOL * largest) & (largest > 0)
    inverse = np.where(null, 0.0, 1.0 / np.maximum(lam, HESSIAN_FLOOR))
    return (V * inverse[..., None, :]) @ np.swapaxes(V, -1, -2)


def _bounded(z):
    return np.clip(z, -TARGET_BOUND, TARGET_BOUND)


def _require_curvature(loss, name):
    if not loss.positive_hessian:
        raise ValueError(
            f"direction={name!r} needs a loss with a positive Hessian; "
            f"{loss.name}'s Hessian is zero on part of its domain. Use direction='gradient'."
        )


def _newton_target(loss, y, F):
    """``−g/h`` for a scalar loss, ``−H⁺g`` per sample for a vector loss; and the weight."""
    g = loss.gradient(y, F)
    H = loss.hessian(y, F)
    if loss.vector:
        K = g.shape[1]
        z = -np.einsum("ijk,ik->ij", pseudo_inverse(H), g)
        w = np.maximum(np.trace(H, axis1=1, axis2=2) / K, HESSIAN_FLOOR)
    else:
        H = np.maximum(H, HESSIAN_FLOOR)
        z, w = -g / H, H
    return _bounded(z), w


def gradient(loss, y, F):
    """Friedman's pseudo-response ``z = −g``, unit weights (chapter 3, eq. ``pseudo-response``)."""
    return -loss.gradient(y, F), np.ones(len(F))


def newton(loss, y, F):
    """Newton direction ``z = −g/h`` with weights ``w = h`` (chapter 4, eq. ``newton-direction``).

    ``h`` is floored at ``HESSIAN_FLOOR`` in both. Vector losses:
    ``z_i = −H_i⁺ g_i``, ``w_i = max(tr(H_i)/K, HESSIAN_FLOOR)``.
    """
    _require_curvature(loss, "newton")
    return _newton_target(loss, y, F)


def newton_unweighted(loss, y, F):
    """Seed 000's "nbm_2": ``z = −g/h = −L′/L″`` fitted with unit weights (chapter 4)."""
    _require_curvature(loss, "newton_unweighted")
    z, _ = _newton_target(loss, y, F)
    return z, np.ones(len(F))


def newton_raphson(loss, y, F):
    """Seed 000's "nbm_1": the root-finding step ``z = −L/L′ = −L/g`` (chapter 4).

    A Newton–Raphson step towards a zero of ``L`` itself, not of ``g``. For a
    loss that is never zero it points where the tangent of ``L`` crosses zero.
    Where ``g`` underflows to 0 the point sits at the loss's minimum to machine
    precision and the target is 0 (``L`` has underflowed too) or clipped.
    """
    if loss.vector:
        raise ValueError("direction='newton_raphson' is defined for scalar losses only")
    L = loss(y, F)
    g = loss.gradient(y, F)
    g_safe = np.where(g < 0, -1.0, 1.0) * np.maximum(np.abs(g), HESSIAN_FLOOR)
    return _bounded(-L / g_safe), np.ones(len(F))


DIRECTIONS = {
    "gradient": gradient,
    "newton": newton,
    "newton_unweighted": newton_unweighted,
    "newton_raphson": newton_raphson,
}


def get_direction(name):
    """The direction function for ``name``; ``ValueError`` naming the parameter otherwise."""
    if callable(name):
        return name
    if isinstance(name, str) and name in DIRECTIONS:
        return DIRECTIONS[name]
    raise ValueError(f"direction={name!r} is not one of {sorted(DIRECTIONS)}")
