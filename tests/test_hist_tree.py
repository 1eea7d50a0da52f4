"""HistTreeRegressor (chapter 8): its formulas, its peers, missing values and bad input."""

import pickle
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.exceptions import DataConversionWarning, NotFittedError
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks
from xgboost import XGBClassifier

from boostlib import BoostingClassifier, BoostingRegressor, HistTreeRegressor
from boostlib.trees import Binner, binning, grower, hist_tree
from boostlib.trees.grower import grow, weighted_targets
from boostlib.trees.histograms import build_histogram, build_root_histogram
from boostlib.trees.splitting import gain, leaf_value


def integer_data(n=3000, d=6, levels=8, seed=0):
    """Features with few distinct integer values, every value present, and a binary label."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, levels, size=(n, d)).astype(float)
    F = X[:, 0] - levels / 2 + 0.5 * (X[:, 1] - levels / 2) * (X[:, 2] > levels / 2)
    y = (rng.rand(n) < 1 / (1 + np.exp(-F))).astype(int)
    X_fresh = rng.randint(0, levels, size=(1000, d)).astype(float)
    return X, y, X_fresh, F + rng.randn(n)


@parametrize_with_checks([HistTreeRegressor()])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


# -- the formulas ---------------------------------------------------------------
@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(0.01, 3)), min_size=1, max_size=30),
       st.floats(0, 10))
@settings(max_examples=60, deadline=None)
def test_leaf_value_is_the_argmin_of_the_penalised_least_squares(pairs, lam):
    """``v* = Σwz/(Σw + λ)`` minimises ``Σ w (z − v)² + λ v²`` (eq. leaf-weight)."""
    z, w = np.array(pairs).T
    objective = lambda v: np.sum(w * (z - v) ** 2) + lam * v * v  # noqa: E731
    numeric = minimize_scalar(objective, bounds=(-6, 6), method="bounded",
                              options={"xatol": 1e-10}).x
    assert leaf_value(np.sum(w * z), np.sum(w), lam) == pytest.approx(numeric, abs=1e-6)


@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(0.01, 3)), min_size=2, max_size=30),
       st.floats(0, 10), st.integers(1, 29))
@settings(max_examples=60, deadline=None)
def test_gain_is_the_drop_in_the_penalised_least_squares(pairs, lam, cut):
    """``Δ = G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)`` is the drop in ``Σw(z−v)² + λv²``
    when one leaf becomes two, each at its optimal value (eq. split-gain)."""
    z, w = np.array(pairs).T
    cut = min(cut, len(z) - 1)

    def best(zs, ws):
        v = leaf_value(np.sum(ws * zs), np.sum(ws), lam)
        return np.sum(ws * (zs - v) ** 2) + lam * v * v

    drop = best(z, w) - best(z[:cut], w[:cut]) - best(z[cut:], w[cut:])
    delta = gain(np.sum(w[:cut] * z[:cut]), np.sum(w[:cut]), np.sum(w[cut:] * z[cut:]),
                 np.sum(w[cut:]), lam)
    assert delta == pytest.approx(drop, rel=1e-9, abs=1e-9)


def test_histograms_add_up_and_subtraction_gives_the_sibling():
    rng = np.random.RandomState(0)
    X = rng.randn(500, 4)
    binned = Binner(max_bins=16).fit_transform(X)
    wz, w = rng.randn(500), rng.rand(500)
    root = build_root_histogram(binned.bins, wz, w, 17)
    np.testing.assert_allclose(root[:, :, 0].sum(axis=1), wz.sum())
    np.testing.assert_allclose(root[:, :, 2].sum(axis=1), 500)
    left = np.flatnonzero(X[:, 2] < 0.3)
    right = np.flatnonzero(X[:, 2] >= 0.3)
    built = build_histogram(binned.bins, right, wz, w, 17)
    np.testing.assert_allclose(root - build_histogram(binned.bins, left, wz, w, 17), built,
                               atol=1e-12)
    np.testing.assert_array_equal(built[0, :, 2], np.bincount(binned.bins[0, right],
                                                              minlength=17))
    # gathered into arrays of the caller's: the same histogram; too short ones are refused
    longer = np.full(600, np.nan), np.full(600, np.nan)
    np.testing.assert_array_equal(build_histogram(binned.bins, right, wz, w, 17, longer), built)
    short = np.empty(len(right) - 1), np.empty(len(right))
    with pytest.raises(ValueError, match=f"fewer than the {len(right)} rows"):
        build_histogram(binned.bins, right, wz, w, 17, short)


# -- binning ----------------------------------------------------------------------
def test_few_distinct_values_get_one_bin_each_at_midpoints():
    X = np.array([[3.0], [1.0], [2.0], [1.0], [np.nan], [7.0]])
    binner = Binner(max_bins=255).fit(X)
    np.testing.assert_array_equal(binner.thresholds_[0], [1.5, 2.5, 5.0])
    np.testing.assert_array_equal(binner.transform(X).bins[0], [2, 0, 1, 0, 255, 3])


def test_many_values_get_quantile_bins_of_equal_size():
    X = np.random.RandomState(0).randn(20_000, 1)
    bins = Binner(max_bins=20).fit_transform(X).bins[0]
    counts = np.bincount(bins)
    assert len(counts) == 20 and counts.min() > 900 and counts.max() < 1100


def test_thresholds_come_from_a_subsample_above_its_size(monkeypatch):
    monkeypatch.setattr(binning, "SUBSAMPLE", 1000)
    X = np.random.RandomState(0).randn(5000, 2)
    a = Binner(max_bins=10, random_state=0).fit(X).thresholds_[0]
    b = Binner(max_bins=10, random_state=1).fit(X).thresholds_[0]
    assert not np.array_equal(a, b)  # a different subsample of 1000 rows
    np.testing.assert_array_equal(a, Binner(max_bins=10, random_state=0).fit(X).thresholds_[0])


@given(st.integers(0, 10_000), st.integers(2, 255))
@settings(max_examples=25, deadline=None)
def test_raw_values_route_exactly_as_their_bins(seed, max_bins):
    """``x ≤ t_b`` goes left exactly when ``bin(x) ≤ b``: raw X and binned X predict alike."""
    rng = np.random.RandomState(seed)
    X = np.round(rng.randn(300, 3), rng.randint(0, 3))
    X[rng.rand(300, 3) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.randn(300)
    tree = HistTreeRegressor(max_depth=4, max_bins=max_bins).fit(X, y)
    np.testing.assert_array_equal(tree.predict(X), tree.predict(tree.binner_.transform(X)))


# -- peers ------------------------------------------------------------------------
@pytest.mark.parametrize("depth,lam,min_child_weight", [(2, 1.0, 1.0), (3, 0.5, 0.1),
                                                        (4, 2.0, 5.0), (3, 10.0, 1e-3)])
def test_newton_boosting_with_hist_trees_is_xgboost(depth, lam, min_child_weight):
    """boostlib's Newton loop with HistTreeRegressor equals XGBoost, hist and exact.

    XGBoost keeps gradients and Hessians in float32 (relative rounding ~6e-8 per
    stage), so the scores agree to ~1e-6 after 30 stages, not to 1e-12; 1e-5 allows
    for that. It also refuses splits whose gain is ≤ 1e-6 (its ``kRtEps``); on these
    data every split boostlib makes gains far more, so the trees are the same.
    ``exact`` places its thresholds at the midpoints of the values present in a
    node, so a fresh row with a value the node never saw may go the other way:
    it is compared on the training rows only.
    """
    X, y, X_fresh, _ = integer_data()
    ours = BoostingClassifier(
        loss="log_loss", direction="newton", step="constant", init="zero",
        learner=HistTreeRegressor(max_depth=depth, l2_regularization=lam,
                                  min_child_weight=min_child_weight),
        n_estimators=30, learning_rate=0.3).fit(X, y)
    for method in ("hist", "exact"):
        xgb = XGBClassifier(tree_method=method, max_depth=depth, reg_lambda=lam,
                            min_child_weight=min_child_weight, gamma=0, base_score=0.5,
                            n_estimators=30, learning_rate=0.3, n_jobs=1).fit(X, y)
        rows = (X, X_fresh) if method == "hist" else (X,)
        for data in rows:
            np.testing.assert_allclose(ours.decision_function(data),
                                       xgb.predict(data, output_margin=True), rtol=0, atol=1e-5)


@pytest.mark.parametrize("min_split_gain", [0.5, 3.0])
def test_min_split_gain_is_xgboosts_gamma(min_split_gain):
    """A split is refused when its un-halved gain Δ is below ``gamma``, as XGBoost hist does."""
    X, y, X_fresh, _ = integer_data(seed=1)
    ours = BoostingClassifier(
        loss="log_loss", direction="newton", step="constant", init="zero",
        learner=HistTreeRegressor(max_depth=4, l2_regularization=1.0, min_child_weight=1.0,
                                  min_split_gain=min_split_gain),
        n_estimators=20, learning_rate=0.3).fit(X, y)
    xgb = XGBClassifier(tree_method="hist", max_depth=4, reg_lambda=1.0, min_child_weight=1.0,
                        gamma=min_split_gain, base_score=0.5, n_estimators=20,
                        learning_rate=0.3, n_jobs=1).fit(X, y)
    leaves = [tree.get_n_leaves() for tree in ours.estimators_]
    assert min(leaves) < 16  # the penalty did refuse splits
    np.testing.assert_allclose(ours.decision_function(X_fresh),
                               xgb.predict(X_fresh, output_margin=True), rtol=0, atol=1e-5)


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_gradient_boosting_with_hist_trees_is_the_exact_tree_loop(depth):
    """Squared error, gradient direction, λ = 0: the same loop as with scikit-learn's tree.

    With one bin per distinct value the split candidates are the exact tree's; ties
    between two splits (equal gains up to rounding) would be broken by each tree's
    own order, and the normal noise in ``y`` makes them vanishingly unlikely.
    """
    X, _, X_fresh, y = integer_data(seed=2)
    settings_ = dict(direction="gradient", n_estimators=40, learning_rate=0.2)
    ours = BoostingRegressor(learner=HistTreeRegressor(max_depth=depth), **settings_).fit(X, y)
    exact = BoostingRegressor(learner=DecisionTreeRegressor(max_depth=depth), **settings_)
    exact.fit(X, y)
    np.testing.assert_allclose(ours.predict(X), exact.predict(X), rtol=0, atol=1e-10)


def test_leaf_newton_rewrites_hist_tree_leaves_as_scikit_learn_does():
    """Gradient direction + TreeBoost leaves on hist trees is scikit-learn's GradientBoosting
    (on few distinct values), at every stage.

    Not with ``subsample < 1``: scikit-learn's trees draw feature permutations from
    the shared random state and HistTreeRegressor draws nothing, so the later bags
    differ (zero-weight rows are tested on their own below).
    """
    X, y, _, _ = integer_data(seed=3)
    ours = BoostingClassifier(learner=HistTreeRegressor(max_depth=3), n_estimators=40,
                              random_state=5).fit(X, y)
    theirs = GradientBoostingClassifier(max_depth=3, n_estimators=40, random_state=5).fit(X, y)
    for F_ours, F_theirs in zip(ours.staged_decision_function(X),
                                theirs.staged_decision_function(X), strict=True):
        np.testing.assert_allclose(F_ours, F_theirs[:, 0], rtol=0, atol=1e-10)


def test_rows_of_zero_weight_take_no_part():
    """A subsample's out-of-bag rows (w = 0) change neither the splits nor the leaf values."""
    X, _, _, y = integer_data(seed=7)
    w = np.random.RandomState(0).rand(len(y)) * (np.arange(len(y)) % 3 > 0)
    binned = Binner().fit_transform(X)
    with_zeros = HistTreeRegressor(max_depth=4).fit(binned, y, sample_weight=w)
    kept = w > 0
    without = HistTreeRegressor(max_depth=4).fit(binned[kept], y[kept], sample_weight=w[kept])
    np.testing.assert_array_equal(with_zeros.predict(X), without.predict(X))
    np.testing.assert_array_equal(with_zeros.tree_.n_node_samples, without.tree_.n_node_samples)


def test_best_first_growth_splits_the_leaf_with_the_largest_gain():
    X, _, _, y = integer_data(seed=4)
    depth_wise = HistTreeRegressor(max_depth=2).fit(X, y)
    full = HistTreeRegressor(max_depth=2, max_leaf_nodes=4).fit(X, y)
    np.testing.assert_array_equal(full.predict(X), depth_wise.predict(X))
    three = HistTreeRegressor(max_depth=None, max_leaf_nodes=3).fit(X, y)
    tree = depth_wise.tree_
    better = 1 if tree.gain[1] > tree.gain[2] else 2  # the child split first
    assert three.get_n_leaves() == 3
    assert three.tree_.feature[better] == tree.feature[better]
    assert three.tree_.children_left[3 - better] == -1
    deep = HistTreeRegressor(max_depth=None, max_leaf_nodes=40).fit(X, y)
    assert deep.get_n_leaves() == 40 and deep.get_depth() > 5


def test_boosting_bins_X_once_per_fit(monkeypatch):
    calls = []
    original = Binner.fit

    def counting_fit(self, X, sample_weight=None):
        calls.append(len(X))
        return original(self, X, sample_weight)

    monkeypatch.setattr(Binner, "fit", counting_fit)
    X, y, _, _ = integer_data(n=400)
    model = BoostingClassifier(learner=HistTreeRegressor(), n_estimators=15,
                               n_iter_no_change=3, random_state=0).fit(X, y)
    assert calls == [360]  # once, on the training part of the early-stopping split
    assert all(tree.binner_ is model.binner_ for tree in model.estimators_)


# -- missing values ---------------------------------------------------------------
@pytest.mark.parametrize("nan_side", ["left", "right"])
def test_missingness_that_carries_the_label_is_learned(nan_side):
    """NaN rows go to the side whose value they need: a learned default direction."""
    rng = np.random.RandomState(0)
    X = rng.randint(0, 10, size=(2000, 2)).astype(float)
    missing = rng.rand(2000) < 0.3
    X[missing, 0] = np.nan
    # NaN rows share their label with the low values (left) or the high values (right)
    low = np.where(missing, nan_side == "left", X[:, 0] < 5)
    y = np.where(low, 0, 1)
    model = BoostingClassifier(learner=HistTreeRegressor(max_depth=1), n_estimators=30,
                               learning_rate=0.5).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.estimators_[0].tree_.missing_left[0] == (nan_side == "left")


def test_nan_in_a_feature_never_missing_in_training_follows_the_heavier_child():
    X, _, _, y = integer_data(seed=5)
    tree = HistTreeRegressor(max_depth=1).fit(X, y)
    t = tree.tree_
    heavier = 1 if t.weighted_n_node_samples[1] >= t.weighted_n_node_samples[2] else 2
    X_new = X[:5].copy()
    X_new[:, t.feature[0]] = np.nan
    np.testing.assert_array_equal(tree.predict(X_new), t.value[heavier, 0, 0])
    model = BoostingRegressor(learner=HistTreeRegressor(), n_estimators=10).fit(X, y)
    X_new[:, :] = np.nan
    assert np.all(np.isfinite(model.predict(X_new)))


def test_only_learners_without_nan_support_refuse_nan():
    """scikit-learn's tree, the default, takes NaN too (tests/test_missing_values.py)."""
    from sklearn.linear_model import LinearRegression

    X, y, _, _ = integer_data(n=100)
    X[0, 0] = np.nan
    assert np.all(np.isfinite(BoostingClassifier(n_estimators=2).fit(X, y).decision_function(X)))
    with pytest.raises(ValueError, match="NaN.*LinearRegression"):
        BoostingClassifier(n_estimators=2, learner=LinearRegression(), step="newton").fit(X, y)


# -- bad input --------------------------------------------------------------------
@pytest.mark.parametrize("name,value", [
    ("max_bins", 1), ("max_bins", 256), ("max_bins", 2.5), ("max_depth", 0),
    ("max_leaf_nodes", 1), ("min_samples_leaf", 0), ("min_child_weight", -1.0),
    ("l2_regularization", -0.1), ("l2_regularization", np.inf), ("min_split_gain", -1),
    ("min_split_gain", np.nan), ("min_child_weight", True), ("l2_regularization", "0.1"),
])
def test_bad_parameters_name_the_parameter(name, value):
    X, _, _, y = integer_data(n=50)
    with pytest.raises(ValueError, match=name):
        HistTreeRegressor(**{name: value}).fit(X, y)


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinite_values_raise_naming_X(bad):
    X, _, _, y = integer_data(n=50)
    X[3, 1] = bad
    with pytest.raises(ValueError, match="X"):
        HistTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match="X"):
        BoostingRegressor(learner=HistTreeRegressor(), n_estimators=2).fit(X, y)
    fitted = HistTreeRegressor().fit(X[4:], y[4:])
    with pytest.raises(ValueError, match="X"):
        fitted.predict(X)


def test_wrong_shapes_raise_and_a_failed_fit_leaves_nothing_that_predicts():
    X, _, _, y = integer_data(n=50)
    tree = HistTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        tree.predict(X[:, :3])
    with pytest.raises(ValueError):
        HistTreeRegressor().fit(X, y[:10])
    with pytest.raises(ValueError, match="sample_weight"):
        tree.fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(NotFittedError):
        tree.predict(X)
    model = BoostingRegressor(learner=HistTreeRegressor(), n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="max_bins"):
        model.set_params(learner=HistTreeRegressor(max_bins=300)).fit(X, y)
    with pytest.raises(NotFittedError):
        model.predict(X)


def test_pickle_round_trip_and_a_fixed_random_state_repeats_itself():
    X, _, X_fresh, y = integer_data(seed=6)
    model = BoostingRegressor(learner=HistTreeRegressor(max_leaf_nodes=6, random_state=0),
                              n_estimators=10).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X_fresh), model.predict(X_fresh))
    twin = BoostingRegressor(learner=HistTreeRegressor(max_leaf_nodes=6, random_state=0),
                             n_estimators=10).fit(X, y)
    np.testing.assert_array_equal(twin.predict(X_fresh), model.predict(X_fresh))


@pytest.mark.parametrize("zero_weights", [False, True])
@pytest.mark.parametrize("max_leaf_nodes", [None, 7])
def test_fit_predict_reads_the_fit_as_predict_would(zero_weights, max_leaf_nodes):
    X, _, _, y = integer_data(seed=8)
    X[::11, 2] = np.nan
    w = np.random.RandomState(1).rand(len(y)) * (np.arange(len(y)) % 4 > 0 if zero_weights
                                                 else 1.0)
    binned = Binner().fit_transform(X)
    tree = HistTreeRegressor(max_depth=4, max_leaf_nodes=max_leaf_nodes)
    u = tree.fit_predict(binned, y, sample_weight=w)
    np.testing.assert_array_equal(u, tree.predict(binned))
    np.testing.assert_array_equal(u, tree.predict(X))


# -- the estimator's edges ------------------------------------------------------------
def test_leaves_carry_the_undefined_split_markers():
    """At a leaf the flat arrays say "no split": feature and children −1, bin 0, threshold
    NaN, missing_left False; the gain is 0 (the Tree docstring)."""
    X, _, _, y = integer_data(n=300)
    tree = HistTreeRegressor(max_depth=3).fit(X, y).tree_
    leaf = tree.children_left == -1
    assert leaf.any() and (~leaf).any()
    np.testing.assert_array_equal(tree.feature[leaf], -1)
    np.testing.assert_array_equal(tree.children_right[leaf], -1)
    np.testing.assert_array_equal(tree.bin_threshold[leaf], 0)
    assert np.all(np.isnan(tree.threshold[leaf])) and not tree.missing_left[leaf].any()
    np.testing.assert_array_equal(tree.gain[leaf], 0.0)
    assert np.all(tree.feature[~leaf] >= 0) and np.all(tree.gain[~leaf] > 0)


def test_integer_X_is_binned_and_predicted_as_its_float_copy():
    X, _, X_fresh, y = integer_data(n=300)
    as_int = HistTreeRegressor(max_depth=3).fit(X.astype(int), y)
    as_float = HistTreeRegressor(max_depth=3).fit(X, y)
    np.testing.assert_array_equal(as_int.bin(X.astype(int)).bins, as_float.bin(X).bins)
    np.testing.assert_array_equal(as_int.predict(X_fresh.astype(int)),
                                  as_float.predict(X_fresh))


def test_bin_places_thresholds_from_weighted_rows_with_its_random_state(monkeypatch):
    """``bin`` (what the loop calls once per fit) is Binner(max_bins, random_state)
    fitted to the rows of positive weight; bad X is named."""
    monkeypatch.setattr(binning, "SUBSAMPLE", 500)
    X = np.random.RandomState(1).randn(2000, 2)
    w = (np.arange(2000) % 3 > 0).astype(float)
    tree = HistTreeRegressor(max_bins=16, random_state=3)
    expected = Binner(16, random_state=3).fit(X, w)
    binned = tree.bin(X, sample_weight=w)
    for got, want in zip(binned.binner.thresholds_, expected.thresholds_, strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(binned.bins, expected.transform(X).bins)
    np.testing.assert_array_equal(Binner(16, random_state=3).fit_transform(X, w).bins,
                                  binned.bins)
    other = HistTreeRegressor(max_bins=16, random_state=4).bin(X, sample_weight=w)
    assert not np.array_equal(other.binner.thresholds_[0], binned.binner.thresholds_[0])
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        tree.bin(X)


def test_binned_X_with_the_wrong_features_is_refused_by_name():
    X, _, _, y = integer_data(n=100)
    tree = HistTreeRegressor().fit(X, y)
    narrow = HistTreeRegressor().bin(X[:, :4])
    assert repr(narrow) == "BinnedX(n_samples=100, n_features=4, max_bins=255)"
    with pytest.raises(ValueError, match=r"^X has 4 features, but HistTreeRegressor is "
                                         r"expecting 6 features as input$"):
        tree.predict(narrow)


def test_grow_defaults_are_the_estimators():
    """``grow``'s defaults are HistTreeRegressor's: the same tree from either (small noisy
    data, where leaves of one row, small gains and the depth limit all matter)."""
    rng = np.random.RandomState(3)
    X, y = rng.randn(20, 2), 0.1 * rng.randn(20)
    binned = Binner().fit_transform(X)
    nodes, _ = grow(binned, y, np.ones(20))
    tree = HistTreeRegressor().fit(binned, y).tree_
    np.testing.assert_array_equal([node.value for node in nodes], tree.value[:, 0, 0])
    assert min(node.n for node in nodes) == 1 and tree.max_depth == 3


def test_a_node_of_two_rows_splits_into_two_leaves_of_one():
    """``min_samples_leaf = 1``: two rows are enough to split (n ≥ 2 · min_samples_leaf)."""
    tree = HistTreeRegressor(max_depth=1).fit([[0.0], [1.0]], [0.0, 1.0])
    assert tree.get_n_leaves() == 2
    np.testing.assert_array_equal(tree.predict([[0.0], [1.0]]), [0.0, 1.0])


def test_a_split_whose_gain_equals_min_split_gain_is_made():
    """"At least ``min_split_gain``": a gain equal to it splits, one ulp more does not."""
    X, _, _, y = integer_data(n=200)
    g = HistTreeRegressor(max_depth=1).fit(X, y).tree_.gain[0]
    assert HistTreeRegressor(max_depth=1, min_split_gain=g).fit(X, y).get_n_leaves() == 2
    higher = np.nextafter(g, np.inf)
    assert HistTreeRegressor(max_depth=1, min_split_gain=higher).fit(X, y).get_n_leaves() == 1


@pytest.mark.parametrize("X, y, nan_value", [
    ([[0.0], [0.0], [0.0], [1.0]], [0.0, 0.0, 0.0, 1.0], 0.0),  # left heavier
    ([[0.0], [1.0], [1.0], [1.0]], [0.0, 1.0, 1.0, 1.0], 1.0),  # right heavier
    ([[0.0], [0.0], [1.0], [1.0]], [0.0, 0.0, 1.0, 1.0], 0.0),  # a tie goes left
])
def test_nan_unseen_in_training_follows_the_heavier_child_left_on_a_tie(X, y, nan_value):
    tree = HistTreeRegressor(max_depth=1).fit(X, y)
    assert tree.get_n_leaves() == 2
    np.testing.assert_array_equal(tree.predict([[np.nan]]), [nan_value])


@pytest.mark.parametrize("mirror", [False, True])
def test_only_the_smaller_child_histogram_is_built(monkeypatch, mirror):
    """The subtraction trick: below the root, the histogram built from rows is always the
    smaller child's; the larger is parent − smaller. Mirroring X swaps the two sides."""
    built = []

    def recording(bins, rows, wz, w, n_bins, gathered):
        built.append(len(rows))
        return build_histogram(bins, rows, wz, w, n_bins, gathered)

    monkeypatch.setattr(grower, "build_histogram", recording)
    X, _, _, y = integer_data(seed=2)
    tree = HistTreeRegressor(max_depth=2).fit(-X if mirror else X, y).tree_
    left, right = tree.n_node_samples[1], tree.n_node_samples[2]
    assert left != right and built[0] == min(left, right)


def test_thresholds_sit_at_midpoints_up_to_max_bins_distinct_values_then_at_percentiles():
    """Exactly ``max_bins`` distinct values still get one bin each; more get the midpoint
    percentiles ``k/max_bins`` (numpy's method="midpoint")."""
    values = np.array([0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(binning.find_thresholds(values, 4), [0.5, 1.5, 2.5])
    many = np.random.RandomState(0).randn(1000)  # quartiles between two values
    expected = np.percentile(many, [25.0, 50.0, 75.0], method="midpoint")
    np.testing.assert_array_equal(binning.find_thresholds(many, 4), expected)


def test_the_subsample_is_drawn_without_replacement(monkeypatch):
    monkeypatch.setattr(binning, "SUBSAMPLE", 300)
    X = np.random.RandomState(2).randn(1000, 1)
    rows = np.sort(np.random.RandomState(5).choice(1000, 300, replace=False))
    expected = binning.find_thresholds(X[rows, 0], 8)
    np.testing.assert_array_equal(Binner(8, random_state=5).fit(X).thresholds_[0], expected)
    tree = HistTreeRegressor(max_bins=8, random_state=5).fit(X, X[:, 0])
    np.testing.assert_array_equal(tree.binner_.thresholds_[0], expected)


def test_estimator_details():
    """NaN allowed in its tags, two leaves allowed, min_samples_leaf reaches the grower,
    and the messages of bad binned input and weights."""
    assert HistTreeRegressor().__sklearn_tags__().input_tags.allow_nan is True
    X, _, _, y = integer_data(n=300)
    assert HistTreeRegressor(max_depth=None, max_leaf_nodes=2).fit(X, y).get_n_leaves() == 2
    fine = HistTreeRegressor(max_depth=6).fit(X, y).tree_
    coarse = HistTreeRegressor(max_depth=6, min_samples_leaf=20).fit(X, y).tree_
    assert fine.n_node_samples[fine.children_left == -1].min() < 20
    assert coarse.n_node_samples[coarse.children_left == -1].min() >= 20
    binned = HistTreeRegressor().bin(X)
    with pytest.raises(ValueError, match=r"^X was binned with max_bins=255, but this tree has "
                                         r"max_bins=16$"):
        HistTreeRegressor(max_bins=16).fit(binned, y)
    with pytest.raises(ValueError, match=r"^X has 300 samples but y has 299$"):
        HistTreeRegressor().fit(binned, y[:-1])
    with pytest.raises(ValueError, match="Input y contains NaN"):
        HistTreeRegressor().fit(binned, np.where(np.arange(300) == 7, np.nan, y))
    with pytest.raises(ValueError, match="Input sample_weight contains infinity"):
        HistTreeRegressor().fit(X, y, sample_weight=np.full(300, np.inf))
    # binned X with float64 weights (the boosting loop's case: one pass weights and checks
    # the rows), the error scikit-learn's checks give, y first
    w = np.ones(300)
    for bad_y, bad_w, message in [
            (np.nan, 1.0, r"^Input y contains NaN\.$"), (np.inf, 1.0, "^Input y contains infinity"),
            (np.nan, -1.0, r"^Input y contains NaN\.$"),
            (0.0, np.nan, r"^Input sample_weight contains NaN\.$"),
            (0.0, -np.inf, "^Input sample_weight contains infinity"),
            (0.0, -1e-300, "^Negative values in data passed to `sample_weight`")]:
        with pytest.raises(ValueError, match=message):
            HistTreeRegressor().fit(binned, np.where(np.arange(300) == 7, bad_y, y),
                                    sample_weight=np.where(np.arange(300) == 9, bad_w, w))
    with pytest.raises(ValueError, match="^Sample weights must contain at least one non-zero"):
        HistTreeRegressor().fit(binned, y, sample_weight=np.zeros(300))
    with pytest.raises(ValueError, match=r"^Input y contains NaN\.$"):  # before the length
        HistTreeRegressor().fit(binned, np.r_[np.nan, y[:-2]])
    with pytest.warns(DataConversionWarning):
        HistTreeRegressor().fit(binned, y.reshape(-1, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataConversionWarning)
        HistTreeRegressor().fit(binned, y)


@pytest.mark.parametrize("weights", ["positive", "some zero"])
def test_the_loops_one_pass_over_the_rows_fits_what_the_checks_fit(monkeypatch, weights):
    """Binned X with float64 weights: ``w z`` and the checks in one pass; the same tree
    as from weights scikit-learn's checks convert (a list), to the bit, and the same
    training predictions."""
    rng = np.random.RandomState(5)
    X, y = rng.randn(400, 4), rng.randn(400)
    w = rng.rand(400) + (0.0 if weights == "some zero" else 0.1)
    w[::5] *= 0.0 if weights == "some zero" else 1.0
    binned = HistTreeRegressor().bin(X)
    fast, checked = HistTreeRegressor(max_depth=4), HistTreeRegressor(max_depth=4)
    passes = []
    monkeypatch.setattr(hist_tree, "weighted_targets",
                        lambda *args: passes.append(1) or weighted_targets(*args))
    u = fast.fit_predict(binned, y, sample_weight=w)
    assert passes == [1]  # the one pass for the float64 array, not for the list
    np.testing.assert_array_equal(u, checked.fit_predict(binned, y, sample_weight=w.tolist()))
    assert passes == [1]
    for name in ("feature", "threshold", "value", "gain", "n_node_samples",
                 "weighted_n_node_samples"):
        np.testing.assert_array_equal(getattr(fast.tree_, name), getattr(checked.tree_, name))
    np.testing.assert_array_equal(u, fast.predict(binned))


@pytest.mark.parametrize("zero_weights", [False, True])
def test_fit_predict_writes_into_out(zero_weights):
    """``out`` is filled with what a fresh array would hold and returned, whether the
    values are read off the fit or (a row of weight 0) walked down the tree."""
    X, _, _, y = integer_data(seed=9)
    w = np.ones(len(y)) if not zero_weights else (np.arange(len(y)) % 5 > 0).astype(float)
    binned = Binner().fit_transform(X)
    fresh = HistTreeRegressor(max_depth=3).fit_predict(binned, y, sample_weight=w)
    out = np.full(len(y), np.nan)
    u = HistTreeRegressor(max_depth=3).fit_predict(binned, y, sample_weight=w, out=out)
    assert u is out
    np.testing.assert_array_equal(out, fresh)


def test_fit_predict_refuses_an_out_it_cannot_write_before_fitting():
    X, _, _, y = integer_data(seed=9)
    binned = Binner().fit_transform(X)
    read_only = np.empty(len(y))
    read_only.flags.writeable = False
    for out, named in [(np.empty(len(y) - 1), f"shape ({len(y) - 1},)"),
                       (np.empty(len(y), dtype=np.float32), "float32"),
                       (np.empty(2 * len(y))[::2], "not C-contiguous"),
                       (read_only, "read-only"), ([0.0] * len(y), "list")]:
        tree = HistTreeRegressor(max_depth=3)
        with pytest.raises(ValueError, match=re.escape(named)) as raised:
            tree.fit_predict(binned, y, out=out)
        assert f"float64 array of shape ({len(y)},)" in str(raised.value)
        assert not hasattr(tree, "tree_")
