r"""Directions: what the next learner is fitted to (chapters 3 and 4).

A direction turns the loss's derivatives at the current model ``F`` into a
*target* ``z`` and a *sample weight* ``w``; the learner then solves the
weighted least-squares problem ``min_a Σ w_i (z_i − f(x_i; a))²``.

=====================  ===========  ======  ===================================
name                   target z     weight  known as
=====================  ===========  ======  ===================================
``gradient``           ``−g``       1       Friedman (2001); the post's "gbm"
``newton``             ``−g/h``     ``h``   second-order Taylor step; XGBoost, λ=0
``newton_unweighted``  ``−g/h``     1       the post's "nbm_2"
``newton_raphson``     ``−L/g``     1       the post's "nbm_1" (root of L)
=====================  ===========  ======  ===================================

``newton`` with ``step="constant"`` equals XGBoost's exact tree with λ = 0,
``min_child_weight=0``, ``gamma=0``, the same depth and start, while every
target ``−g/h`` lies within ``±TARGET_BOUND`` and every ``h`` above
``HESSIAN_FLOOR``, up to ties between splits and XGBoost's refusal of gains of
1e-6 or less (chapter 4): a clipped target keeps its weight ``h``, so its share
of the leaf is ``h · TARGET_BOUND``, not ``−g`` (chapter 4, "The bounds").

"The post" is the *Newton Boosting* blog post and its R code (chapter 4).
``λ`` is XGBoost's L2 penalty on the leaf values (chapter 8), its only meaning
here; the eigenvalues of a Hessian matrix below are written ``μ``.

Why ``newton`` is weighted (chapter 4, eq. ``taylor-complete-square``): the
second-order expansion ``Σ g u + ½ h u²`` equals ``½ Σ h (u + g/h)²`` up to a
constant, a least-squares fit of ``u`` to ``−g/h`` with weights ``h``.

For a vector ``F`` (multi-output quadratic, softmax) ``newton`` fits the
per-sample Newton direction ``z_i = −H_i⁺ g_i`` with one scalar weight per
sample, the curvature of the loss along that direction:

    ``w_i = z_iᵀ H_i z_i / z_iᵀ z_i``   (a Rayleigh quotient of ``H_i``).

Why this weight (chapter 4, "Vector outputs"). A scikit-learn learner takes
one number per sample, so the exact weighted problem ``½ Σ (u − z)ᵀH(u − z)``
must be approximated by ``½ Σ w ‖u − z‖²``. Along the Newton direction itself
the two agree exactly: for ``u = β z`` both are ``½ (1 − β)² zᵀHz``. And the
weighted target stays as bounded as the scalar one, ``h · |−g/h| = |g|``:
since ``H z = −g`` on the range of ``H``,

    ``w_i ‖z_i‖ = |g_iᵀ z_i| / ‖z_i‖ ≤ ‖g_i‖``   (Cauchy–Schwarz)

for every ``F``, however small an eigenvalue ``μ`` of ``H_i``: a sample whose
Newton step is long (a tiny curvature along it) gets a tiny weight. The
weight lies between the smallest and the largest eigenvalue that ``H⁺``
inverts, so it never exceeds what the eigenvalues justify. For ``H = 2I``
(the quadratic loss) it is 2 on every sample, and so is the mean eigenvalue
``tr(H_i)/K``, for every ``K``. For softmax that simpler weight keeps the
bound for ``K = 2`` only (there ``tr(H)/2 = p(1 − p)`` shrinks with
``p_y``). From ``K = 3`` on it fails: where the true class has
probability ``p_y → 0`` and the wrong mass is spread over two or more
classes, ``tr(H)/K`` stays bounded away from 0 while ``‖z‖`` grows like
``1/p_y`` (chapter 4). Per-class boosting (one learner per class,
:class:`~boostlib.losses.Coordinate`) uses the diagonal entries ``H_kk`` as
scalar ``h`` instead, and needs none of this.

**Bounds.** Where ``h`` (or ``g``) vanishes, a Newton target would be
infinite. The rule used everywhere here: divide by ``max(h, HESSIAN_FLOOR)``
and weight by it too, so that the weights never all vanish on separable
data; for ``g``, keep its sign and floor its size; use the pseudo-inverse ``H⁺``
of a Hessian matrix (softmax's is singular along ``(1, …, 1)``; ``H⁺`` gives
the minimum-norm Newton direction), and clip every target to
``[−TARGET_BOUND, TARGET_BOUND]``. In ``H⁺`` (:func:`pseudo_inverse`) an
eigenvalue below ``PINV_RTOL · μ_max`` belongs to the null direction and
counts as zero; every other eigenvalue is floored at ``HESSIAN_FLOOR``, the
rule for a scalar ``h``, so that ``1/μ ≤ 1/HESSIAN_FLOOR`` (softmax scores
~710 apart give subnormal eigenvalues of a few 1e-309, ``e^−710 ≈ 4.5e-309``,
whose reciprocals overflow).
Targets are therefore always finite. The vector weight is the Rayleigh
quotient of the floored ``H``, so the bound ``w‖z‖ ≤ ‖g‖`` holds with the
floors too, and clipping ``z`` only shortens it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .row_blocks import loop_thread_count
from .trees.threads import PRANGE_ONLY, using_threads

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
    "vector_newton",
]

#: The floor under a scalar Hessian ``h`` and under a Hessian matrix's non-null
#: eigenvalues in the Newton directions: they divide by ``max(h, HESSIAN_FLOOR)``.
HESSIAN_FLOOR = 1e-12
#: The bound on every entry of a Newton target ``z``, clipped to
#: ``[−TARGET_BOUND, TARGET_BOUND]``; a clipped entry keeps its weight (chapter 4, "The bounds").
TARGET_BOUND = 1e6
#: Eigenvalues of a Hessian matrix below ``PINV_RTOL`` × its largest count as zero in
#: ``H⁺``: softmax's null direction (1, …, 1) comes out of ``eigh`` as ~1e-17, not 0.
PINV_RTOL = 1e-10


def _eigen(H):
    """``H = V diag(μ) Vᵀ`` with ``μ`` floored at ``HESSIAN_FLOOR``; and which ``μ`` are null.

    The columns ``v`` of ``V`` are the eigenvectors, ``μ_v`` their eigenvalues
    (chapter 1's letters). An eigenvalue with ``|μ_v| ≤ PINV_RTOL · max|μ|``
    belongs to the null direction (see **Bounds**), unless ``H`` underflowed to
    exactly 0: then nothing is null and every eigenvalue is floored.
    """
    mu, V = np.linalg.eigh(H)
    size = np.abs(mu)
    largest = size.max(axis=-1, keepdims=True)
    null = (size <= PINV_RTOL * largest) & (largest > 0)
    return V, np.maximum(mu, HESSIAN_FLOOR), null


def pseudo_inverse(H):
    """``H⁺`` of symmetric matrices ``H`` (shape ``(..., K, K)``), from ``H = V diag(μ) Vᵀ``.

    ``H⁺ = V diag(1/max(μ, HESSIAN_FLOOR)) Vᵀ`` over the eigenvalues with
    ``|μ_v| > PINV_RTOL · max|μ|``; the others (the null direction) count as
    zero (see **Bounds**). ``−H⁺g`` is the minimum-norm Newton direction
    (chapter 4, eq. ``vector-newton``).
    """
    V, mu, null = _eigen(H)
    inverse = np.where(null, 0.0, 1.0 / mu)
    return (V * inverse[..., None, :]) @ np.swapaxes(V, -1, -2)


def vector_newton(H, g):
    """Per sample, ``z = −H⁺g`` and the weight ``w = zᵀHz / zᵀz`` (chapter 4, ``vector-newton``).

    ``H`` has shape ``(N, K, K)``, ``g`` shape ``(N, K)``. In the eigenbasis
    of ``H`` (eigenvectors ``v``, eigenvalues ``μ_v``, floored as in
    :func:`pseudo_inverse`; chapter 1 indexes by the eigenvector too),
    ``g = Σ_v g_v v`` (``g_v = vᵀg``, the code's ``c``) and ``z = −Σ_v (g_v/μ_v) v``,
    so ``w = Σ_v μ_v (g_v/μ_v)² / Σ_v (g_v/μ_v)²``: the curvature along ``z``,
    so that ``w ‖z‖ ≤ ‖g‖`` (module docstring). Where ``z = 0`` (``g`` has no
    component that ``H⁺`` inverts) any weight fits the target; it is then the
    mean of the inverted eigenvalues.
    """
    V, mu, null = _eigen(H)
    c = np.einsum("ikj,ik->ij", V, g)
    c_over_mu = np.where(null, 0.0, c / mu)  # −z in the eigenbasis
    z = -np.einsum("ijk,ik->ij", V, c_over_mu)
    # the quotient in units of max|c_v/μ_v|: (c_v/μ_v)² would under- or overflow at extreme scores
    size = np.abs(c_over_mu).max(axis=1, keepdims=True)
    scaled = c_over_mu / np.where(size > 0, size, 1.0)
    along = np.sum(scaled * scaled, axis=1)
    live = ~null
    mean_mu = np.sum(np.where(live, mu, 0.0), axis=1) / np.maximum(live.sum(axis=1), 1)
    safe = along > 0
    w = np.where(safe, np.sum(mu * scaled * scaled, axis=1) / np.where(safe, along, 1.0), mean_mu)
    return z, np.maximum(w, HESSIAN_FLOOR)


def _bounded(z):
    """``z`` clipped to ``[−TARGET_BOUND, TARGET_BOUND]``, in place (a fresh target: no copy)."""
    return np.clip(z, -TARGET_BOUND, TARGET_BOUND, out=z)


def _require_curvature(loss, name):
    if not loss.positive_hessian:
        raise ValueError(
            f"direction={name!r} needs a loss with a positive Hessian; "
            f"{loss.name}'s Hessian is zero on part of its domain. Use direction='gradient'."
        )


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def _scalar_newton(g, h, floor, bound, z, w):
    """``w = max(h, floor)`` and ``z = −g/w`` clipped to ``[−bound, bound]``, row by row.

    numpy's arithmetic in one pass (``np.maximum``, ``−g / w``, ``np.clip``: the same
    bits, NaN kept), with the rows shared out among numba's threads, the trees' own.
    """
    for i in prange(len(g)):
        w_i = floor if h[i] < floor else h[i]
        z_i = -g[i] / w_i
        if z_i < -bound:
            z_i = -bound
        elif z_i > bound:
            z_i = bound
        z[i], w[i] = z_i, w_i


def _float64_vectors(*arrays):
    return all(isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == 1
               and a.shape == arrays[0].shape for a in arrays)


def _newton_target(loss, y, F, out=None):
    """``−g/h`` for a scalar loss, ``−H⁺g`` per sample for a vector loss; and the weight.

    ``out``: see :func:`newton`.
    """
    g, H = loss.gradient_hessian(y, F)
    if loss.vector:
        z, w = vector_newton(H, g)  # w = curvature along z: w‖z‖ ≤ ‖g‖
        return _bounded(z), w
    if _float64_vectors(g, H):
        if (isinstance(out, np.ndarray) and out.dtype == np.float64
                and out.shape == (2, len(g)) and out.flags.writeable):
            z, w = out
        else:
            z, w = np.empty(len(g)), np.empty(len(g))
        # one pass on the loop's threads (row_blocks) where numpy would make four on one
        with using_threads(loop_thread_count()):
            _scalar_newton(g, H, HESSIAN_FLOOR, TARGET_BOUND, z, w)
        return z, w
    H = np.maximum(H, HESSIAN_FLOOR)
    return _bounded(-g / H), H


def gradient(loss, y, F):
    """Friedman's pseudo-response ``z = −g``, unit weights (chapter 3, eq. ``pseudo-response``)."""
    return -loss.gradient(y, F), np.ones(len(F))


def newton(loss, y, F, out=None):
    """Newton direction ``z = −g/h`` with weights ``w = h`` (chapter 4, eq. ``newton-direction``).

    ``out``: None, or the boosting loop's array, reused stage after stage (a fresh array
    of ten million rows costs the operating system's time to zero and map its pages, on
    top of the pass that fills it: ``_StageMemory`` in :mod:`boostlib.boosting`). It is
    used (``z, w = out``, writing into it) when it is a writeable float64 numpy array of
    shape ``(2, N)``, ``N = len(F)``, the loss scalar and its ``g`` and ``h`` float64
    vectors; any other ``out`` is ignored (no error), and ``z`` and ``w`` are then fresh
    arrays.

    ``h`` is floored at ``HESSIAN_FLOOR`` in both ``z`` and ``w``. Vector losses:
    ``z_i = −H_i⁺ g_i``, ``w_i = z_iᵀH_i z_i / z_iᵀz_i`` (:func:`vector_newton`),
    so that ``w_i ‖z_i‖ ≤ ‖g_i‖``: the weighted target is no larger than the
    gradient, as in the scalar case, where ``h · |−g/h| = |g|``. Every entry
    of ``z`` is clipped at ``±TARGET_BOUND``. For softmax the exact ``−H_i⁺g_i``
    sums to zero over the classes; the computed one is it, clipped, up to a
    small shift along ``(1, …, 1)``, which changes no probability, at least
    while every class probability is above ``PINV_RTOL`` (for K = 3, class
    scores less than about 22 apart), where the two guards of ``_eigen`` (used
    by :func:`vector_newton` and :func:`pseudo_inverse`) change no real
    eigenvalue. (The shift: once one probability is within about 3e-7 of 1,
    the rounding of the null eigenvalue can exceed ``PINV_RTOL`` times the
    largest, and it is floored rather than dropped; at scores (17.5, 0, 0)
    with the first class true every entry is about 2e-5 off.) Further out an
    eigenvalue may be floored or counted as null, depending on how the
    probabilities are spread, and ``z_i`` is then a bounded stand-in: at scores
    (25, 25, 0) with the third class true it is 0 up to rounding (entries below
    1e-16; chapter 5).
    """
    _require_curvature(loss, "newton")
    return _newton_target(loss, y, F, out)


def newton_unweighted(loss, y, F):
    """The *Newton Boosting* post's "nbm_2": ``z = −g/h = −L′/L″`` with unit weights (chapter 4)."""
    _require_curvature(loss, "newton_unweighted")
    z, _ = _newton_target(loss, y, F)
    return z, np.ones(len(F))


def newton_raphson(loss, y, F):
    """The *Newton Boosting* post's "nbm_1": the root-finding step ``z = −L/L′ = −L/g`` (chapter 4).

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


#: The directions by the name the estimators' ``direction`` takes.
#:
#: :meta hide-value:
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
