r"""Monotone constraints: leaf values bounded by mid-values carried down the tree (chapter 8).

``monotonic_cst[j] = +1`` (``ε_ℓ = +1`` for feature ℓ, the code's ``j``) asks
that the tree's output never falls as feature ℓ grows (``−1``: never rises;
``0``: no constraint), whatever the other features. A leaf's value is the
closed form ``γ* = −G/(H + λ)``
(:func:`~boostlib.trees.splitting.leaf_value`); the constraint is kept by
bounding it. Every node carries an interval ``[lower, upper]`` (the root
``(−∞, ∞)``), and

* a child's value is ``γ*`` clipped to its parent's interval
  (:func:`bounded_leaf_value`). The penalised objective of a leaf,
  ``G γ + ½ (H + λ) γ²``, is a parabola in ``γ`` with its minimum at ``γ*``,
  so on an interval its minimum is at the clipped ``γ*``;
* a split on a constrained feature is a candidate only when its two values
  are in order (``γ_L ≤ γ_R`` for +1, ``γ_L ≥ γ_R`` for −1), and its gain is
  the drop in the objective at the *clipped* values (:func:`bounded_gain`):
  ``score(γ) = −(2 G γ + (H + λ) γ²)``, which is ``G²/(H + λ)`` at ``γ = γ*``;
* the children of a split on a constrained feature share the interval out at
  the mid-value ``γ_mid = (γ_L + γ_R)/2`` (:func:`children_bounds`): for +1
  the left child's subtree lives in ``[lower, γ_mid]`` and the right one's in
  ``[γ_mid, upper]``. Every leaf below the left child is then ``≤ γ_mid ≤``
  every leaf below the right child, so moving ``x_ℓ`` up across the split can only
  raise the output; splits on other features pass the interval on whole.

This is XGBoost's rule (its ``TreeEvaluator`` in ``src/tree/split_evaluator.h``:
weights clipped to the node's bounds, ``−inf`` gain for a split out of order,
bounds set at the mid-value when a split is applied), and with constraints
every split's gain, on constrained features or not, is computed at the clipped
values, as there. LightGBM's ``monotone_constraints_method="basic"`` and
scikit-learn's HistGradientBoosting carry the same mid-value bounds;
scikit-learn scores a split by ``−Σ G γ`` at the clipped values rather than by
the objective, so its splits can differ where a value is clipped.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["bounded_gain", "bounded_leaf_value", "check_monotonic_cst", "children_bounds",
           "score_of_value"]


def check_monotonic_cst(monotonic_cst, n_features):
    """``monotonic_cst`` as an int8 array of ``n_features`` values in {−1, 0, 1}, or None.

    None, or all zeros, means no constraint (None is returned, and the tree
    grows exactly as without the parameter). Anything else is a
    ``ValueError`` naming ``monotonic_cst``.
    """
    if monotonic_cst is None:
        return None
    if isinstance(monotonic_cst, (str, dict)):
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 and 1, one per "
                         f"feature, got {monotonic_cst!r}")
    values = np.asarray(monotonic_cst)
    if values.ndim != 1 or len(values) != n_features:
        raise ValueError(f"monotonic_cst has shape {values.shape}, but X has {n_features} "
                         f"features: give one of -1, 0, 1 per feature")
    try:
        is_valid = np.isin(values, (-1, 0, 1)) & (values.astype(float) == values.astype(int))
    except (TypeError, ValueError):
        is_valid = np.zeros(len(values), dtype=bool)
    if not np.all(is_valid):
        raise ValueError("monotonic_cst must contain only -1 (decreasing), 0 (no constraint) "
                         f"and 1 (increasing), got {values.tolist()!r}")
    values = values.astype(np.int8)
    return values if np.any(values != 0) else None


@njit(cache=True, nogil=True)
def bounded_leaf_value(sum_wz, sum_w, l2_regularization, lower, upper):
    """``γ* = −G/(H + λ)`` clipped to ``[lower, upper]``: the leaf's best value on the interval."""
    denominator = sum_w + l2_regularization
    value = sum_wz / denominator if denominator > 0 else 0.0
    return min(max(value, lower), upper)


@njit(cache=True, nogil=True)
def score_of_value(sum_wz, sum_w, l2_regularization, value):
    """``−(2 G γ + (H + λ) γ²)``: twice the drop in ``G γ + ½ (H + λ) γ²`` from ``γ = 0`` to ``γ``.

    With ``Σ w z = −G`` and ``Σ w = H``; at ``γ = γ*`` it is ``G²/(H + λ)``,
    the score of an unbounded leaf (``score`` in :mod:`boostlib.trees.splitting`).
    """
    return 2.0 * sum_wz * value - (sum_w + l2_regularization) * value * value


@njit(cache=True, nogil=True)
def bounded_gain(left_wz, left_w, right_wz, right_w, l2_regularization, constraint, lower,
                 upper, parent_value):
    """``score(γ_L) + score(γ_R) − score(γ_P)`` at the clipped values; ``−∞`` out of order.

    ``γ_L``, ``γ_R`` are the children's values clipped to the parent's
    ``[lower, upper]``, ``γ_P`` the parent's own (already bounded) value;
    ``constraint`` is the split feature's ``monotonic_cst`` (+1 needs
    ``γ_L ≤ γ_R``, −1 needs ``γ_L ≥ γ_R``).
    """
    value_left = bounded_leaf_value(left_wz, left_w, l2_regularization, lower, upper)
    value_right = bounded_leaf_value(right_wz, right_w, l2_regularization, lower, upper)
    if (constraint > 0 and value_left > value_right) or (
            constraint < 0 and value_left < value_right):
        return -np.inf
    return (score_of_value(left_wz, left_w, l2_regularization, value_left)
            + score_of_value(right_wz, right_w, l2_regularization, value_right)
            - score_of_value(left_wz + right_wz, left_w + right_w, l2_regularization,
                             parent_value))


def children_bounds(constraint, lower, upper, value_left, value_right):
    """The intervals ``(lower_L, upper_L), (lower_R, upper_R)`` of a split's two children.

    A split on an unconstrained feature passes ``[lower, upper]`` to both;
    on a constrained one the interval is cut at ``γ_mid = (γ_L + γ_R)/2``: for
    +1 the left child gets ``[lower, γ_mid]`` and the right ``[γ_mid, upper]``, for
    −1 the other way round.
    """
    if constraint == 0:
        return (lower, upper), (lower, upper)
    mid = (value_left + value_right) / 2
    if constraint > 0:
        return (lower, mid), (mid, upper)
    return (mid, upper), (lower, mid)


def bound_children(node, left, right, constraint, l2_regularization):
    """Set the children's values (clipped to ``node``'s interval) and their own intervals.

    ``node``, ``left`` and ``right`` are the grower's nodes
    (:class:`~boostlib.trees.grower.TreeNode`); ``constraint`` is the split
    feature's ``monotonic_cst``.
    """
    for child in (left, right):
        child.value = bounded_leaf_value(child.sum_wz, child.sum_w, l2_regularization,
                                         node.lower, node.upper)
    (left.lower, left.upper), (right.lower, right.upper) = children_bounds(
        constraint, node.lower, node.upper, left.value, right.value)
