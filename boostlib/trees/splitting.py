r"""Split finding: the best bin boundary of a node by XGBoost's gain (chapter 8).

Fitting a leaf value ``γ`` to the node's rows by weighted least squares with an
L2 penalty, ``Σ w (z − γ)² + λ γ²``, gives ``γ = Σ w z / (Σ w + λ)`` and lowers
the sum by ``(Σ w z)² / (Σ w + λ)``. With ``G = −Σ w z`` and ``H = Σ w``
(``= Σ g`` and ``Σ h`` under the Newton direction) that is XGBoost's

    leaf value   γ* = −G / (H + λ)                       (eq. eq-hist-leaf-value)
    split gain   Δ = G_L²/(H_L + λ) + G_R²/(H_R + λ) − G²/(H + λ)    (eq. eq-hist-gain)

The paper (Chen & Guestrin, 2016) writes the gain with a factor ½ and the
price per leaf τ subtracted (eq. eq-hist-gain-paper); XGBoost's code and this
module compare the un-halved ``Δ`` with ``min_split_gain`` (XGBoost's ``gamma``,
which is 2τ).

A candidate is valid when both children keep ``≥ min_samples_leaf`` rows and
``Σ w ≥ min_child_weight`` (and ``Σ w > 0``), and any positive ``Δ`` can be
the best split (XGBoost also refuses a split with ``Δ ≤ 10⁻⁶``, its constant
``kRtEps``). Rows with a missing value go to the left and to the right in
turn, and the better side is kept: the node's learned default direction.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .monotone import bounded_gain
from .threads import PRANGE_ONLY

__all__ = ["best_split", "gain", "leaf_value", "valid_children"]


@njit(cache=True, nogil=True)
def leaf_value(sum_wz, sum_w, l2_regularization):
    """``γ* = Σ w z / (Σ w + λ) = −G/(H + λ)`` (chapter 8, eq. ``eq-hist-leaf-value``).

    0 for an empty node.
    """
    denominator = sum_w + l2_regularization
    return sum_wz / denominator if denominator > 0 else 0.0


@njit(cache=True, nogil=True)
def score(sum_wz, sum_w, l2_regularization):
    """One leaf's ``G²/(H + λ)``: what its best value lowers the least-squares sum by (above),
    and twice what it lowers XGBoost's objective ``G γ + ½ (H + λ) γ²`` by.

    It is −2 times the leaf's term of the structure score (chapter 8, eq.
    ``eq-hist-structure-score``).
    """
    return sum_wz * sum_wz / (sum_w + l2_regularization)


@njit(cache=True, nogil=True)
def gain(left_wz, left_w, right_wz, right_w, l2_regularization):
    """``Δ = G_L²/(H_L + λ) + G_R²/(H_R + λ) − G²/(H + λ)`` (chapter 8, eq. ``eq-hist-gain``).

    Called with ``left_wz = Σ_L w z = −G_L``, ``left_w = Σ_L w = H_L`` and the
    same sums over the right child; the signs do not matter in the squares.
    """
    return (score(left_wz, left_w, l2_regularization)
            + score(right_wz, right_w, l2_regularization)
            - score(left_wz + right_wz, left_w + right_w, l2_regularization))


@njit(cache=True, nogil=True)
def valid_children(left_n, left_w, total_n, total_w, min_samples_leaf, min_child_weight):
    """Whether a split may leave ``left_n`` rows of weight ``left_w`` on the left.

    Both children need ``≥ min_samples_leaf`` rows and ``Σ w ≥ min_child_weight``
    and ``Σ w > 0``: the rule of the numeric and the categorical scan alike.
    """
    right_n = total_n - left_n
    if left_n < min_samples_leaf or right_n < min_samples_leaf:
        return False
    right_w = total_w - left_w
    return not (left_w < min_child_weight or right_w < min_child_weight
                or left_w <= 0.0 or right_w <= 0.0)


@njit(cache=True, nogil=True)
def _best_split_of_feature(hist_j, n_bins_j, total_wz, total_w, total_n, missing_bin,
                           l2_regularization, min_child_weight, min_samples_leaf, j, bounds):
    """Feature ℓ's best boundary: ``(gain, bin, missing_left, Σwz_left, Σw_left, n_left)``.

    Feature ℓ is the code's ``j``. The scan :func:`best_split` documents, over one
    feature; ``gain = 0`` and
    ``bin = −1`` when no candidate is valid.
    """
    best = (0.0, -1, False, 0.0, 0.0, 0.0)
    best_gain = 0.0
    missing_wz = hist_j[missing_bin, 0]
    missing_w = hist_j[missing_bin, 1]
    missing_n = hist_j[missing_bin, 2]
    for missing_left in (False, True):
        if missing_left and missing_n == 0:
            break  # no NaN in the node: both sides are the same scan
        left_wz = missing_wz if missing_left else 0.0
        left_w = missing_w if missing_left else 0.0
        left_n = missing_n if missing_left else 0.0
        # with NaN on the right, the last boundary (all values left) is a split too
        last = n_bins_j - 1 if missing_left or missing_n == 0 else n_bins_j
        for b in range(last):
            left_wz += hist_j[b, 0]
            left_w += hist_j[b, 1]
            left_n += hist_j[b, 2]
            if not valid_children(left_n, left_w, total_n, total_w, min_samples_leaf,
                                  min_child_weight):
                continue
            right_w = total_w - left_w
            right_wz = total_wz - left_wz
            if bounds is None:
                candidate = gain(left_wz, left_w, right_wz, right_w, l2_regularization)
            else:  # monotone constraints (:mod:`~boostlib.trees.monotone`)
                candidate = bounded_gain(left_wz, left_w, right_wz, right_w,
                                         l2_regularization, bounds[0][j], bounds[1],
                                         bounds[2], bounds[3])
            if candidate > best_gain:
                best_gain = candidate
                best = (candidate, b, missing_left, left_wz, left_w, left_n)
    return best


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def best_split(hist, total_wz, total_w, total_n, n_bins, missing_bin, l2_regularization,
               min_child_weight, min_samples_leaf, bounds=None):
    """The best split of a node from its histogram ``hist`` (n_features, n_bins_total, 3).

    ``total_wz``, ``total_w``, ``total_n`` are the node's ``Σ w z = −G``,
    ``Σ w = H`` and row count; ``n_bins[j]`` is the number of non-missing bins
    of feature ``j`` and ``missing_bin`` the index of the NaN bin;
    ``l2_regularization`` is ``λ``. Scans
    every boundary "bins ``≤ s`` go left", with the node's NaN rows on the
    right and then on the left; a strictly larger gain replaces the best so
    far, so ties go to the lower feature, then to NaN on the right (every bin of
    that scan comes first), then to the lower bin.
    With NaN rows in the node, "every non-missing row left, NaN right" is a
    candidate too. ``bounds``, under monotone constraints, is
    ``(monotonic_cst, lower, upper, γ_node)``: the gains are then
    :func:`~boostlib.trees.monotone.bounded_gain`.

    Returns ``(gain, feature, bin, missing_left, Σwz_left, Σw_left, n_left)``;
    ``feature = −1`` when no split is valid.

    The features are scanned in parallel, each whole by one thread; their best
    candidates are then compared in feature order with the same strict ``>``,
    so the result, ties included, is the same on any number of threads.
    """
    n_features = hist.shape[0]
    gains = np.zeros(n_features)
    bins = np.zeros(n_features, dtype=np.intp)
    missing_lefts = np.zeros(n_features, dtype=np.bool_)
    left_sums = np.zeros((n_features, 3))
    for j in prange(n_features):
        found = _best_split_of_feature(hist[j], n_bins[j], total_wz, total_w, total_n,
                                       missing_bin, l2_regularization, min_child_weight,
                                       min_samples_leaf, j, bounds)
        gains[j], bins[j], missing_lefts[j] = found[0], found[1], found[2]
        left_sums[j, 0], left_sums[j, 1], left_sums[j, 2] = found[3], found[4], found[5]
    best = (0.0, -1, 0, False, 0.0, 0.0, 0.0)
    best_gain = 0.0
    for j in range(n_features):  # in feature order: ties go to the lower feature
        if gains[j] > best_gain:
            best_gain = gains[j]
            best = (gains[j], j, bins[j], missing_lefts[j], left_sums[j, 0], left_sums[j, 1],
                    left_sums[j, 2])
    return best
