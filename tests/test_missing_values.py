"""Missing values: NaN in X reaches the learners that take it; the others are named."""

import re

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor, ExtraTreeRegressor

from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.trees import HistTreeRegressor


def missingness_carries_the_label(n, seed):
    """Five noise features; feature 0 is missing for 90 % of the positives, 10 % of the rest.

    Its values carry nothing: only whether it is missing says the label.
    """
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 5))
    y = rng.randint(0, 2, n)
    missing = rng.uniform(size=n) < np.where(y == 1, 0.9, 0.1)
    X[missing, 0] = np.nan
    return X, y


LEARNERS = {
    "tree": dict(learner=None),
    "extra-tree": dict(learner=ExtraTreeRegressor(max_depth=3)),
    "hist-tree": dict(learner=HistTreeRegressor(max_depth=3), direction="newton",
                      step="constant"),
}


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_missingness_that_carries_the_label_is_learned(name):
    X, y = missingness_carries_the_label(1000, seed=0)
    X_test, y_test = missingness_carries_the_label(1000, seed=1)
    model = BoostingClassifier(n_estimators=30, random_state=0, **LEARNERS[name]).fit(X, y)
    assert model.score(X_test, y_test) > 0.85  # the Bayes rate is 0.9; noise alone gives 0.5
    F = model.decision_function(X_test)
    assert np.all(np.isfinite(F))
    nan_rows = np.isnan(X_test[:, 0])
    assert np.all(np.isfinite(model.predict_proba(X_test[nan_rows])))
    # the rows with the feature missing are scored positive, the others negative
    assert np.mean(F[nan_rows] > 0) > 0.9 and np.mean(F[~nan_rows] < 0) > 0.9
    # the NaN comes first in the trees' choice: feature 0 is used, no other is needed
    assert model.feature_importances_.argmax() == 0


def test_missing_values_in_regression_are_learned():
    X, y = make_friedman1(n_samples=600, random_state=2)
    X_nan = X.copy()
    X_nan[np.random.RandomState(3).uniform(size=X.shape) < 0.1] = np.nan
    model = BoostingRegressor(n_estimators=100, random_state=0).fit(X_nan, y)
    prediction = model.predict(X_nan)
    assert np.all(np.isfinite(prediction))
    assert model.score(X_nan, y) > 0.85
    # the missing-value mask reaches the tree: refitting with the complete X differs
    assert not np.allclose(prediction, BoostingRegressor(
        n_estimators=100, random_state=0).fit(X, y).predict(X_nan))


def test_nan_goes_through_scikit_learns_missing_value_support():
    """boostlib's first tree is the tree scikit-learn grows on the same NaN data."""
    X, y = missingness_carries_the_label(300, seed=4)
    model = BoostingRegressor(n_estimators=1, learning_rate=1.0, random_state=0).fit(X, y)
    tree = DecisionTreeRegressor(max_depth=3, random_state=np.random.RandomState(0)).fit(
        X.astype(np.float32), y - y.mean())
    np.testing.assert_allclose(model.predict(X) - y.mean(), tree.predict(X.astype(np.float32)),
                               atol=1e-12)


@pytest.mark.parametrize("Estimator", [BoostingRegressor, BoostingClassifier])
def test_infinity_stays_an_error(Estimator):
    X, y = missingness_carries_the_label(100, seed=5)
    X[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        Estimator(n_estimators=2).fit(X, y)
    X[3, 2] = 0.0
    model = Estimator(n_estimators=2).fit(X, y)
    X[3, 2] = -np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.predict(X)


NO_NAN = re.escape(
    "Input X contains NaN, and learner=LinearRegression() does not accept missing values. "
    "Learners that do: scikit-learn's DecisionTreeRegressor (the default) and "
    "ExtraTreeRegressor, boostlib's HistTreeRegressor, and any regressor whose tags say "
    "allow_nan (HistGradientBoostingRegressor); or impute first (sklearn.impute).")


def test_a_learner_without_nan_support_is_named():
    """boostlib's own message, word for word (LinearRegression's would name NaN too), for
    fit and for predict, with the NaN in a row other than the first."""
    X, y = missingness_carries_the_label(100, seed=6)
    X_late = np.nan_to_num(X)
    X_late[-1, 0] = np.nan
    model = BoostingRegressor(learner=LinearRegression(), step="line_search", n_estimators=2)
    for X_bad in (X, X_late):
        with pytest.raises(ValueError, match=f"^{NO_NAN}$"):
            model.fit(X_bad, y)
    assert not model.__sklearn_tags__().input_tags.allow_nan
    model.fit(np.nan_to_num(X), y)  # without NaN it fits, and predicting on NaN is refused
    for X_bad in (X, X_late):
        with pytest.raises(ValueError, match=f"^{NO_NAN}$"):
            model.predict(X_bad)


def test_tags_say_what_the_learner_takes():
    assert BoostingRegressor().__sklearn_tags__().input_tags.allow_nan is True
    assert BoostingClassifier(
        learner=HistTreeRegressor()).__sklearn_tags__().input_tags.allow_nan is True
    assert BoostingClassifier(
        learner=LinearRegression()).__sklearn_tags__().input_tags.allow_nan is False
    # a learner whose tags cannot be read (refused at fit) leaves the tags readable: no NaN
    assert BoostingRegressor(learner="tree").__sklearn_tags__().input_tags.allow_nan is False


def test_data_without_nan_fits_as_before():
    """The NaN path (the tree checks its own input) only runs when X has NaN."""
    X, y = make_friedman1(n_samples=200, random_state=7)
    model = BoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    assert model._has_nan is False
    X[0, 0] = np.nan
    assert np.all(np.isfinite(model.predict(X)))
    assert model._has_nan is False  # predicting changes nothing in the model
    assert BoostingRegressor(n_estimators=5, random_state=0).fit(X, y)._has_nan is True
