"""feature_importances_: Friedman's relative influence, as scikit-learn computes it."""

import re

import numpy as np
import pytest
from scipy.special import expit
from sklearn.datasets import make_classification, make_friedman1, make_hastie_10_2
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor

from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.trees import HistTreeRegressor

FRIEDMAN = make_friedman1(n_samples=400, noise=1.0, random_state=0)
HASTIE = make_hastie_10_2(n_samples=600, random_state=0)
FOUR = make_classification(n_samples=400, n_features=8, n_informative=5, n_classes=4,
                           random_state=5)


def weights(n, seed):
    return np.exp(np.random.RandomState(seed).uniform(np.log(0.1), np.log(3.0), n))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("subsample", [1.0, 0.7])
@pytest.mark.parametrize("loss", ["squared_error", "absolute_error"])
def test_regressor_importances_equal_sklearns(loss, subsample, weighted):
    X, y = FRIEDMAN
    s = weights(len(y), 1) if weighted else None
    kwargs = dict(loss=loss, subsample=subsample, n_estimators=60, random_state=0)
    ours = BoostingRegressor(**kwargs).fit(X, y, sample_weight=s)
    theirs = GradientBoostingRegressor(max_depth=3, **kwargs).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                               rtol=0, atol=1e-10)
    assert ours.feature_importances_.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(ours.feature_importances_ >= 0)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("data, loss", [("hastie", "log_loss"), ("hastie", "exponential"),
                                        ("four", "log_loss")])
def test_classifier_importances_equal_sklearns(data, loss, weighted):
    X, y = HASTIE if data == "hastie" else FOUR
    s = weights(len(y), 2) if weighted else None
    kwargs = dict(loss=loss, subsample=0.8, n_estimators=40, random_state=1)
    ours = BoostingClassifier(**kwargs).fit(X, y, sample_weight=s)
    theirs = GradientBoostingClassifier(max_depth=3, **kwargs).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                               rtol=0, atol=1e-10)


def test_importances_are_the_mean_normalised_improvement():
    """Friedman's I_j² by hand: summed node improvements per tree, averaged, normalised."""
    X, y = FRIEDMAN
    model = BoostingRegressor(n_estimators=20, random_state=0).fit(X, y)
    total = np.zeros(X.shape[1])
    for tree in model.estimators_:
        t = tree.tree_
        for node in np.flatnonzero(t.children_left != -1):
            left, right = t.children_left[node], t.children_right[node]
            improvement = (t.weighted_n_node_samples[node] * t.impurity[node]
                           - t.weighted_n_node_samples[left] * t.impurity[left]
                           - t.weighted_n_node_samples[right] * t.impurity[right])
            total[t.feature[node]] += improvement / t.weighted_n_node_samples[0]
    np.testing.assert_allclose(model.feature_importances_, total / total.sum(), rtol=1e-12)
    # Friedman's function ignores x6..x10: they earn a small share only
    assert model.feature_importances_[5:].sum() < 0.05


def test_hist_tree_importances_are_their_split_gains():
    """With λ = 0 a split's gain Δ is the drop in weighted squared error of its target:
    recomputed from the rows in each node, node by node."""
    X, y = FRIEDMAN
    model = BoostingRegressor(learner=HistTreeRegressor(max_depth=3), step="constant",
                              n_estimators=15, random_state=0).fit(X, y)
    binned = model.binner_.transform(X)
    F = np.full(len(y), y.mean())  # F_0 of squared error
    total = np.zeros(X.shape[1])
    for tree in model.estimators_:
        t = tree.tree_
        z = y - F  # the target of this stage (squared error's −g)
        leaves_path = _node_rows(t, binned)
        for node in np.flatnonzero(t.children_left != -1):
            rows = leaves_path[node]
            left, right = leaves_path[t.children_left[node]], leaves_path[t.children_right[node]]
            drop = _sse(z, rows) - _sse(z, left) - _sse(z, right)
            np.testing.assert_allclose(t.gain[node], drop, rtol=1e-8, atol=1e-10)
            total[t.feature[node]] += drop / len(y)
        F = F + model.learning_rate * tree.predict(binned)
    np.testing.assert_allclose(model.feature_importances_, total / total.sum(), rtol=1e-8)


def _sse(z, rows):
    """``Σ (z − z̄)²`` over ``rows``: a node's squared error around its mean."""
    return float(np.sum((z[rows] - z[rows].mean()) ** 2)) if rows.size else 0.0


def _node_rows(tree, binned):
    """The rows reaching every node of a boostlib Tree (binned X)."""
    bins = binned.bins
    rows = {0: np.arange(bins.shape[1])}
    for node in range(tree.node_count):
        if tree.children_left[node] == -1:
            continue
        r = rows[node]
        b = bins[tree.feature[node], r]
        go_left = np.where(b == tree.missing_bin, tree.missing_left[node],
                           b <= tree.bin_threshold[node])
        rows[tree.children_left[node]] = r[go_left]
        rows[tree.children_right[node]] = r[~go_left]
    return rows


def test_a_model_of_single_leaves_has_zero_importances():
    X = np.random.RandomState(0).normal(size=(50, 3))
    model = BoostingRegressor(n_estimators=5).fit(X, np.ones(50))
    np.testing.assert_array_equal(model.feature_importances_, np.zeros(3))


def test_learners_that_are_not_trees_say_why():
    """The AttributeError names the learner and the alternative, word for word."""
    X, y = FRIEDMAN
    model = BoostingRegressor(learner=LinearRegression(), step="line_search",
                              n_estimators=2).fit(X, y)
    message = ("feature_importances_ needs tree learners (with tree_); LinearRegression has no "
               "splits to credit. Use sklearn.inspection.permutation_importance instead.")
    with pytest.raises(AttributeError, match=f"^{re.escape(message)}$"):
        model.feature_importances_  # noqa: B018
    assert not hasattr(model, "feature_importances_")


def test_unfitted_model_has_no_importances():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        BoostingRegressor().feature_importances_  # noqa: B018


def test_impurity_importances_favour_high_cardinality_noise():
    """The documented bias: a pure-noise feature with a distinct value per row earns a
    share of the impurity importances (it offers the most split points to fit noise
    with), while permutation importance on held-out rows gives it nothing."""
    rng = np.random.RandomState(0)
    n = 1000
    informative = rng.randint(0, 2, n)  # two values, carries the label
    y = np.where(rng.uniform(size=n) < 0.8, informative, 1 - informative)
    X = np.column_stack([informative, rng.normal(size=n)])  # feature 1: noise, n values
    train, test = slice(0, 500), slice(500, None)
    model = BoostingClassifier(n_estimators=50, random_state=0).fit(X[train], y[train])
    assert model.feature_importances_[1] > 0.2
    permuted = permutation_importance(model, X[test], y[test], n_repeats=5, random_state=0)
    assert permuted.importances_mean[1] < 0.01 < permuted.importances_mean[0]


def test_joint_multiclass_trees_are_read_too():
    X, y = FOUR
    model = BoostingClassifier(multiclass="joint", n_estimators=10, random_state=0).fit(X, y)
    importances = model.feature_importances_
    assert importances.shape == (8,) and importances.sum() == pytest.approx(1.0)
    tree = DecisionTreeRegressor()
    assert isinstance(model.estimators_[0], type(tree))


def newton_hist_model(learner, s):
    """Newton boosting of log loss with weights ``s``: every tree's root weight is
    ``Σ s p(1 − p)``, which changes from stage to stage."""
    X, y = make_classification(n_samples=200, n_features=5, n_informative=3, random_state=0)
    model = BoostingClassifier(learner=learner, direction="newton", learning_rate=0.5,
                               n_estimators=6, random_state=0).fit(X, y, sample_weight=s)
    return model, X, y


def _weighted_sse(z, w, rows):
    """``Σ w (z − z̄_w)²`` over ``rows``, ``z̄_w`` the weighted mean."""
    if rows.size == 0:
        return 0.0
    mean = np.average(z[rows], weights=w[rows])
    return float(np.sum(w[rows] * (z[rows] - mean) ** 2))


def test_hist_tree_importances_divide_each_tree_by_its_root_weight():
    """Friedman's I_j² for HistTreeRegressor learners, from the rows: per tree, the drop in
    weighted squared error of the Newton target at each split, over that tree's root
    weight Σ w = Σ s h (here far below 1 and different for every tree), averaged and
    normalised. Weights scaled by 1e-3 fit the same trees (min_child_weight=0)."""
    s = weights(200, 3)
    model, X, y = newton_hist_model(HistTreeRegressor(max_depth=2, min_child_weight=0),
                                    s * 1e-3)
    unscaled, _, _ = newton_hist_model(HistTreeRegressor(max_depth=2, min_child_weight=0), s)
    binned = model.binner_.transform(X)
    scores = [model.init_step_ * model.init_.predict(X), *model.staged_decision_function(X)]
    total, roots = np.zeros(X.shape[1]), []
    for tree, F in zip(model.estimators_, scores[:-1], strict=True):
        p = expit(F)
        h = p * (1 - p)
        z, w = (y - p) / h, h * s * 1e-3  # the Newton target and its weight
        t = tree.tree_
        rows = _node_rows(t, binned)
        root = np.sum(w)
        np.testing.assert_allclose(t.weighted_n_node_samples[0], root, rtol=1e-12)
        roots.append(root)
        for node in np.flatnonzero(t.children_left != -1):
            drop = (_weighted_sse(z, w, rows[node])
                    - _weighted_sse(z, w, rows[t.children_left[node]])
                    - _weighted_sse(z, w, rows[t.children_right[node]]))
            total[t.feature[node]] += drop / root
    assert max(roots) < 0.1 and max(roots) / min(roots) > 1.2
    np.testing.assert_allclose(model.feature_importances_, total / total.sum(), rtol=1e-9)
    np.testing.assert_allclose(unscaled.feature_importances_, model.feature_importances_,
                               rtol=1e-9)


def test_hist_tree_importances_equal_sklearn_trees_on_the_same_model():
    """With fewer distinct values than bins and λ = 0, HistTreeRegressor and scikit-learn's
    tree make the same splits, so the boosted models are the same and so are their
    importances: split gains Δ over the root's Σ w against scikit-learn's node
    improvements over its root weight (tree roots of weight far below 1, varying)."""
    s = weights(200, 4) * 1e-3
    hist, X, _ = newton_hist_model(HistTreeRegressor(max_depth=2, min_child_weight=0), s)
    sk, _, _ = newton_hist_model(DecisionTreeRegressor(max_depth=2), s)
    np.testing.assert_allclose(hist.decision_function(X), sk.decision_function(X),
                               rtol=1e-9, atol=1e-12)
    roots = [tree.tree_.weighted_n_node_samples[0] for tree in hist.estimators_]
    np.testing.assert_allclose(roots, [t.tree_.weighted_n_node_samples[0]
                                       for t in sk.estimators_], rtol=1e-9)
    assert max(roots) < 0.1 and max(roots) / min(roots) > 1.2
    np.testing.assert_allclose(hist.feature_importances_, sk.feature_importances_,
                               rtol=0, atol=1e-10)
