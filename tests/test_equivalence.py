"""boostlib reproduces its peers: scikit-learn's gradient boosting and XGBoost's exact method."""

import numpy as np
import pytest
from sklearn.datasets import (
    load_digits,
    load_iris,
    make_classification,
    make_friedman1,
    make_hastie_10_2,
)
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.tree import DecisionTreeRegressor

from boostlib import BoostingClassifier, BoostingRegressor

REGRESSION = {
    "friedman1": make_friedman1(n_samples=400, noise=1.0, random_state=0),
    "friedman1-wide": make_friedman1(n_samples=300, n_features=20, random_state=1),
}
CLASSIFICATION = {
    "hastie": make_hastie_10_2(n_samples=600, random_state=0),
    "classification": make_classification(n_samples=500, n_features=8, random_state=3),
}
IRIS = load_iris()
FOUR = make_classification(n_samples=400, n_features=8, n_informative=5, n_classes=4,
                           random_state=5)
MULTICLASS = {
    "iris-names": (IRIS.data, IRIS.target_names[IRIS.target]),  # string labels
    "four-classes": FOUR,
}


@pytest.mark.parametrize("data", sorted(REGRESSION))
@pytest.mark.parametrize("depth", [1, 3, 5])
@pytest.mark.parametrize("loss", ["squared_error", "absolute_error"])
def test_regressor_reproduces_sklearn(data, depth, loss):
    X, y = REGRESSION[data]
    ours = BoostingRegressor(
        loss=loss, direction="gradient", step="leaf_newton", init="constant",
        learner=DecisionTreeRegressor(max_depth=depth), n_estimators=60, random_state=7,
    ).fit(X, y)
    theirs = GradientBoostingRegressor(
        loss=loss, max_depth=depth, n_estimators=60, random_state=7
    ).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.train_loss_[1:] * (2 if loss == "squared_error" else 1),
                               theirs.train_score_, rtol=1e-9)


@pytest.mark.parametrize("data", sorted(CLASSIFICATION))
@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_classifier_reproduces_sklearn(data, depth, loss):
    X, y = CLASSIFICATION[data]
    ours = BoostingClassifier(
        loss=loss, learner=DecisionTreeRegressor(max_depth=depth), n_estimators=60,
        random_state=3,
    ).fit(X, y)
    theirs = GradientBoostingClassifier(
        loss=loss, max_depth=depth, n_estimators=60, random_state=3
    ).fit(X, y)
    np.testing.assert_allclose(
        ours.decision_function(X), theirs.decision_function(X), rtol=0, atol=1e-10
    )
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)


def assert_same_at_every_stage(ours, theirs):
    """``F_m`` agrees after every stage ``m`` (scikit-learn yields binary scores as (n, 1))."""
    pairs = list(zip(ours, theirs, strict=True))
    for m, (F_ours, F_theirs) in enumerate(pairs):
        np.testing.assert_allclose(np.ravel(F_ours), np.ravel(F_theirs), rtol=0, atol=1e-10,
                                   err_msg=f"stage {m + 1}")


def assert_same_trees(ours, theirs):
    """Every stage's trees are scikit-learn's, bit for bit: splits, thresholds, leaf values.

    A last-bit difference (a gradient, a leaf value, the start) shows at once in a
    leaf value, within a few stages; within 1e-10 the predictions see it only once
    it breaks a tie between two splits, tens of stages later if at all."""
    shape = theirs.estimators_.shape
    ours_trees = np.asarray(ours.estimators_, dtype=object).reshape(shape)
    for m, k in np.ndindex(shape):
        a, b = ours_trees[m, k].tree_, theirs.estimators_[m, k].tree_
        for field in ("children_left", "children_right", "feature", "threshold", "value"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field),
                                          err_msg=f"stage {m + 1}, tree {k}: {field}")


# Subsampled fits: the same RandomState sequence (subsample masks and tree seeds)
# and the same arithmetic as scikit-learn, to the last bit: its gradients
# (losses._compiled_gradient), its leaf values (steps._leaf_newton_value; squared
# error keeps the tree's own) and its starting log-odds (scipy's logit). The trees
# are compared bit for bit: a last-bit difference in any of these shows in a leaf
# within the first few stages (at stage 9 at the latest over this grid), so 10
# stages suffice; compared within 1e-10, 100 stages missed some.
SUBSAMPLED_STAGES = 10
@pytest.mark.parametrize("random_state", [0, 1, 2])
@pytest.mark.parametrize("subsample", [0.5, 0.7])
@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("data", sorted(REGRESSION))
@pytest.mark.parametrize("loss", ["squared_error", "absolute_error"])
def test_subsampled_regressor_reproduces_sklearn_at_every_stage(
    loss, data, depth, subsample, random_state
):
    X, y = REGRESSION[data]
    kwargs = dict(loss=loss, subsample=subsample, n_estimators=SUBSAMPLED_STAGES,
                  random_state=random_state)
    ours = BoostingRegressor(learner=DecisionTreeRegressor(max_depth=depth), **kwargs).fit(X, y)
    theirs = GradientBoostingRegressor(max_depth=depth, **kwargs).fit(X, y)
    assert_same_trees(ours, theirs)
    assert_same_at_every_stage(ours.staged_predict(X), theirs.staged_predict(X))


@pytest.mark.parametrize("random_state", [0, 1, 2])
@pytest.mark.parametrize("subsample", [0.5, 0.7])
@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("data", sorted(CLASSIFICATION))
@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_subsampled_classifier_reproduces_sklearn_at_every_stage(
    loss, data, depth, subsample, random_state
):
    X, y = CLASSIFICATION[data]
    kwargs = dict(loss=loss, subsample=subsample, n_estimators=SUBSAMPLED_STAGES,
                  random_state=random_state)
    ours = BoostingClassifier(learner=DecisionTreeRegressor(max_depth=depth), **kwargs).fit(X, y)
    theirs = GradientBoostingClassifier(max_depth=depth, **kwargs).fit(X, y)
    assert_same_trees(ours, theirs)
    assert_same_at_every_stage(ours.staged_decision_function(X),
                               theirs.staged_decision_function(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)


def test_early_stopping_matches_sklearn():
    X, y = REGRESSION["friedman1"]
    ours = BoostingRegressor(n_estimators=500, n_iter_no_change=5, random_state=0).fit(X, y)
    theirs = GradientBoostingRegressor(n_estimators=500, n_iter_no_change=5, max_depth=3,
                                       random_state=0).fit(X, y)
    assert ours.n_estimators_ == theirs.n_estimators_ < 500
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-10)


@pytest.mark.parametrize("Ours, Theirs, loss, data", [
    (BoostingRegressor, GradientBoostingRegressor, "squared_error", REGRESSION["friedman1"]),
    (BoostingRegressor, GradientBoostingRegressor, "absolute_error", REGRESSION["friedman1"]),
    (BoostingClassifier, GradientBoostingClassifier, "log_loss", CLASSIFICATION["hastie"]),
    (BoostingClassifier, GradientBoostingClassifier, "exponential", CLASSIFICATION["hastie"]),
    (BoostingClassifier, GradientBoostingClassifier, "log_loss", FOUR),
])
def test_early_stopping_with_a_coarse_tol_matches_sklearn(Ours, Theirs, loss, data):
    """tol is compared with scikit-learn's validation loss: twice the mean for squared
    error and binary log loss (the old deviances), the mean for the others."""
    X, y = data
    kwargs = dict(loss=loss, n_estimators=300, n_iter_no_change=5, random_state=0)
    ours = Ours(tol=0.01, **kwargs).fit(X, y)
    theirs = Theirs(tol=0.01, max_depth=3, **kwargs).fit(X, y)
    assert ours.n_estimators_ == theirs.n_estimators_
    assert ours.n_estimators_ < Ours(**kwargs).fit(X, y).n_estimators_  # tol=0.01 was used
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=1e-10)


@pytest.mark.parametrize("Ours, Theirs, data", [
    (BoostingRegressor, GradientBoostingRegressor, REGRESSION["friedman1"]),
    (BoostingClassifier, GradientBoostingClassifier, CLASSIFICATION["hastie"]),
])
def test_a_bag_of_one_row_reproduces_sklearn(Ours, Theirs, data):
    """subsample · n below 2: each stage's bag is max(1, ⌊subsample · n⌋) = 1 row."""
    X, y = data
    kwargs = dict(subsample=1.5 / len(y), n_estimators=20, random_state=2)
    ours = Ours(learner=DecisionTreeRegressor(max_depth=2), **kwargs).fit(X, y)
    theirs = Theirs(max_depth=2, **kwargs).fit(X, y)
    staged = "staged_predict" if Ours is BoostingRegressor else "staged_decision_function"
    assert_same_at_every_stage(getattr(ours, staged)(X), getattr(theirs, staged)(X))


@pytest.mark.parametrize(
    "data, depth", [("hastie", 1), ("hastie", 2), ("hastie", 3), ("classification", 1),
                    ("classification", 2)]
)
def test_weighted_newton_reproduces_xgboost_exact(data, depth):
    """Fitting −g/h with weights h is XGBoost's exact greedy tree with λ = 0.

    XGBoost keeps gradients in float32, hence the 1e-5 tolerance. Tested at
    depths 1–3 (hastie) and 1–2 (classification), where the trees agree for 50
    stages. Deeper, the libraries part ways: a scikit-learn tree splits any
    node whose impurity exceeds machine epsilon, even for a gain that is
    rounding noise (~1e-15), while XGBoost refuses splits with gain below 1e-6
    (its kRtEps), and its float32 gains break near-ties otherwise than
    float64 ones do (on hastie at depth 4 the first trees have 14 and 13 leaves).
    """
    xgb = pytest.importorskip("xgboost")
    X, y = CLASSIFICATION[data]
    y = (y > 0).astype(int)
    ours = BoostingClassifier(
        direction="newton", step="constant",
        learner=DecisionTreeRegressor(criterion="squared_error", max_depth=depth),
        n_estimators=50, learning_rate=0.1, random_state=0,
    ).fit(X, y)
    theirs = xgb.XGBClassifier(
        tree_method="exact", reg_lambda=0, min_child_weight=0, base_score=y.mean(),
        max_depth=depth, n_estimators=50, learning_rate=0.1, n_jobs=1,
    ).fit(X, y)
    np.testing.assert_allclose(
        ours.decision_function(X), theirs.predict(X, output_margin=True), atol=1e-5
    )


@pytest.mark.parametrize("random_state", [0, 1, 2])
@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_classifier_early_stopping_matches_sklearn(loss, random_state):
    """Same validation split, same rule; scikit-learn measures log loss as the
    deviance 2 × mean, so boostlib does too (``SKLEARN_DEVIANCE_FACTOR``)."""
    X, y = CLASSIFICATION["hastie"]
    ours = BoostingClassifier(loss=loss, n_estimators=400, n_iter_no_change=5,
                              random_state=random_state).fit(X, y)
    theirs = GradientBoostingClassifier(loss=loss, n_estimators=400, n_iter_no_change=5,
                                        max_depth=3, random_state=random_state).fit(X, y)
    assert ours.n_estimators_ == theirs.n_estimators_ < 400
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               atol=1e-10)


# Multi-class, per class (the default): K trees per stage, each fitted to its class's
# column of scikit-learn's multinomial gradient, its leaves set to Friedman's
# (K − 1)/K · Σ(−g)/Σ p(1 − p), the K trees drawing from the one RandomState in
# class order; the same bits as GradientBoostingClassifier, subsampled or not
# (the same trees, bit for bit, at every stage: a few stages suffice, as above).
@pytest.mark.parametrize("random_state", [0, 1])
@pytest.mark.parametrize("subsample", [1.0, 0.5, 0.7])
@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("data", sorted(MULTICLASS))
def test_multiclass_classifier_reproduces_sklearn_at_every_stage(
    data, depth, subsample, random_state
):
    X, y = MULTICLASS[data]
    kwargs = dict(subsample=subsample, n_estimators=SUBSAMPLED_STAGES, random_state=random_state)
    ours = BoostingClassifier(learner=DecisionTreeRegressor(max_depth=depth), **kwargs).fit(X, y)
    theirs = GradientBoostingClassifier(max_depth=depth, **kwargs).fit(X, y)
    K = len(theirs.classes_)
    assert ours.estimators_.shape == theirs.estimators_.shape == (SUBSAMPLED_STAGES, K)
    assert ours.estimators_.dtype == object and ours.steps_.shape == (SUBSAMPLED_STAGES, K)
    assert all(tree.n_outputs_ == 1 for tree in ours.estimators_.ravel())
    assert_same_trees(ours, theirs)
    assert_same_at_every_stage(ours.staged_decision_function(X),
                               theirs.staged_decision_function(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    if subsample == 1.0:  # scikit-learn scores the in-bag samples only when subsampling
        np.testing.assert_allclose(ours.train_loss_[1:], theirs.train_score_, rtol=1e-10)


def test_ten_classes_reproduce_sklearn_at_every_stage():
    """Digits, 10 classes: 10 trees a stage, subsampled, at depth 3."""
    X, y = load_digits(return_X_y=True)
    kwargs = dict(subsample=0.7, n_estimators=15, random_state=4)
    ours = BoostingClassifier(learner=DecisionTreeRegressor(max_depth=3), **kwargs).fit(X, y)
    theirs = GradientBoostingClassifier(max_depth=3, **kwargs).fit(X, y)
    assert ours.estimators_.shape == (15, 10)
    assert_same_at_every_stage(ours.staged_decision_function(X),
                               theirs.staged_decision_function(X))


@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_multiclass_early_stopping_matches_sklearn(random_state):
    """Same stratified split, same rule (the multinomial loss without a factor 2)."""
    X, y = MULTICLASS["four-classes"]
    labels = np.array(["north", "east", "south", "west"])[y]
    ours = BoostingClassifier(n_estimators=300, n_iter_no_change=5,
                              random_state=random_state).fit(X, labels)
    theirs = GradientBoostingClassifier(n_estimators=300, n_iter_no_change=5, max_depth=3,
                                        random_state=random_state).fit(X, labels)
    assert ours.n_estimators_ == theirs.n_estimators_ < 300
    assert ours.estimators_.shape == (theirs.n_estimators_, 4)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               rtol=0, atol=1e-10)


@pytest.mark.parametrize("data, depth", [("iris", 1), ("wine", 1), ("four-classes", 1),
                                         ("four-classes", 2)])
def test_per_class_newton_reproduces_xgboost_softprob(data, depth):
    """XGBoost's multi-class Hessian is 2 p(1 − p): twice the diagonal, so its leaves
    −G/(2H) are half boostlib's −G/H (direction="newton", step="constant"); the
    splits, whose gains scale by the same factor, agree. XGBoost at learning rate 2ν
    is boostlib at ν. Float32 gradients: 1e-5. Deeper trees part ways as in the
    binary test above."""
    xgb = pytest.importorskip("xgboost")
    from sklearn.datasets import load_wine

    X, y = {"iris": (IRIS.data, IRIS.target), "wine": load_wine(return_X_y=True),
            "four-classes": FOUR}[data]
    ours = BoostingClassifier(
        direction="newton", step="constant", learner=DecisionTreeRegressor(max_depth=depth),
        n_estimators=30, learning_rate=0.1, random_state=0,
    ).fit(X, y)
    start = np.tile(ours.init_.predict(X[:1])[0], (len(X), 1))
    theirs = xgb.XGBClassifier(
        tree_method="exact", reg_lambda=0, min_child_weight=0, max_depth=depth,
        n_estimators=30, learning_rate=0.2, n_jobs=1,
    ).fit(X, y, base_margin=start)
    np.testing.assert_allclose(ours.decision_function(X),
                               theirs.predict(X, output_margin=True, base_margin=start),
                               atol=1e-5)


@pytest.mark.parametrize("depth", [1, 2])
def test_per_class_newton_with_leaf_newton_reproduces_lightgbm(depth):
    """LightGBM multiplies the diagonal Hessian by K/(K − 1); its leaves −G/(K/(K − 1) H)
    are Friedman's (K − 1)/K · (−G/H), boostlib's leaf_newton per class. On integer
    features (digits' 0–16, one bin per value) its histogram trees are the exact
    trees; depth-wise and leaf-wise growth agree at depths 1 and 2."""
    lgb = pytest.importorskip("lightgbm")
    X, y = load_digits(n_class=4, return_X_y=True)
    X, y = X[:400], y[:400]
    ours = BoostingClassifier(
        direction="newton", step="leaf_newton", learner=DecisionTreeRegressor(max_depth=depth),
        n_estimators=30, learning_rate=0.1, random_state=0,
    ).fit(X, y)
    start = np.tile(ours.init_.predict(X[:1])[0], (len(X), 1))
    theirs = lgb.LGBMClassifier(
        n_estimators=30, learning_rate=0.1, max_depth=depth, num_leaves=2**depth,
        min_child_samples=1, min_child_weight=0, reg_lambda=0, min_split_gain=0,
        min_data_in_bin=1, n_jobs=1, verbose=-1, deterministic=True,
    ).fit(X, y, init_score=start)
    np.testing.assert_allclose(ours.decision_function(X),
                               start + theirs.predict(X, raw_score=True), atol=1e-6)
