"""Directions: the targets and weights of the tables in directions.py, and their bounds."""

import numpy as np
import pytest
from conftest import sample

from boostlib import directions
from boostlib.directions import TARGET_BOUND, get_direction
from boostlib.losses import (
    AbsoluteError,
    BinomialDeviance,
    Exponential,
    Huber,
    LogLoss,
    Quadratic,
    Softmax,
    SquaredError,
)

SCALAR_SMOOTH = [SquaredError(), LogLoss(), BinomialDeviance(), Exponential()]


@pytest.mark.parametrize("loss", SCALAR_SMOOTH, ids=lambda v: v.name)
def test_table_of_directions(loss):
    y, F = sample(loss)
    g, h, L = loss.gradient(y, F), loss.hessian(y, F), loss(y, F)
    z, w = directions.gradient(loss, y, F)
    np.testing.assert_allclose(z, -g)
    np.testing.assert_array_equal(w, 1.0)
    z, w = directions.newton(loss, y, F)
    np.testing.assert_allclose(z, -g / h)
    np.testing.assert_allclose(w, h)
    z, w = directions.newton_unweighted(loss, y, F)
    np.testing.assert_allclose(z, -g / h)
    np.testing.assert_array_equal(w, 1.0)
    z, w = directions.newton_raphson(loss, y, F)
    np.testing.assert_allclose(z, -L / g)
    np.testing.assert_array_equal(w, 1.0)


@pytest.mark.parametrize("loss", SCALAR_SMOOTH, ids=lambda v: v.name)
def test_weighted_newton_fit_minimises_the_taylor_expansion(loss):
    """A constant fitted to −g/h with weights h minimises Σ g u + ½ h u²."""
    y, F = sample(loss)
    z, w = directions.newton(loss, y, F)
    u_fit = np.average(z, weights=w)
    g, h = loss.gradient(y, F), loss.hessian(y, F)
    grid = u_fit + np.linspace(-1, 1, 2001)
    taylor = [np.sum(g * u + 0.5 * h * u**2) for u in grid]
    assert abs(grid[int(np.argmin(taylor))] - u_fit) <= 1e-3


def test_vector_newton_is_minus_inverse_hessian_times_gradient():
    loss = Quadratic()
    y, F = sample(loss)
    z, w = directions.newton(loss, y, F)
    np.testing.assert_allclose(z, y - F, rtol=1e-9)  # seed 001: the residual
    np.testing.assert_allclose(w, 2.0)
    soft = Softmax()
    y, F = sample(soft)
    z, _ = directions.newton(soft, y, F)
    g, H = soft.gradient(y, F), soft.hessian(y, F)
    np.testing.assert_allclose(np.einsum("ijk,ik->ij", H, z), -g, atol=1e-8)  # H z = −g


def test_deviance_newton_target_grows_like_exp_on_misclassified_points():
    """−L′/L″ = y (1 + e^{−2yF}) / 2 for the binomial deviance (chapter 4)."""
    loss = BinomialDeviance()
    y = np.ones(5)
    F = -np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    z, _ = directions.newton_unweighted(loss, y, F)
    np.testing.assert_allclose(z, (1 + np.exp(-2 * y * F)) / 2)


@pytest.mark.parametrize("name", sorted(directions.DIRECTIONS))
def test_targets_are_bounded_and_finite_at_extreme_scores(name):
    loss = BinomialDeviance()
    y = np.array([1.0, -1.0, 1.0, -1.0])
    F = np.array([1e4, 1e4, -1e4, -1e4])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        z, w = get_direction(name)(loss, y, F)
    assert np.all(np.isfinite(z)) and np.all(np.isfinite(w))
    assert np.all(np.abs(z) <= TARGET_BOUND)


def test_softmax_newton_is_finite_when_probabilities_saturate():
    loss = Softmax()
    y = np.eye(3)[[0, 1, 2]]
    F = np.array([[1e4, 0, 0], [1e4, 0, 0], [0, 0, -1e4]])
    z, w = directions.newton(loss, y, F)
    assert np.all(np.isfinite(z)) and np.all(np.abs(z) <= TARGET_BOUND)


@pytest.mark.parametrize("loss", [AbsoluteError(), Huber()], ids=lambda v: v.name)
@pytest.mark.parametrize("name", ["newton", "newton_unweighted"])
def test_newton_needs_a_positive_hessian(loss, name):
    y, F = sample(loss)
    with pytest.raises(ValueError, match=f"direction='{name}'.*{loss.name}"):
        get_direction(name)(loss, y, F)


def test_newton_raphson_is_scalar_only_and_unknown_names_fail():
    y, F = sample(Softmax())
    with pytest.raises(ValueError, match="newton_raphson"):
        directions.newton_raphson(Softmax(), y, F)
    with pytest.raises(ValueError, match="direction='steepest'"):
        get_direction("steepest")
