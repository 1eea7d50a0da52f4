"""Every loss: derivatives by finite differences, optimal constant by a numeric argmin,
hand-computed values, and properties (convexity, finiteness) with hypothesis."""

import numpy as np
import pytest
from conftest import sample
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize, minimize_scalar

from boostlib.losses import (
    LOSSES,
    AbsoluteError,
    BinomialDeviance,
    Exponential,
    Huber,
    LogLoss,
    Quadratic,
    Softmax,
    SquaredError,
    get_loss,
    weighted_lower_median,
)

EPS = 1e-4


def fd4(f, x, eps=EPS):
    """Fourth-order central difference of a function of one array argument."""
    return (-f(x + 2 * eps) + 8 * f(x + eps) - 8 * f(x - eps) + f(x - 2 * eps)) / (12 * eps)


def away_from_kinks(loss, y, F):
    """Move F off the points where absolute error and Huber are not differentiable."""
    if isinstance(loss, AbsoluteError):
        F = np.where(np.abs(y - F) < 0.01, F + 0.05, F)
    if isinstance(loss, Huber):
        F = np.where(np.abs(np.abs(y - F) - loss.delta) < 0.01, F + 0.05, F)
    return F


def test_gradient_matches_finite_differences(loss):
    y, F = sample(loss)
    F = away_from_kinks(loss, y, F)
    g = loss.gradient(y, F)
    if loss.vector:
        for k in range(F.shape[1]):
            e = np.zeros_like(F)
            e[:, k] = 1
            numeric = fd4(lambda t, e=e: loss(y, F + t * e), 0.0)
            np.testing.assert_allclose(g[:, k], numeric, rtol=1e-6, atol=1e-8)
    else:
        np.testing.assert_allclose(g, fd4(lambda t: loss(y, F + t), 0.0), rtol=1e-6, atol=1e-8)


def test_hessian_matches_finite_differences_of_gradient(loss):
    y, F = sample(loss)
    F = away_from_kinks(loss, y, F)
    H = loss.hessian(y, F)
    if loss.vector:
        for k in range(F.shape[1]):
            e = np.zeros_like(F)
            e[:, k] = 1
            numeric = fd4(lambda t, e=e: loss.gradient(y, F + t * e), 0.0)
            np.testing.assert_allclose(H[:, :, k], numeric, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(H, np.swapaxes(H, 1, 2))  # symmetric
    else:
        numeric = fd4(lambda t: loss.gradient(y, F + t), 0.0)
        np.testing.assert_allclose(H, numeric, rtol=1e-6, atol=1e-8)


def test_optimal_constant_is_the_numeric_argmin(loss):
    y, _ = sample(loss, n=51, seed=3)
    w = np.random.default_rng(4).uniform(0.5, 2.0, size=len(y))
    for weights in (None, w):
        c = loss.optimal_constant(y, weights)
        if loss.vector:
            def objective(v, weights=weights):
                return loss.mean(y, np.broadcast_to(v, y.shape), weights)

            best = minimize(objective, np.zeros(y.shape[1]), method="BFGS", tol=1e-12).x
            assert objective(c) <= objective(best) + 1e-9
        else:
            def objective(v, weights=weights):
                return loss.mean(y, np.full(len(y), v), weights)

            best = minimize_scalar(objective, bracket=(-3, 3), tol=1e-12).x
            assert objective(c) <= objective(best) + 1e-9
            if not isinstance(loss, AbsoluteError):  # its argmin is an interval
                np.testing.assert_allclose(c, best, atol=1e-4)


@pytest.mark.parametrize(
    "loss, y, F, value, g, h",
    [
        (SquaredError(), 3.0, 1.0, 2.0, -2.0, 1.0),
        (AbsoluteError(), 3.0, 1.0, 2.0, -1.0, 0.0),
        (Huber(delta=1.0), 3.0, 1.0, 1.5, -1.0, 0.0),
        (Huber(delta=1.0), 1.5, 1.0, 0.125, -0.5, 1.0),
        (LogLoss(), 1.0, 0.0, np.log(2), -0.5, 0.25),
        (LogLoss(), 0.0, np.log(3), np.log(4), 0.75, 0.1875),
        (BinomialDeviance(), 1.0, 0.0, np.log(2), -1.0, 1.0),
        (BinomialDeviance(), -1.0, 0.5 * np.log(3), np.log(4), 1.5, 0.75),
        (Exponential(), 1.0, np.log(2), 0.5, -0.5, 0.5),
        (Exponential(), -1.0, np.log(2), 2.0, 2.0, 2.0),
    ],
    ids=lambda v: v.name if hasattr(v, "name") else None,
)
def test_hand_computed_values(loss, y, F, value, g, h):
    y, F = np.array([y]), np.array([F])
    np.testing.assert_allclose(loss(y, F), value)
    np.testing.assert_allclose(loss.gradient(y, F), g)
    np.testing.assert_allclose(loss.hessian(y, F), h)


def test_hand_computed_vector_losses():
    y, F = np.array([[1.0, 0.0]]), np.array([[0.0, 0.0]])
    np.testing.assert_allclose(Quadratic()(y, F), 1.0)
    np.testing.assert_allclose(Quadratic().gradient(y, F), [[-2.0, 0.0]])
    np.testing.assert_allclose(Quadratic().hessian(y, F), [2 * np.eye(2)])
    np.testing.assert_allclose(Softmax()(y, F), np.log(2))
    np.testing.assert_allclose(Softmax().gradient(y, F), [[-0.5, 0.5]])
    np.testing.assert_allclose(Softmax().hessian(y, F), [[[0.25, -0.25], [-0.25, 0.25]]])


def test_gradients_and_constants_are_scikit_learns_to_the_last_bit():
    """Log loss and exponential loss: the gradient and the starting constant are
    bit-identical to scikit-learn's, whose trees boostlib reproduces (subsampled too)."""
    from sklearn._loss.loss import ExponentialLoss, HalfBinomialLoss

    rng = np.random.default_rng(0)
    y01 = (rng.random(2000) < 0.3).astype(float)
    F = 5 * rng.normal(size=2000)
    np.testing.assert_array_equal(LogLoss().gradient(y01, F), HalfBinomialLoss().gradient(y01, F))
    np.testing.assert_array_equal(Exponential().gradient(2 * y01 - 1, F),
                                  ExponentialLoss().gradient(y01, F))
    assert LogLoss().optimal_constant(y01) == HalfBinomialLoss().fit_intercept_only(y01)
    assert Exponential().optimal_constant(2 * y01 - 1) == ExponentialLoss().fit_intercept_only(y01)


def test_deviance_is_log_loss_at_twice_the_score():
    """log(1 + e^{-2yF}) with y = ±1 is the log loss of the 0/1 label at 2F."""
    y, F = sample(BinomialDeviance(), n=30)
    np.testing.assert_allclose(BinomialDeviance()(y, F), LogLoss()((y + 1) / 2, 2 * F))


def test_weighted_lower_median_is_inverted_cdf():
    assert weighted_lower_median([1, 2, 3, 4]) == 2
    assert weighted_lower_median([1, 2, 3, 4, 5]) == 3
    assert weighted_lower_median([1, 2, 3], [1, 1, 5]) == 3
    assert weighted_lower_median([5, 1, 3], [0, 1, 1]) == 1


def test_get_loss_accepts_names_and_instances_and_rejects_others():
    assert isinstance(get_loss("huber"), Huber)
    custom = Huber(delta=2.0)
    assert get_loss(custom) is custom
    with pytest.raises(ValueError, match="loss='hinge'"):
        get_loss("hinge")
    with pytest.raises(ValueError, match="delta"):
        Huber(delta=0)


def test_repr_names_the_parameters():
    assert repr(Huber(delta=2.0)) == "Huber(delta=2.0)"
    assert repr(LogLoss()) == "LogLoss()"


# -- properties -----------------------------------------------------------------
scores = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)
targets = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False)


@pytest.mark.parametrize("name", sorted(LOSSES))
@settings(max_examples=60, deadline=None)
@given(F=st.lists(scores, min_size=1, max_size=6), raw=st.lists(targets, min_size=6, max_size=6))
def test_finite_and_convex_everywhere(name, F, raw):
    """No NaN, no inf, no overflow or division warning for |F| <= 1e4; h >= 0 (convexity)."""
    loss = LOSSES[name]()
    n = len(F)
    if loss.vector:
        F = np.column_stack([F, F[::-1], np.zeros(n)])
        y = np.eye(3)[np.arange(n) % 3] if loss.labels else np.resize(raw, (n, 3))
    else:
        F = np.asarray(F)
        y = np.resize(raw, n) if loss.labels is None else np.where(
            np.resize(raw, n) > 0, loss.labels[1], loss.labels[0]).astype(float)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        values = [loss(y, F), loss.gradient(y, F), loss.hessian(y, F)]
    for v in values:
        assert np.all(np.isfinite(v))
    H = values[2]
    if loss.vector:
        assert np.all(np.linalg.eigvalsh(H) >= -1e-12)
    else:
        assert np.all(H >= 0)


def test_exponential_loss_is_clipped_where_its_exponent_would_overflow():
    """Beyond |yF| = 650 the exponent is clipped (docstring of Exponential): L and h are
    e^{650} where −yF > 650, and g, h are ∓e^{−650}, e^{−650} (not 0) where yF > 650.
    Up to the clip every value is exact, so the clip sits at 650 and nowhere else."""
    loss = Exponential()
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    F = np.array([-1e4, 1e4, -700.0, 700.0, 1e4, -1e4, -649.0, 649.0])
    top, bottom, inside = np.exp(650.0), np.exp(-650.0), np.exp(649.0)
    with np.errstate(over="raise", invalid="raise"):
        L, g, h = loss(y, F), loss.gradient(y, F), loss.hessian(y, F)
    np.testing.assert_allclose(L, [top] * 4 + [0.0] * 2 + [inside] * 2, rtol=1e-12)
    h_expected = np.array([top] * 4 + [bottom] * 2 + [inside] * 2)
    np.testing.assert_allclose(h, h_expected, rtol=1e-12)
    np.testing.assert_allclose(g, -y * h_expected, rtol=1e-12)
    assert np.all(h > 0)  # e^{−650} ≈ 2e−283, not 0: the Hessian stays positive
