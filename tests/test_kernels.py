"""The histogram trees' numba kernels against their documented rules, written out by brute force.

``best_split`` scans cumulative sums; the reference below forms every
candidate's children afresh from the histogram, in the documented order
(feature, then NaN on the right before NaN on the left, then bin), so the
two can only agree if the scan adds, bounds and compares as documented.
"""

import numpy as np
import pytest

from boostlib.trees.binning import map_to_bins
from boostlib.trees.splitting import best_split, gain, leaf_value

NO_SPLIT = (0.0, -1, 0, False, 0.0, 0.0, 0.0)


def brute_force_split(hist, n_bins, missing_bin, lam, min_child_weight, min_samples_leaf):
    """Every candidate "bins ≤ b left, NaN left or right", first strictly best kept."""
    total = hist[0, : n_bins[0]].sum(axis=0) + hist[0, missing_bin]
    best, best_gain = NO_SPLIT, 0.0
    for j in range(hist.shape[0]):
        missing = hist[j, missing_bin]
        for missing_left in (False, True):
            if missing_left and missing[2] == 0:
                continue
            for b in range(n_bins[j]):
                left = hist[j, : b + 1].sum(axis=0) + (missing if missing_left else 0.0)
                right = total - left
                if min(left[2], right[2]) < min_samples_leaf:
                    continue
                if min(left[1], right[1]) < min_child_weight or min(left[1], right[1]) <= 0:
                    continue
                candidate = gain(left[0], left[1], right[0], right[1], lam)
                if candidate > best_gain:
                    best_gain = candidate
                    best = (candidate, j, b, missing_left, left[0], left[1], left[2])
    return best


def random_histogram(rng, n_features, max_bins):
    """A node's histogram: rows per bin, integer or fractional weights, NaN rows or none."""
    missing_bin = max_bins
    n_bins = rng.integers(1, max_bins + 1, size=n_features)
    hist = np.zeros((n_features, max_bins + 1, 3))
    integer_weights = rng.random() < 0.5
    # every feature holds the same rows, so each draws its counts from one total
    n_rows = rng.integers(2, 12)
    rows_w = rng.integers(1, 4, size=n_rows).astype(float) if integer_weights \
        else rng.uniform(0.05, 2.0, size=n_rows)
    rows_z = rng.normal(size=n_rows)
    nan_rows = rng.random(n_rows) < rng.choice([0.0, 0.15, 0.4])
    for j in range(n_features):
        bins = np.where(nan_rows, missing_bin, rng.integers(0, n_bins[j], size=n_rows))
        np.add.at(hist[j], (bins, 0), rows_w * rows_z)
        np.add.at(hist[j], (bins, 1), rows_w)
        np.add.at(hist[j], (bins, 2), 1.0)
    if n_features > 1 and rng.random() < 0.3:  # a duplicate feature: exact ties
        hist[-1], n_bins[-1] = hist[0], n_bins[0]
    total = hist[0, : n_bins[0]].sum(axis=0) + hist[0, missing_bin]
    return hist, n_bins, missing_bin, total, integer_weights


@pytest.mark.parametrize("seed", range(150))
def test_best_split_is_the_brute_force_best_candidate(seed):
    rng = np.random.default_rng(seed)
    hist, n_bins, missing_bin, total, integer_weights = random_histogram(
        rng, n_features=int(rng.integers(1, 4)), max_bins=int(rng.integers(2, 6)))
    lam = float(rng.choice([0.0, 0.5]))
    # integer weights and thresholds make a child weigh exactly min_child_weight
    min_child_weight = float(rng.choice([0.0, 1.0, 2.0] if integer_weights else [0.0, 0.3]))
    min_samples_leaf = int(rng.choice([1, 2]))
    args = (lam, min_child_weight, min_samples_leaf)
    found = best_split(hist, total[0], total[1], total[2], n_bins, missing_bin, *args)
    expected = brute_force_split(hist, n_bins, missing_bin, *args)
    assert found[1:4] == expected[1:4]
    np.testing.assert_allclose(np.array(found[:1] + found[4:], dtype=float),
                               np.array(expected[:1] + expected[4:], dtype=float),
                               rtol=1e-12, atol=1e-12)


def _one_feature(*bins_w_z_n, missing=(0.0, 0.0, 0.0)):
    """A one-feature histogram from (Σwz, Σw, n) per bin, NaN row last."""
    hist = np.array([list(bins_w_z_n) + [missing]], dtype=float)
    total = hist[0].sum(axis=0)
    return hist, np.array([len(bins_w_z_n)]), len(bins_w_z_n), total


def _split(hist, n_bins, missing_bin, total, lam=0.0, min_child_weight=0.0, min_samples_leaf=1):
    return best_split(hist, total[0], total[1], total[2], n_bins, missing_bin,
                      lam, min_child_weight, min_samples_leaf)


def test_a_node_with_no_valid_split_returns_the_documented_no_split():
    hist, n_bins, missing_bin, total = _one_feature((3.0, 1.0, 1.0), (-2.0, 1.0, 1.0))
    assert _split(hist, n_bins, missing_bin, total, min_samples_leaf=2) == NO_SPLIT
    assert _split(hist, n_bins, missing_bin, total, min_child_weight=1.5) == NO_SPLIT


def test_a_single_nan_row_alone_on_the_right_is_a_candidate():
    # the best split sends every non-missing row left and the one NaN row right
    hist, n_bins, missing_bin, total = _one_feature(
        (1.0, 1.0, 1.0), (1.0, 1.0, 1.0), missing=(-5.0, 1.0, 1.0))
    found = _split(hist, n_bins, missing_bin, total)
    assert found[1:4] == (0, 1, False)
    assert found[4:] == (2.0, 2.0, 2.0)


def test_a_single_nan_row_joins_the_left_child_when_that_is_best():
    hist, n_bins, missing_bin, total = _one_feature(
        (-4.0, 1.0, 1.0), (3.0, 1.0, 1.0), (3.0, 1.0, 1.0), missing=(-4.0, 1.0, 1.0))
    found = _split(hist, n_bins, missing_bin, total)
    assert found[1:4] == (0, 0, True)
    assert found[4:] == (-8.0, 2.0, 2.0)


def test_a_child_of_zero_weight_is_never_valid_even_with_min_child_weight_zero():
    # the right bin's rows weigh nothing but carry a rounding residue of Σwz: its score
    # Σwz²/(0 + λ) would win every comparison
    hist, n_bins, missing_bin, total = _one_feature((1.0, 2.0, 2.0), (3.0, 0.0, 1.0))
    assert _split(hist, n_bins, missing_bin, total, lam=1.0) == NO_SPLIT
    hist, n_bins, missing_bin, total = _one_feature((3.0, 0.0, 1.0), (1.0, 2.0, 2.0))
    assert _split(hist, n_bins, missing_bin, total, lam=1.0) == NO_SPLIT


@pytest.mark.parametrize("side", [0, 1])
def test_a_child_weighing_exactly_min_child_weight_is_valid(side):
    bins = [(2.0, 2.0, 2.0), (-6.0, 3.0, 3.0)]
    hist, n_bins, missing_bin, total = _one_feature(*bins[::1 - 2 * side])
    found = _split(hist, n_bins, missing_bin, total, min_child_weight=2.0)
    assert found[1:3] == (0, 0)
    assert found[0] > 0


def test_equal_gains_go_to_the_lower_feature():
    hist, n_bins, missing_bin, total = _one_feature((2.0, 1.0, 1.0), (-2.0, 1.0, 1.0))
    twice = np.concatenate([hist, hist])
    assert _split(twice, np.repeat(n_bins, 2), missing_bin, total)[1] == 0


def test_a_constant_node_is_not_split():
    hist, n_bins, missing_bin, total = _one_feature((2.0, 2.0, 2.0), (1.0, 1.0, 1.0))
    assert _split(hist, n_bins, missing_bin, total) == NO_SPLIT


@pytest.mark.parametrize("sum_wz", [0.0, 3.0])
def test_the_leaf_value_of_an_empty_node_is_zero(sum_wz):
    assert leaf_value(sum_wz, 0.0, 0.0) == 0.0


def test_map_to_bins_counts_the_thresholds_below_x_exactly_at_the_thresholds():
    t = np.array([[-1.0, 0.0, 0.5, 2.0, 7.0, 9.0, 10.0]])
    x = np.concatenate([t[0], t[0] - 1e-9, t[0] + 1e-9, [-5.0, 50.0]])
    bins = np.full((1, len(x)), 255, dtype=np.uint8)
    map_to_bins(x[:, None], t, np.array([t.shape[1]]), 255, bins)
    np.testing.assert_array_equal(bins[0], np.searchsorted(t[0], x, side="left"))


def test_map_to_bins_puts_a_feature_with_no_thresholds_in_bin_zero_and_goes_on():
    X = np.array([[4.0, 1.0, np.nan], [4.0, 3.0, 0.0], [4.0, np.nan, 5.0]])
    thresholds = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 2.0]])
    bins = np.full((3, 3), 7, dtype=np.uint8)
    map_to_bins(X, thresholds, np.array([0, 1, 2]), 9, bins)
    np.testing.assert_array_equal(bins, [[0, 0, 0], [0, 1, 9], [9, 0, 2]])
