"""The loop's per-row formulas in blocks and on threads: the same bits as one whole-array call.

Each loss is compared with the formula it had before it ran in blocks (scikit-learn's
compiled loss, or numpy and scipy over the whole array), on rows that reach every
branch (the log loss's cut-offs at −37, −2 and 18, the exponential's clip at 650,
scores up to ±1e4) and on 1 to 4 threads. Boosted models are compared with the same
fit through the unchanged path (blocks replaced by one call), with blocks small
enough that every formula is cut into many.
"""

import numpy as np
import pytest
from scipy.special import expit
from sklearn._loss.loss import ExponentialLoss, HalfBinomialLoss

from boostlib import BoostingClassifier, HistTreeRegressor, row_blocks
from boostlib import losses as losses_module
from boostlib.losses import EXP_CLIP, BinomialDeviance, Exponential, LogLoss
from boostlib.row_blocks import BLOCK_ROWS, by_row_blocks, loop_threads
from boostlib.trees.threads import effective_n_threads

THREADS = [1, 2, 3, 4]


def scores(N, seed=0):
    """Scores over every branch of the formulas: normal, wide, cut-off points, extremes."""
    rng = np.random.default_rng(seed)
    F = rng.normal(scale=3.0, size=N)
    special = np.array([0.0, -0.0, -37.0, -37.5, -2.0, 18.0, 18.5, 650.0, -650.0, 700.0,
                        -700.0, 1e4, -1e4, 5e-324, -5e-324])
    F[rng.choice(N, size=N // 10, replace=False)] = rng.uniform(-1e4, 1e4, size=N // 10)
    F[: len(special)] = special
    return F


def reference(loss, y, F):
    """The loss's value, gradient and Hessian as computed before blocks, over the whole array."""
    if isinstance(loss, LogLoss):
        half = HalfBinomialLoss()
        return half.loss(y, F), half.gradient(y, F), expit(F) * expit(-F)
    if isinstance(loss, BinomialDeviance):
        return (np.logaddexp(0.0, -2.0 * y * F), -2.0 * y * expit(-2.0 * y * F),
                4.0 * expit(-2.0 * y * F) * expit(2.0 * y * F))
    e = np.exp(np.minimum(-y * F, EXP_CLIP))
    g = ExponentialLoss().gradient((y + 1) / 2, np.clip(F, -EXP_CLIP, EXP_CLIP))
    return e, g, -y * g


def bits(array):
    return np.asarray(array, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("loss", [LogLoss(), BinomialDeviance(), Exponential()], ids=repr)
def test_every_value_is_the_whole_array_value_to_the_bit(loss, threads):
    N = 3 * BLOCK_ROWS + 12345  # a short last block
    F = scores(N)
    y = (np.random.default_rng(1).random(N) < 0.5).astype(float)
    if loss.labels == (-1, 1):
        y = 2 * y - 1
    with loop_threads(threads):
        ours = loss(y, F), loss.gradient(y, F), loss.hessian(y, F)
    for name, got, want in zip(("L", "g", "h"), ours, reference(loss, y, F), strict=True):
        assert got.shape == want.shape, name
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"{name} on {threads}")
    # and the mean, reduced over the whole array in one call as before
    with loop_threads(threads):
        assert loss.mean(y, F) == float(np.mean(reference(loss, y, F)[0]))


def test_blocks_run_on_the_threads_they_are_given():
    import threading
    seen = set()

    def formula(F):
        seen.add(threading.get_ident())
        return F * 2.0

    F = scores(4 * BLOCK_ROWS)
    with loop_threads(2):
        np.testing.assert_array_equal(by_row_blocks(formula, F), F * 2.0)
    assert len(seen) == 2
    seen.clear()
    by_row_blocks(formula, F)  # outside loop_threads: the calling thread alone
    assert seen == {threading.get_ident()}


@pytest.mark.parametrize("value", [np.float32(1.5), 1.5])
def test_other_dtypes_and_scalars_get_one_whole_call(value):
    F32 = scores(3 * BLOCK_ROWS).astype(np.float32)
    got = LogLoss().hessian(None, F32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, expit(F32) * expit(-F32))
    assert LogLoss().hessian(None, value) == expit(value) * expit(-value)


def test_the_loop_takes_the_threads_of_its_histogram_tree():
    hist = BoostingClassifier(learner=HistTreeRegressor(n_jobs=None))
    hist._prepare_learners()
    assert hist._loop_threads() == effective_n_threads(None)
    one = BoostingClassifier(learner=HistTreeRegressor(n_jobs=1))
    one._prepare_learners()
    assert one._loop_threads() == 1
    default = BoostingClassifier()  # scikit-learn's tree: one thread, as before
    default._prepare_learners()
    assert default._loop_threads() == 1


def _fits(Estimator, X, y, **params):
    model = Estimator(n_estimators=6, random_state=0, **params).fit(X, y)
    F = model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X)
    return model, F


def _whole_array(formula, *arrays, out_keyword=None):
    return formula(*arrays)


@pytest.mark.parametrize("loss, direction, step", [
    ("log_loss", "newton", "constant"),
    ("log_loss", "gradient", "leaf_newton"),
    ("binomial_deviance", "newton", "line_search"),
    ("exponential", "newton_raphson", "newton"),
])
@pytest.mark.parametrize("n_jobs", [1, None])
def test_boosted_models_are_those_of_the_whole_array_path(monkeypatch, loss, direction, step,
                                                          n_jobs):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=3000) > 0).astype(int)
    learner = (HistTreeRegressor(max_depth=3, n_jobs=n_jobs) if step != "leaf_newton"
               else None)  # leaf_newton: scikit-learn's tree
    params = dict(loss=loss, direction=direction, step=step, learner=learner, subsample=0.8)
    monkeypatch.setattr(row_blocks, "BLOCK_ROWS", 211)  # many blocks, a short last one
    monkeypatch.setattr(BoostingClassifier, "_loop_threads", lambda self: 3)
    blocked, F_blocked = _fits(BoostingClassifier, X, y, **params)
    monkeypatch.setattr(losses_module, "by_row_blocks", _whole_array)
    whole, F_whole = _fits(BoostingClassifier, X, y, **params)
    np.testing.assert_array_equal(bits(F_blocked), bits(F_whole))
    np.testing.assert_array_equal(bits(blocked.train_loss_), bits(whole.train_loss_))
    np.testing.assert_array_equal(bits(blocked.steps_), bits(whole.steps_))
