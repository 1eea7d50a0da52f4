"""boostlib reproduces its peers: scikit-learn's gradient boosting and XGBoost's exact method."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1, make_hastie_10_2
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


def test_subsampling_draws_like_sklearn():
    """The same RandomState sequence: subsample masks and tree seeds agree.

    Absolute error is compared over the whole run; for the others, leaf values
    computed in a different order of summation can break an exact tie between
    two splits differently after many stages, so the first 20 stages are compared.
    """
    X, y = REGRESSION["friedman1"]
    for loss, n in [("absolute_error", 100), ("squared_error", 20)]:
        ours = BoostingRegressor(loss=loss, subsample=0.6, n_estimators=n, random_state=5)
        theirs = GradientBoostingRegressor(loss=loss, subsample=0.6, max_depth=3,
                                           n_estimators=n, random_state=5)
        np.testing.assert_allclose(ours.fit(X, y).predict(X), theirs.fit(X, y).predict(X),
                                   atol=1e-10)


def test_early_stopping_matches_sklearn():
    X, y = REGRESSION["friedman1"]
    ours = BoostingRegressor(n_estimators=500, n_iter_no_change=5, random_state=0).fit(X, y)
    theirs = GradientBoostingRegressor(n_estimators=500, n_iter_no_change=5, max_depth=3,
                                       random_state=0).fit(X, y)
    assert ours.n_estimators_ == theirs.n_estimators_ < 500
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-10)


@pytest.mark.parametrize(
    "data, depth", [("hastie", 1), ("hastie", 2), ("hastie", 3), ("classification", 1),
                    ("classification", 2)]
)
def test_weighted_newton_reproduces_xgboost_exact(data, depth):
    """Fitting −g/h with weights h is XGBoost's exact greedy tree with λ = 0.

    XGBoost keeps gradients in float32, hence the 1e-5 tolerance. Where two
    splits have exactly the same gain the libraries may pick different ones;
    these data have continuous features and no such ties.
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
