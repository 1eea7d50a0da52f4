"""What the benchmarks of chapters 5 and 6 rest on (fast; no benchmark is run)."""

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import boosted_networks  # noqa: E402
import closed_form_step  # noqa: E402

from boostlib import get_loss  # noqa: E402
from boostlib.datasets import load_split, one_hot  # noqa: E402
from boostlib.steps import RHO_MAX, newton  # noqa: E402

LOG_LOSS = get_loss("log_loss")


def test_one_step_watch_is_the_one_step_rule_and_counts_the_halving():
    # two points at F = -6, labels 1 and 0, moved together: the Newton value (about 200)
    # raises the loss, and boostlib halves it five times
    y, F, u = np.array([1.0, 0.0]), np.full(2, -6.0), np.ones(2)
    watch = closed_form_step.OneStepWatch()
    rho, _ = watch(LOG_LOSS, y, F, u)
    assert rho == newton(LOG_LOSS, y, F, u, max_iter=1)[0]
    assert watch.counts() == {"step_calls": 1, "step_cap": 0, "iteration_cap": 0, "halved": 1}
    # a step that lowers the loss is neither halved nor clipped
    watch(LOG_LOSS, np.array([1.0, 0.0]), np.zeros(2), np.array([1.0, -1.0]))
    assert watch.counts()["halved"] == 1 and watch.calls == 2


def test_one_step_watch_counts_the_clip():
    # confident points moved by a tiny u: the Newton value is far beyond RHO_MAX
    y, F = np.array([1.0, 1.0, 0.0]), np.array([20.0, 20.0, -20.0])
    u = np.array([1e-9, 1e-9, -1e-9])
    watch = closed_form_step.OneStepWatch()
    rho, _ = watch(LOG_LOSS, y, F, u)
    assert abs(rho) == RHO_MAX and watch.step_cap == 1 and watch.halved == 0


@pytest.mark.parametrize("budget", [600])
def test_single_network_checkpoints_are_one_adam_run(budget):
    """partial_fit takes one full-batch Adam step and keeps Adam's moments: the checkpoint after
    k steps is the network fitted with max_iter=k, bit for bit."""
    data = load_split("iris", random_state=0)
    X, Y = data.X_train, one_hot(data.y_train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        checkpoints = boosted_networks.candidates("one network", 0.03, 0, X, Y, data.y_train,
                                                  (X,), budget)
        assert [stop for stop, _ in checkpoints] == list(
            range(boosted_networks.ADAM_STEPS, budget + 1, boosted_networks.ADAM_STEPS))
        for stop, (output,) in checkpoints:
            fitted = boosted_networks.network(boosted_networks.HIDDEN * boosted_networks.NETWORKS,
                                              0.03, stop, 0, len(X)).fit(X, Y)
            np.testing.assert_array_equal(output, fitted.predict(X))


def test_boosted_candidates_are_the_staged_models():
    data = load_split("iris", random_state=0)
    X, Y = data.X_train, one_hot(data.y_train)
    outputs = boosted_networks.candidates("boosted trees (quadratic)", 0.5, 0, X, Y,
                                          data.y_train, (X,))
    assert [stop for stop, _ in outputs] == list(range(1, boosted_networks.NETWORKS + 1))
    losses = [boosted_networks.quadratic_loss(Y, F) for _, (F,) in outputs]
    assert np.all(np.diff(losses) <= 1e-12)  # the closed-form step never raises the loss
