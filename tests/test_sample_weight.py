"""Sample weights: ``s_i`` multiplies sample ``i``'s loss everywhere in the loop.

The same weighted model as scikit-learn's gradient boosting (every stage, subsampled
or not, early stopping too), as XGBoost's with weights on the Newton direction;
integer weights as repeated rows, zero weights as removed rows; bad weights refused.
"""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor
from test_equivalence import CLASSIFICATION, REGRESSION, assert_same_at_every_stage

from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.losses import get_loss
from boostlib.trees import HistTreeRegressor

FOUR = make_classification(n_samples=400, n_features=8, n_informative=5, n_classes=4,
                           random_state=5)


def weights(n, seed, zeros=0.0):
    """Positive real weights spread over 1.5 decades; a share ``zeros`` of them 0."""
    rng = np.random.RandomState(seed)
    w = np.exp(rng.uniform(np.log(0.1), np.log(3.0), n))
    w[rng.uniform(size=n) < zeros] = 0.0
    return w


@pytest.mark.parametrize("zeros", [0.0, 0.2])
@pytest.mark.parametrize("subsample", [1.0, 0.7])
@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("data", sorted(REGRESSION))
@pytest.mark.parametrize("loss", ["squared_error", "absolute_error"])
def test_weighted_regressor_reproduces_sklearn_at_every_stage(loss, data, depth, subsample,
                                                              zeros):
    X, y = REGRESSION[data]
    s = weights(len(y), seed=depth, zeros=zeros)
    kwargs = dict(loss=loss, subsample=subsample, n_estimators=80, random_state=2)
    ours = BoostingRegressor(learner=DecisionTreeRegressor(max_depth=depth), **kwargs)
    theirs = GradientBoostingRegressor(max_depth=depth, **kwargs)
    ours.fit(X, y, sample_weight=s)
    theirs.fit(X, y, sample_weight=s)
    assert_same_at_every_stage(ours.staged_predict(X), theirs.staged_predict(X))
    if subsample == 1.0:  # train_loss_ is the weighted mean, as scikit-learn's train_score_
        factor = 2 if loss == "squared_error" else 1
        np.testing.assert_allclose(factor * ours.train_loss_[1:], theirs.train_score_,
                                   rtol=1e-10)


@pytest.mark.parametrize("zeros", [0.0, 0.2])
@pytest.mark.parametrize("subsample", [1.0, 0.7])
@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("data", sorted(CLASSIFICATION))
@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_weighted_classifier_reproduces_sklearn_at_every_stage(loss, data, depth, subsample,
                                                               zeros):
    X, y = CLASSIFICATION[data]
    s = weights(len(y), seed=depth + 10, zeros=zeros)
    kwargs = dict(loss=loss, subsample=subsample, n_estimators=80, random_state=3)
    ours = BoostingClassifier(learner=DecisionTreeRegressor(max_depth=depth), **kwargs)
    theirs = GradientBoostingClassifier(max_depth=depth, **kwargs)
    ours.fit(X, y, sample_weight=s)
    theirs.fit(X, y, sample_weight=s)
    assert_same_at_every_stage(ours.staged_decision_function(X),
                               theirs.staged_decision_function(X))
    if subsample == 1.0:
        factor = 2 if loss == "log_loss" else 1
        np.testing.assert_allclose(factor * ours.train_loss_[1:], theirs.train_score_,
                                   rtol=1e-10)


@pytest.mark.parametrize("subsample", [1.0, 0.7])
def test_weighted_multiclass_reproduces_sklearn_at_every_stage(subsample):
    X, y = FOUR
    s = weights(len(y), seed=4, zeros=0.1)
    kwargs = dict(subsample=subsample, n_estimators=40, random_state=1)
    ours = BoostingClassifier(**kwargs).fit(X, y, sample_weight=s)
    theirs = GradientBoostingClassifier(max_depth=3, **kwargs).fit(X, y, sample_weight=s)
    assert_same_at_every_stage(ours.staged_decision_function(X),
                               theirs.staged_decision_function(X))


@pytest.mark.parametrize("random_state", [0, 1])
def test_weighted_early_stopping_reproduces_sklearn(random_state):
    """The weights split with the rows; the validation loss is weighted too."""
    X, y = CLASSIFICATION["hastie"]
    s = weights(len(y), seed=random_state)
    kwargs = dict(n_estimators=400, n_iter_no_change=5, random_state=random_state)
    ours = BoostingClassifier(**kwargs).fit(X, y, sample_weight=s)
    theirs = GradientBoostingClassifier(max_depth=3, **kwargs).fit(X, y, sample_weight=s)
    assert ours.n_estimators_ == theirs.n_estimators_ < 400
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               rtol=0, atol=1e-10)
    unweighted = BoostingClassifier(**kwargs).fit(X, y)
    assert unweighted.n_estimators_ != ours.n_estimators_  # the weights were used


def test_weighted_newton_direction_reproduces_xgboost():
    """direction="newton": the learner's weights are s·h, XGBoost's weighted Hessians."""
    xgb = pytest.importorskip("xgboost")
    X, y = CLASSIFICATION["hastie"]
    y = (y > 0).astype(int)
    s = weights(len(y), seed=5)
    ours = BoostingClassifier(direction="newton", step="constant",
                              learner=DecisionTreeRegressor(max_depth=2), n_estimators=40,
                              random_state=0).fit(X, y, sample_weight=s)
    theirs = xgb.XGBClassifier(
        tree_method="exact", reg_lambda=0, min_child_weight=0,
        base_score=np.average(y, weights=s), max_depth=2, n_estimators=40,
        learning_rate=0.1, n_jobs=1,
    ).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.decision_function(X),
                               theirs.predict(X, output_margin=True), atol=1e-5)


@pytest.mark.parametrize("step", ["line_search", "newton"])
@pytest.mark.parametrize("loss", ["squared_error", "huber", "log_loss"])
def test_weighted_steps_are_the_weighted_argmin(loss, step):
    """ρ_1 = argmin_ρ Σ s L(y, F_0 + ρ u), checked against scipy's bounded Brent search."""
    if step == "newton" and loss == "huber":
        pytest.skip("the Newton step needs a positive Hessian")
    X, y = make_friedman1(n_samples=200, random_state=6)
    Estimator = BoostingRegressor
    if loss == "log_loss":
        y, Estimator = (y > np.median(y)).astype(int), BoostingClassifier
    s = weights(len(y), seed=7, zeros=0.2)
    model = Estimator(loss=loss, step=step, n_estimators=1, learning_rate=1.0,
                      random_state=0).fit(X, y, sample_weight=s)
    L = get_loss(loss)
    F0 = L.optimal_constant(y.astype(float), s)
    u = model.estimators_[0].predict(X.astype(np.float32))
    rho = minimize_scalar(lambda r: np.dot(s, L(y, F0 + r * u)), bounds=(-10, 10),
                          method="bounded", options={"xatol": 1e-12}).x
    np.testing.assert_allclose(model.steps_[0], rho, rtol=1e-6)
    if loss == "squared_error":  # the tree is the weighted least-squares fit already
        np.testing.assert_allclose(model.steps_[0], 1.0, rtol=1e-12)
    else:
        unweighted = Estimator(loss=loss, step=step, n_estimators=1, learning_rate=1.0,
                               random_state=0).fit(X, y)
        assert abs(unweighted.steps_[0] - model.steps_[0]) > 1e-6


def repeat(X, y, s):
    return np.repeat(X, s, axis=0), np.repeat(y, s)


@pytest.mark.parametrize(
    "Estimator, loss",
    [(BoostingRegressor, "squared_error"), (BoostingRegressor, "absolute_error"),
     (BoostingClassifier, "log_loss"), (BoostingClassifier, "exponential")],
)
def test_integer_weights_are_repeated_rows(Estimator, loss):
    """On continuous features no two splits tie, so the weighted fit and the fit on
    rows repeated s_i times (s_i = 0: left out) grow the same trees."""
    X, y = make_friedman1(n_samples=150, n_features=5, random_state=8)
    if Estimator is BoostingClassifier:
        y = (y > np.median(y)).astype(int)
    s = np.random.RandomState(9).randint(0, 4, len(y))
    if s.sum() % 2 == 0:  # an odd total: the unweighted median is then the lower one too
        s[np.flatnonzero(s)[0]] += 1
    kwargs = dict(loss=loss, n_estimators=30, learner=DecisionTreeRegressor(max_depth=2),
                  random_state=0)
    weighted = Estimator(**kwargs).fit(X, y, sample_weight=s)
    repeated = Estimator(**kwargs).fit(*repeat(X, y, s))
    kept = s > 0
    if Estimator is BoostingClassifier:
        F_w, F_r = weighted.decision_function(X[kept]), repeated.decision_function(X[kept])
    else:
        F_w, F_r = weighted.predict(X[kept]), repeated.predict(X[kept])
    np.testing.assert_allclose(F_w, F_r, rtol=0, atol=1e-10)
    np.testing.assert_allclose(weighted.train_loss_, repeated.train_loss_, rtol=1e-10)


def test_integer_weights_are_repeated_rows_with_hist_trees():
    """HistTreeRegressor bins the rows of positive weight, as it bins repeated rows."""
    X, y = make_friedman1(n_samples=150, n_features=5, random_state=8)
    y = (y > np.median(y)).astype(int)
    s = np.random.RandomState(10).randint(0, 4, len(y))
    kwargs = dict(direction="newton", step="constant", n_estimators=20,
                  learner=HistTreeRegressor(max_depth=2), random_state=0)
    weighted = BoostingClassifier(**kwargs).fit(X, y, sample_weight=s)
    repeated = BoostingClassifier(**kwargs).fit(*repeat(X, y, s))
    # everywhere, not only at the rows kept: the rows of weight 0 placed no thresholds
    X_new = np.random.RandomState(11).uniform(size=(300, X.shape[1]))
    np.testing.assert_allclose(weighted.decision_function(X_new),
                               repeated.decision_function(X_new), rtol=0, atol=1e-10)
    for ours, theirs in zip(weighted.binner_.thresholds_, repeated.binner_.thresholds_,
                            strict=True):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("Estimator", [BoostingRegressor, BoostingClassifier])
def test_unit_weights_are_no_weights(Estimator):
    X, y = CLASSIFICATION["classification"]
    a = Estimator(n_estimators=30, subsample=0.8, random_state=0).fit(X, y)
    b = Estimator(n_estimators=30, subsample=0.8, random_state=0).fit(
        X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.train_loss_, b.train_loss_)


@pytest.mark.parametrize("scale, n_iter_no_change", [(1000.0, None), (2.0**-12, 5)])
def test_weights_scale_freely(scale, n_iter_no_change):
    """Only ratios of weights matter: c s gives the model s gives, down to a sum below 1."""
    X, y = REGRESSION["friedman1"]
    s = weights(len(y), seed=11)
    kwargs = dict(n_estimators=200, n_iter_no_change=n_iter_no_change, random_state=0)
    a = BoostingRegressor(**kwargs).fit(X, y, sample_weight=s)
    b = BoostingRegressor(**kwargs).fit(X, y, sample_weight=scale * s)
    assert a.n_estimators_ == b.n_estimators_
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=0, atol=1e-10)


@pytest.mark.parametrize("Estimator, kwargs", [
    (BoostingRegressor, dict(loss="absolute_error", subsample=0.7)),
    (BoostingClassifier, dict(step="line_search", n_iter_no_change=3)),
    (BoostingClassifier, dict(direction="newton", learner=HistTreeRegressor(max_depth=2))),
], ids=["median-leaves", "line-search", "hist-trees"])
def test_float32_weights_give_the_float64_model(Estimator, kwargs):
    """Weights are float64 once checked: float32 ones, the same numbers, change no bit."""
    X, y = CLASSIFICATION["classification"]
    s = weights(len(y), seed=3, zeros=0.1).astype(np.float32)
    a = Estimator(n_estimators=20, random_state=0, **kwargs).fit(X, y, sample_weight=s)
    b = Estimator(n_estimators=20, random_state=0, **kwargs).fit(
        X, y, sample_weight=s.astype(np.float64))
    np.testing.assert_array_equal(a.train_loss_, b.train_loss_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_init_learner_is_fitted_with_the_weights():
    X, y = REGRESSION["friedman1"]
    s = weights(len(y), seed=12, zeros=0.3)
    model = BoostingRegressor(init="learner", step="line_search", n_estimators=3,
                              random_state=0).fit(X, y, sample_weight=s)
    reference = DecisionTreeRegressor(max_depth=3, random_state=0).fit(
        X.astype(np.float32), y, sample_weight=s)
    u = model.init_.predict(X.astype(np.float32))
    np.testing.assert_allclose(u, reference.predict(X.astype(np.float32)))
    L = get_loss("squared_error")
    rho0 = minimize_scalar(lambda r: np.dot(s, L(y, r * u)), bounds=(-5, 5),
                           method="bounded", options={"xatol": 1e-12}).x
    np.testing.assert_allclose(model.init_step_, rho0, rtol=1e-6)


# Each message names sample_weight once: scikit-learn's as it is when it does, prefixed
# "sample_weight: " when it does not.
BAD_WEIGHTS = {
    "negative": (lambda n: np.r_[-1.0, np.ones(n - 1)],
                 r"^Negative values in data passed to `sample_weight`"),
    "nan": (lambda n: np.r_[np.nan, np.ones(n - 1)], r"^Input sample_weight contains NaN"),
    "inf": (lambda n: np.r_[np.inf, np.ones(n - 1)], r"^Input sample_weight contains infinity"),
    "too-short": (lambda n: np.ones(n - 1), r"^sample_weight\.shape == \(\d+,\), expected"),
    "2-d": (lambda n: np.ones((n, 2)), r"^sample_weight: Sample weights must be 1D"),
    "all-zero": (lambda n: np.zeros(n), r"^sample_weight sums to zero: at least one sample "
                                        r"needs a positive weight$"),
    "text": (lambda n: np.array(["a"] * n), r"^sample_weight: could not convert string"),
}


@pytest.mark.parametrize("Estimator", [BoostingRegressor, BoostingClassifier])
@pytest.mark.parametrize("bad", sorted(BAD_WEIGHTS))
def test_bad_weights_raise_value_errors_naming_sample_weight(Estimator, bad):
    X, y = CLASSIFICATION["hastie"]
    make, message = BAD_WEIGHTS[bad]
    model = Estimator(n_estimators=3)
    with pytest.raises(ValueError, match=message):
        model.fit(X, y, sample_weight=make(len(y)))
    assert not hasattr(model, "estimators_")


def test_a_class_without_weight_is_refused():
    X, y = CLASSIFICATION["hastie"]
    with pytest.raises(ValueError, match="sample_weight"):
        BoostingClassifier(n_estimators=3).fit(X, y, sample_weight=(y > 0).astype(float))


def test_training_rows_without_weight_after_the_split_are_refused():
    X, y = REGRESSION["friedman1"]
    model = BoostingRegressor(n_iter_no_change=3, validation_fraction=0.5, random_state=0)
    s = np.zeros(len(y))
    s[:5] = 1.0
    message = ("sample_weight: every sample left for training after the validation split "
               "has weight 0")
    with pytest.raises(ValueError, match=f"^{message}$"):  # all five land in validation
        model.set_params(random_state=next(
            r for r in range(100) if _all_in_validation(X, y, s, r))).fit(X, y, sample_weight=s)


def _all_in_validation(X, y, s, random_state):
    from sklearn.model_selection import train_test_split

    _, _, s_train, _ = train_test_split(X, s, random_state=random_state, test_size=0.5)
    return s_train.sum() == 0


def test_weights_that_are_a_list_or_a_series_work():
    pd = pytest.importorskip("pandas")
    X, y = REGRESSION["friedman1"]
    s = weights(len(y), seed=13)
    a = BoostingRegressor(n_estimators=10, random_state=0).fit(X, y, sample_weight=s)
    b = BoostingRegressor(n_estimators=10, random_state=0).fit(X, y, sample_weight=list(s))
    c = BoostingRegressor(n_estimators=10, random_state=0).fit(X, y,
                                                                sample_weight=pd.Series(s))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict(X), c.predict(X))


def test_a_learner_without_sample_weight_is_named():
    """Weights reach the learner; one whose fit takes none says so."""
    from sklearn.neighbors import KNeighborsRegressor

    X, y = REGRESSION["friedman1"]
    s = weights(len(y), seed=14)
    with pytest.raises(ValueError, match=r"^sample_weight reaches every learner's fit, but "
                                         r"learner=KNeighborsRegressor\(\) takes no "
                                         r"sample_weight$"):
        BoostingRegressor(learner=KNeighborsRegressor(), step="line_search",
                          n_estimators=2).fit(X, y, sample_weight=s)
    model = BoostingRegressor(learner=LinearRegression(), step="line_search", n_estimators=2)
    model.fit(X, y, sample_weight=s)  # LinearRegression takes weights


@pytest.mark.parametrize("draw", [dict(subsample=0.7), dict(n_iter_no_change=3)])
def test_zero_weight_rows_still_take_part_in_the_random_draws(draw):
    """A row of weight 0 leaves every sum, but the subsample and the held-out split are
    drawn over all N rows, as scikit-learn draws them: with a draw, the fit is not the fit
    without those rows (the same seed draws other rows), yet it is still scikit-learn's."""
    X, y = make_friedman1(n_samples=200, n_features=5, random_state=12)
    s = np.ones(len(y))
    s[:20] = 0.0
    X_new = np.random.RandomState(13).uniform(size=(300, X.shape[1]))
    kwargs = dict(n_estimators=20, random_state=0)
    without_draws = BoostingRegressor(**kwargs).fit(X, y, sample_weight=s)
    dropped = BoostingRegressor(**kwargs).fit(X[20:], y[20:])
    np.testing.assert_allclose(without_draws.predict(X_new), dropped.predict(X_new),
                               rtol=0, atol=1e-12)
    ours = BoostingRegressor(**kwargs, **draw).fit(X, y, sample_weight=s)
    dropped = BoostingRegressor(**kwargs, **draw).fit(X[20:], y[20:])
    assert np.abs(ours.predict(X_new) - dropped.predict(X_new)).max() > 0.1
    theirs = GradientBoostingRegressor(max_depth=3, **kwargs, **draw).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), rtol=0, atol=1e-10)


def test_a_class_of_weight_0_stays_among_the_classes_as_in_sklearn():
    """Unlike a class whose rows are removed: K is unchanged, its probability near 0."""
    X, y = FOUR
    s = (y > 0).astype(float)
    ours = BoostingClassifier(n_estimators=10, random_state=0).fit(X, y, sample_weight=s)
    theirs = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, y, sample_weight=s)
    np.testing.assert_array_equal(ours.classes_, [0, 1, 2, 3])
    assert ours.predict_proba(X)[:, 0].max() < 1e-6
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               rtol=0, atol=1e-10)
    dropped = BoostingClassifier(n_estimators=10, random_state=0).fit(X[y > 0], y[y > 0])
    assert len(dropped.classes_) == 3
