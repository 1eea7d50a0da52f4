"""boostlib.plotting: staged losses agree with the loop's own record; plots draw what they say."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.datasets import make_classification, make_regression  # noqa: E402

from boostlib import BoostingClassifier, BoostingRegressor  # noqa: E402
from boostlib.plotting import loss_targets, plot_staged_loss, staged_loss  # noqa: E402

X_REG, Y_REG = make_regression(n_samples=120, n_features=4, n_targets=2, noise=5.0,
                               random_state=0)
X_CLF, Y_BIN = make_classification(n_samples=120, n_features=5, random_state=0)
_, Y_MULTI = make_classification(n_samples=120, n_features=5, n_informative=3, n_classes=3,
                                 random_state=0)


LABELS = np.array(["no", "yes"])[Y_BIN]


def fitted(estimator, X, y):
    """``(estimator fitted on X, y, X, y)`` with 7 stages."""
    return estimator.set_params(n_estimators=7, random_state=0).fit(X, y), X, y


CASES = {
    "squared_error": lambda: fitted(BoostingRegressor(), X_REG, Y_REG[:, 0]),
    "absolute_error": lambda: fitted(BoostingRegressor(loss="absolute_error"), X_REG,
                                     Y_REG[:, 0]),
    "quadratic_2d": lambda: fitted(BoostingRegressor(loss="quadratic", step="newton"), X_REG,
                                   Y_REG),
    "quadratic_1d": lambda: fitted(BoostingRegressor(loss="quadratic", step="line_search"),
                                   X_REG, Y_REG[:, 0]),
    "log_loss_str_labels": lambda: fitted(BoostingClassifier(), X_CLF, LABELS),
    "binomial_deviance": lambda: fitted(BoostingClassifier(loss="binomial_deviance"), X_CLF,
                                        2 * Y_BIN - 1),
    "exponential": lambda: fitted(BoostingClassifier(loss="exponential"), X_CLF, Y_BIN + 3),
    "softmax": lambda: fitted(BoostingClassifier(), X_CLF, Y_MULTI),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_staged_loss_on_training_data_is_train_loss(case):
    estimator, X, y = CASES[case]()
    curve = staged_loss(estimator, X, y)
    assert curve.shape == (estimator.n_estimators_,)
    np.testing.assert_allclose(curve, estimator.train_loss_[1:], rtol=1e-12, atol=1e-12)


def test_loss_targets_follow_each_loss_convention():
    log_loss, _, _ = CASES["log_loss_str_labels"]()
    np.testing.assert_array_equal(loss_targets(log_loss, LABELS), Y_BIN)
    deviance, _, _ = fitted(BoostingClassifier(loss="binomial_deviance"), X_CLF, LABELS)
    np.testing.assert_array_equal(loss_targets(deviance, LABELS), 2 * Y_BIN - 1)
    softmax, _, _ = CASES["softmax"]()
    np.testing.assert_array_equal(loss_targets(softmax, Y_MULTI), np.eye(3)[Y_MULTI])
    squared, _, _ = CASES["squared_error"]()
    targets = loss_targets(squared, [3, -1, 2])  # a regressor's targets become floats
    assert targets.dtype == np.float64
    np.testing.assert_array_equal(targets, [3.0, -1.0, 2.0])


def test_unknown_label_is_named():
    estimator, _, _ = fitted(BoostingClassifier(), X_CLF, Y_BIN)
    with pytest.raises(ValueError, match=r"not fitted on: \[7\]$"):
        staged_loss(estimator, X_CLF[:3], np.array([0, 1, 7]))


def test_test_curve_is_the_loss_of_staged_scores_on_new_data():
    estimator, _, _ = CASES["squared_error"]()
    X_new, y_new = X_REG[:30] + 0.1, Y_REG[:30, 0]
    expected = [np.mean(0.5 * (y_new - F) ** 2) for F in estimator.staged_predict(X_new)]
    np.testing.assert_allclose(staged_loss(estimator, X_new, y_new), expected, rtol=1e-12)


@pytest.mark.parametrize("with_test", [False, True])
def test_plot_draws_one_line_per_curve(with_test):
    estimator, X, y = CASES["log_loss_str_labels"]()
    train = staged_loss(estimator, X, y)
    fig, ax = plt.subplots()
    try:
        lines = plot_staged_loss(ax, train, train + 0.1 if with_test else None, label="gbm")
        assert len(ax.get_lines()) == len(lines) == (2 if with_test else 1)
        x, y = lines[0].get_data()
        np.testing.assert_array_equal(x, np.arange(1, estimator.n_estimators_ + 1))
        np.testing.assert_array_equal(y, train)
        assert [line.get_label() for line in lines] == ["gbm train", "gbm test"][: len(lines)]
        if with_test:
            x_test, y_test = lines[1].get_data()
            np.testing.assert_array_equal(x_test, x)
            np.testing.assert_array_equal(y_test, train + 0.1)
            assert lines[1].get_linestyle() == "--"
            assert lines[1].get_color() == lines[0].get_color()
        assert ax.get_xlabel() == "stage $m$" and ax.get_ylabel() == "mean loss"
    finally:
        plt.close(fig)


def test_plot_from_train_loss_starts_at_stage_zero():
    estimator, _, _ = CASES["squared_error"]()
    fig, ax = plt.subplots()
    try:
        (line,) = plot_staged_loss(ax, estimator.train_loss_, start=0)
        np.testing.assert_array_equal(line.get_xdata(), np.arange(estimator.n_estimators_ + 1))
        assert line.get_label() == "train"
    finally:
        plt.close(fig)


def test_both_curves_start_at_stage_zero_from_train_loss():
    """A test curve of another length, from stage 0: each line's x runs 0 … len − 1."""
    estimator, _, _ = CASES["squared_error"]()
    test = estimator.train_loss_[:-2] + 1.0
    fig, ax = plt.subplots()
    try:
        train_line, test_line = plot_staged_loss(ax, estimator.train_loss_, test, start=0)
        np.testing.assert_array_equal(train_line.get_xdata(),
                                      np.arange(estimator.n_estimators_ + 1))
        np.testing.assert_array_equal(test_line.get_xdata(), np.arange(len(test)))
        np.testing.assert_array_equal(test_line.get_ydata(), test)
        assert [train_line.get_label(), test_line.get_label()] == ["train", "test"]
    finally:
        plt.close(fig)
