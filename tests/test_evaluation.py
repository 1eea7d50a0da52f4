"""Seed 000's evaluation helpers: threshold, report and staged scores against scikit-learn."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_hastie_10_2
from sklearn.metrics import (
    accuracy_score,
    confusion_matrix,
    f1_score,
    precision_score,
    recall_score,
)

from boostlib import BoostingClassifier
from boostlib.evaluation import (
    SEED_THRESHOLDS,
    binary_report,
    f1_optimal_threshold,
    predict_with_threshold,
    staged_scores,
    staged_threshold_scores,
)


def scores(n=300, seed=0):
    """±1 labels and noisy scores that lean towards them."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], size=n, p=[0.4, 0.6])
    return y, 0.4 * y + rng.normal(scale=0.6, size=n)


@pytest.fixture(scope="module")
def fitted():
    X, y = make_hastie_10_2(n_samples=500, random_state=1)
    model = BoostingClassifier(loss="binomial_deviance", n_estimators=15, random_state=0)
    return model.fit(X[:300], y[:300]), X[300:], y[300:]


def test_seed_grid():
    assert SEED_THRESHOLDS.shape == (150,)
    assert SEED_THRESHOLDS[0] == -0.9 and SEED_THRESHOLDS[-1] == 0.5


def test_threshold_rule_counts_a_tie_as_positive():
    F = np.array([-1.0, 0.0, 0.2, 0.5])
    np.testing.assert_array_equal(predict_with_threshold(F, 0.2), [-1, -1, 1, 1])
    np.testing.assert_array_equal(predict_with_threshold(F, 0.0, ("no", "yes")),
                                  ["no", "yes", "yes", "yes"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_threshold_is_the_brute_force_argmax(seed):
    y, F = scores(seed=seed)
    t, f1 = f1_optimal_threshold(y, F)
    brute = [f1_score(y, np.where(F >= s, 1, -1), pos_label=1) for s in SEED_THRESHOLDS]
    np.testing.assert_array_equal(f1, brute)
    assert t == SEED_THRESHOLDS[int(np.argmax(brute))]
    assert f1.max() == max(brute)


def test_threshold_takes_the_first_maximiser_and_other_labels():
    y = np.array(["a", "b", "b", "a", "b"])
    F = np.array([0.0, 1.0, 2.0, 0.5, 3.0])
    t, f1 = f1_optimal_threshold(y, F, thresholds=[0.6, 0.7, 0.9, 1.5], pos_label="b")
    np.testing.assert_allclose(f1, [1.0, 1.0, 1.0, 0.8])
    assert t == 0.6


def test_threshold_f1_is_zero_when_nothing_is_positive():
    y, F = scores()
    _, f1 = f1_optimal_threshold(y, F, thresholds=[F.max() + 1])
    assert f1[0] == 0.0


def test_a_single_threshold():
    y, F = scores()
    t, f1 = f1_optimal_threshold(y, F, thresholds=[0.0])
    assert t == 0.0 and f1.shape == (1,)
    assert f1[0] == f1_score(y, np.where(F >= 0, 1, -1))


def test_threshold_rejects_mismatched_input():
    with pytest.raises(ValueError, match="same length"):
        f1_optimal_threshold([1, -1], [0.1])
    with pytest.raises(ValueError, match="thresholds"):
        f1_optimal_threshold([1, -1], [0.1, 0.2], thresholds=[])


@pytest.mark.parametrize("labels, pos", [((-1, 1), 1), ((0, 1), 1), (("ham", "spam"), "spam")])
def test_report_equals_sklearn(labels, pos):
    y, F = scores(seed=3)
    y_true = np.where(y > 0, labels[1], labels[0])
    y_pred = predict_with_threshold(F, 0.1, labels)
    report = binary_report(y_true, y_pred, pos_label=pos)
    assert report["precision"] == precision_score(y_true, y_pred, pos_label=pos)
    assert report["recall"] == recall_score(y_true, y_pred, pos_label=pos)
    assert report["f1"] == f1_score(y_true, y_pred, pos_label=pos)
    assert report["accuracy"] == accuracy_score(y_true, y_pred)
    table = report["confusion"]
    assert isinstance(table, pd.DataFrame)
    assert table.index.name == "actual" and table.columns.name == "predicted"
    assert list(table.index) == list(labels) == list(table.columns)
    np.testing.assert_array_equal(table.to_numpy(), confusion_matrix(y_true, y_pred))
    # rows are the actual labels: a row sums to that label's count
    assert table.loc[labels[1]].sum() == np.sum(y_true == labels[1])


def test_report_keeps_a_label_only_one_side_has():
    report = binary_report([1, 1, 1], [1, -1, 1])
    assert list(report["confusion"].index) == [-1, 1]
    assert report["confusion"].loc[1, -1] == 1
    assert report["precision"] == 1.0 and report["recall"] == pytest.approx(2 / 3)


def test_staged_scores_end_at_the_final_score(fitted):
    model, X, y = fitted
    staged = staged_scores(model, X, y)
    assert staged.shape == (model.n_estimators_,)
    assert staged[-1] == model.score(X, y)
    staged_f1 = staged_scores(model, X, y, metric=f1_score)
    assert staged_f1[-1] == f1_score(y, model.predict(X))


def test_staged_threshold_scores(fitted):
    model, X, y = fitted
    F = model.decision_function(X)
    t = float(np.median(F))
    staged = staged_threshold_scores(model, X, y, t)
    assert staged.shape == (model.n_estimators_,)
    assert staged[-1] == accuracy_score(y, predict_with_threshold(F, t, model.classes_))
    first = next(model.staged_decision_function(X))
    assert staged[0] == accuracy_score(y, np.where(first >= t, 1, -1))
    # at threshold 0 it agrees with the classifier's own prediction (no score is exactly 0)
    assert np.all(F != 0)
    np.testing.assert_array_equal(staged_threshold_scores(model, X, y, 0.0)[-1:],
                                  staged_scores(model, X, y)[-1:])


def test_staged_threshold_scores_needs_two_classes():
    X = np.arange(12.0).reshape(-1, 1)
    model = BoostingClassifier(n_estimators=2).fit(X, np.arange(12) % 3)
    with pytest.raises(ValueError, match="binary"):
        staged_threshold_scores(model, X, np.arange(12) % 3, 0.0)
