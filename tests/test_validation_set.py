"""A validation set of one's own: ``fit(X, y, X_val=, y_val=, sample_weight_val=)``.

Early stopping reads the given set with the rule it applies to the held-out part
(chapter 3, :class:`boostlib.early_stopping.ValidationLoss`); nothing is held out.
"""

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_friedman1, make_hastie_10_2
from sklearn.metrics import mean_squared_error
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.trees import HistTreeRegressor

LEARNERS = [DecisionTreeRegressor(max_depth=3), HistTreeRegressor(max_depth=3)]
IDS = ["exact", "hist"]


def assert_same_model(a, b, X):
    assert a.n_estimators_ == b.n_estimators_
    np.testing.assert_array_equal(a.train_loss_, b.train_loss_)
    np.testing.assert_array_equal(a._raw_predict(a._validate_X(X)),
                                  b._raw_predict(b._validate_X(X)))


@pytest.mark.parametrize("learner", LEARNERS, ids=IDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_the_held_out_split_handed_in_gives_the_same_model(learner, weighted):
    """Handing in the very rows that validation_fraction holds out (scikit-learn's
    split, stratified for a classifier) gives the same model, stage for stage: the
    rule is unchanged, and a histogram learner bins X_val with the training binner."""
    X, y = make_hastie_10_2(n_samples=600, random_state=0)
    s = np.random.RandomState(1).uniform(0.5, 2.0, len(y)) if weighted else None
    kwargs = dict(learner=learner, n_estimators=300, learning_rate=0.5, n_iter_no_change=3,
                  validation_fraction=0.3, random_state=7)
    internal = BoostingClassifier(**kwargs).fit(X, y, sample_weight=s)
    parts = train_test_split(X, y, *(() if s is None else (s,)), test_size=0.3,
                             random_state=7, stratify=y)
    X_fit, X_val, y_fit, y_val = parts[:4]
    s_fit, s_val = (parts[4], parts[5]) if weighted else (None, None)
    given = BoostingClassifier(**kwargs).fit(X_fit, y_fit, sample_weight=s_fit,
                                             X_val=X_val, y_val=y_val, sample_weight_val=s_val)
    assert internal.n_estimators_ < 300  # early stopping took part
    assert_same_model(internal, given, X)


def test_multiclass_held_out_split_handed_in_gives_the_same_model():
    X, y = load_iris(return_X_y=True)
    kwargs = dict(n_estimators=200, learning_rate=0.5, n_iter_no_change=2,
                  validation_fraction=0.2, random_state=0)
    internal = BoostingClassifier(**kwargs).fit(X, y)
    X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.2, random_state=0,
                                                  stratify=y)
    given = BoostingClassifier(**kwargs).fit(X_fit, y_fit, X_val=X_val, y_val=y_val)
    assert internal.n_estimators_ < 200
    assert_same_model(internal, given, X)


@pytest.mark.parametrize("learner", LEARNERS, ids=IDS)
def test_the_stop_follows_the_rule_on_the_given_set(learner):
    """The rule recomputed from staged predictions on the given set: the fit ends at
    the first stage whose loss does not beat one of the last n by more than tol. The
    given set here comes from other data (more noise) than any split of X could."""
    X, y = make_friedman1(n_samples=400, noise=1.0, random_state=0)
    X_val, y_val = make_friedman1(n_samples=150, noise=3.0, random_state=1)
    patience, tol = 4, 0.01
    model = BoostingRegressor(learner=learner, n_estimators=500, n_iter_no_change=patience,
                              validation_fraction=0.9, tol=tol,
                              random_state=3).fit(X, y, X_val=X_val, y_val=y_val)
    assert model.n_estimators_ < 500
    history = np.full(patience, np.inf)
    for m, F in enumerate(model.staged_predict(X_val)):
        loss = mean_squared_error(y_val, F)
        if not np.any(loss + tol < history):
            break
        history[m % patience] = loss
    assert m == model.n_estimators_ - 1
    # nothing held out: the training loss is over all 400 rows
    np.testing.assert_allclose(model.train_loss_[-1],
                               0.5 * mean_squared_error(y, model.predict(X)), rtol=1e-12)


def test_the_validation_weights_weigh_the_validation_loss():
    """Weight 0 on half the given rows is the same as leaving them out; the other half
    (targets reversed around their mean) stops the fit elsewhere when it counts."""
    X, y = make_friedman1(n_samples=300, noise=1.0, random_state=0)
    X_val, y_val = make_friedman1(n_samples=100, noise=1.0, random_state=1)
    y_val[50:] = 2 * y_val[50:].mean() - y_val[50:]
    s_val = np.r_[np.ones(50), np.zeros(50)]
    kwargs = dict(n_estimators=400, n_iter_no_change=3, random_state=0, learning_rate=0.3)
    weighted = BoostingRegressor(**kwargs).fit(X, y, X_val=X_val, y_val=y_val,
                                               sample_weight_val=s_val)
    halved = BoostingRegressor(**kwargs).fit(X, y, X_val=X_val[:50], y_val=y_val[:50])
    unweighted = BoostingRegressor(**kwargs).fit(X, y, X_val=X_val, y_val=y_val)
    assert weighted.n_estimators_ == halved.n_estimators_ != unweighted.n_estimators_


def small():
    X, y = make_hastie_10_2(n_samples=80, random_state=0)
    return X, y


@pytest.mark.parametrize("kwargs, message", [
    (dict(X_val="X"), "^X_val is given, but y_val is not; early stopping needs both$"),
    (dict(y_val="y"), "^y_val is given, but X_val is not; early stopping needs both$"),
    (dict(sample_weight_val=np.ones(20)),
     "^sample_weight_val is given, but X_val and y_val are not$"),
])
def test_an_incomplete_validation_set_is_refused(kwargs, message):
    X, y = small()
    kwargs = {key: {"X": X[:20], "y": y[:20]}.get(value, value) if isinstance(value, str)
              else value for key, value in kwargs.items()}
    with pytest.raises(ValueError, match=message):
        BoostingClassifier(n_estimators=3, n_iter_no_change=2).fit(X, y, **kwargs)


def test_a_validation_set_without_early_stopping_is_refused():
    X, y = small()
    with pytest.raises(ValueError, match=r"^X_val and y_val are for early stopping, which is "
                                         r"off: set n_iter_no_change"):
        BoostingClassifier(n_estimators=3).fit(X, y, X_val=X, y_val=y)


@pytest.mark.parametrize("bad, message", [
    (lambda X, y: dict(X_val=X[:, :5], y_val=y), "^X_val: X has 5 features"),
    (lambda X, y: dict(X_val=X, y_val=y[:-1]), "^X_val has 80 rows, but y_val has 79$"),
    (lambda X, y: dict(X_val=X, y_val=np.where(y > 0, 7.0, 1.0)),
     r"^y_val: y has labels the estimator was not fitted on"),
    (lambda X, y: dict(X_val=X, y_val=y, sample_weight_val=np.zeros(80)),
     "^sample_weight_val sums to zero"),
    (lambda X, y: dict(X_val=X, y_val=y, sample_weight_val=-np.ones(80)),
     "^sample_weight_val: Negative values"),
    (lambda X, y: dict(X_val=X, y_val=y, sample_weight_val=np.ones(3)),
     "^sample_weight_val: "),
])
def test_a_bad_validation_set_is_refused_by_name(bad, message):
    X, y = small()
    with pytest.raises(ValueError, match=message):
        BoostingClassifier(n_estimators=3, n_iter_no_change=2).fit(X, y, **bad(X, y))


def test_bad_regression_targets_for_validation_are_refused():
    X, y = make_friedman1(n_samples=60, random_state=0)
    model = BoostingRegressor(n_estimators=3, n_iter_no_change=2)
    with pytest.raises(ValueError, match="^y_val holds NaN or infinity$"):
        model.fit(X, y, X_val=X, y_val=np.r_[np.nan, y[1:]])
    with pytest.raises(ValueError, match="^y_val: could not convert string to float"):
        model.fit(X, y, X_val=X, y_val=np.array(["a"] * 60))
    Y = np.column_stack([y, -y])
    quadratic = BoostingRegressor(loss="quadratic", n_estimators=3, n_iter_no_change=2)
    with pytest.raises(ValueError, match=r"^y_val has \(1,\) outputs per row, but y has "
                                         r"\(2,\)$"):
        quadratic.fit(X, Y, X_val=X, y_val=np.column_stack([y]))
    quadratic.fit(X, Y, X_val=X, y_val=Y)  # the right shape is taken
