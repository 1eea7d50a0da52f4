"""The benchmark harness and the learners the benchmarks define (fast; no benchmark is run)."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import direction_step  # noqa: E402
import esl_10_2  # noqa: E402
import harness  # noqa: E402
import seed000  # noqa: E402


def test_alternating_runs_competitors_in_turn():
    order = []
    runs = harness.alternating({"A": lambda: order.append("A"), "B": lambda: order.append("B")},
                               repeat=3)
    assert order == ["A", "B"] * 3
    assert all(len(r["seconds"]) == 3 and len(r["wall"]) == 3 for r in runs.values())


def test_result_files_record_versions_and_cpu_count(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "RESULTS", tmp_path)
    frame = pd.DataFrame({"a": [1, 2], "b": [0.5, 0.25]})
    harness.write_csv("example", frame, notes=["a note"])
    header = harness.read_header("example")
    assert "cpu_count=" in header[0] and "scikit-learn=" in header[0] and "boostlib=" in header[0]
    assert header[1] == "a note"
    pd.testing.assert_frame_equal(harness.read_csv("example"), frame)


def brute_force_error(X, y, w):
    """The least weighted misclassification over every single-feature threshold and sign."""
    best = np.inf
    for j in range(X.shape[1]):
        for threshold in np.concatenate([[-np.inf], X[:, j]]):
            for sign in (1.0, -1.0):
                predicted = np.where(X[:, j] > threshold, sign, -sign)
                best = min(best, w[predicted != y].sum() / w.sum())
    return best


@pytest.mark.parametrize("seed", range(5))
def test_misclassification_stump_finds_the_least_weighted_error(seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(40, 3)), 1)  # rounding makes ties between values
    y = np.where(rng.normal(size=40) > 0, 1.0, -1.0)
    w = rng.random(40)
    stump = esl_10_2.MisclassificationStump().fit(X, y, sample_weight=w)
    achieved = w[stump.predict(X) != y].sum() / w.sum()
    assert achieved == pytest.approx(brute_force_error(X, y, w), abs=1e-12)
    assert stump.error_ == pytest.approx(achieved, abs=1e-12)
    # a signed target carries its size as weight: z = 3y with unit weights is the same problem
    assert esl_10_2.MisclassificationStump().fit(X, 3 * y).error_ == pytest.approx(
        brute_force_error(X, y, np.ones(40)), abs=1e-12)


def test_timed_tree_is_a_plain_tree_with_a_stopwatch():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 4)), rng.normal(size=200)
    before = dict(seed000.STOPWATCH)
    timed = seed000.TimedTree(max_depth=3, random_state=0).fit(X, y)
    plain = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(timed.predict(X), plain.predict(X))
    assert seed000.STOPWATCH["learner_fit"] > before["learner_fit"]
    assert seed000.STOPWATCH["learner_predict"] > before["learner_predict"]


def test_stages_to_reach_a_target_loss():
    losses = np.array([1.0, 0.8, 0.6, 0.5, 0.55])
    assert direction_step.stages_to_reach(losses, 0.6) == 2
    assert np.isnan(direction_step.stages_to_reach(losses, 0.1))
