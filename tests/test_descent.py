"""Tests for boostlib.descent: the line search, and descent in both spaces (chapters 1, 2)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from boostlib.descent import (
    DescentPath,
    function_descent,
    linear_model_risk,
    minimise_along,
    parameter_descent,
)


def ill_conditioned_least_squares(seed=0, n=60):
    """A 2-feature least-squares problem with correlated features (zig-zags)."""
    X, y = make_regression(n_samples=n, n_features=2, noise=5.0, random_state=seed)
    X = X @ np.array([[1.0, 0.95], [0.0, 0.2]])
    return X, y


def finite_difference_gradient(f, P, eps=1e-5):
    """4th-order central differences of ``f`` at ``P``."""
    grad = np.zeros_like(P)
    for j in range(len(P)):
        e = np.zeros_like(P)
        e[j] = eps
        grad[j] = (-f(P + 2 * e) + 8 * f(P + e) - 8 * f(P - e) + f(P - 2 * e)) / (12 * eps)
    return grad


# --- minimise_along -------------------------------------------------------------------------


@pytest.mark.parametrize("use_slope", [False, True], ids=["values", "slope"])
@pytest.mark.parametrize("scale", [1e-6, 1e-2, 1.0, 30.0, 1e5], ids=lambda s: f"rho*={s:g}")
def test_minimise_along_matches_grid_argmin(scale, use_slope):
    # An asymmetric convex φ on ρ ≥ 0 with its minimum at ρ* = scale.
    def phi(rho):
        r = rho / scale
        return r - 2.0 * np.log1p(r)

    def slope(rho):
        r = rho / scale
        return (1.0 - 2.0 / (1.0 + r)) / scale

    rho = minimise_along(phi, slope=slope if use_slope else None)
    grid = np.linspace(0.0, 3.0 * scale, 300_001)
    brute = grid[np.argmin(phi(grid))]
    assert rho == pytest.approx(brute, rel=1e-4)
    assert rho == pytest.approx(scale, rel=1e-6)


def test_minimise_along_returns_zero_when_no_step_descends():
    assert minimise_along(lambda rho: (rho + 1.0) ** 2) == 0.0
    assert minimise_along(lambda rho: (rho + 1.0) ** 2, slope=lambda rho: 2 * (rho + 1.0)) == 0.0
    assert minimise_along(lambda rho: 3.0) == 0.0
    assert minimise_along(lambda rho: 3.0, slope=lambda rho: 0.0) == 0.0


def test_minimise_along_raises_when_infimum_not_attained():
    with pytest.raises(ValueError, match="no minimiser"):
        minimise_along(lambda rho: 1.0 / (1.0 + rho))
    with pytest.raises(ValueError, match="no minimiser"):
        minimise_along(lambda rho: 1.0 / (1.0 + rho), slope=lambda rho: -1.0 / (1.0 + rho) ** 2)


@pytest.mark.parametrize("guess", [0.0, -1.0, np.inf, np.nan])
def test_minimise_along_rejects_bad_guess(guess):
    with pytest.raises(ValueError, match="guess"):
        minimise_along(lambda rho: (rho - 1.0) ** 2, guess=guess)


# --- linear_model_risk ----------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["squared_error", "huber", "log_loss", "binomial_deviance"])
def test_linear_model_risk_gradient_matches_finite_differences(loss):
    if loss in ("log_loss", "binomial_deviance"):
        X, y = make_classification(
            n_samples=80, n_features=3, n_informative=2, n_redundant=0, random_state=1
        )
        y = y if loss == "log_loss" else 2.0 * y - 1.0
    else:
        X, y = make_regression(n_samples=80, n_features=3, noise=1.0, random_state=1)
        y = y / y.std()
    objective, gradient = linear_model_risk(loss, X, y)
    P = np.random.default_rng(2).normal(size=3) * 0.3
    np.testing.assert_allclose(
        gradient(P), finite_difference_gradient(objective, P), rtol=1e-6, atol=1e-9
    )


def test_linear_model_risk_squared_error_is_the_quadratic():
    X, y = ill_conditioned_least_squares()
    objective, gradient = linear_model_risk("squared_error", X, y)
    P = np.array([0.3, -1.2])
    assert objective(P) == pytest.approx(0.5 * np.mean((y - X @ P) ** 2), rel=1e-12)
    np.testing.assert_allclose(gradient(P), X.T @ (X @ P - y) / len(y), rtol=1e-12)


# --- parameter_descent ----------------------------------------------------------------------


def test_exact_line_search_on_quadratic_is_closed_form():
    # Φ(P) = ½ PᵀAP − bᵀP + c: the exact step along −g is ρ = gᵀg / gᵀAg.
    X, y = ill_conditioned_least_squares()
    objective, gradient = linear_model_risk("squared_error", X, y)
    A = X.T @ X / len(y)
    path = parameter_descent(objective, gradient, [20.0, -20.0], n_steps=6)
    closed = [g @ g / (g @ A @ g) for g in path.gradients]
    np.testing.assert_allclose(path.rhos, closed, rtol=1e-6)
    # The first steps land where the brute-force minimum along the line is (later ones
    # move Φ by less than a grid of values can resolve).
    for P, g, rho in zip(path.params[:2], path.gradients[:2], path.rhos[:2], strict=True):
        grid = np.linspace(0.0, 2.0 * rho, 200_001)
        values = 0.5 * np.mean((y - X @ P + grid[:, None] * (X @ g)) ** 2, axis=1)
        assert rho == pytest.approx(grid[np.argmin(values)], rel=1e-4)


def test_exact_line_search_zig_zags():
    # ∂Φ(P_{t−1} − ρ g_t)/∂ρ = −g_{t+1}ᵀ g_t = 0 at the exact ρ_t: consecutive gradients are ⊥.
    X, y = ill_conditioned_least_squares()
    objective, gradient = linear_model_risk("squared_error", X, y)
    path = parameter_descent(objective, gradient, [20.0, -20.0], n_steps=6)
    g = path.gradients
    cosines = (
        np.sum(g[1:] * g[:-1], axis=1)
        / np.linalg.norm(g[1:], axis=1)
        / np.linalg.norm(g[:-1], axis=1)
    )
    np.testing.assert_allclose(cosines, 0.0, atol=1e-6)
    # ... and so g_{t+2} is parallel to g_t in two dimensions.
    assert np.all(np.sum(g[2:] * g[:-2], axis=1) > 0)


def test_parameter_descent_path_bookkeeping():
    X, y = ill_conditioned_least_squares()
    objective, gradient = linear_model_risk("squared_error", X, y)
    P0 = np.array([5.0, 5.0])
    path = parameter_descent(objective, gradient, P0, n_steps=4, rho=0.1)
    assert isinstance(path, DescentPath)
    assert path.params.shape == (5, 2) and path.values.shape == (5,)
    assert path.rhos.shape == (4,) and path.gradients.shape == (4, 2)
    np.testing.assert_array_equal(path.rhos, 0.1)
    np.testing.assert_allclose(path.values, [objective(P) for P in path.params])
    np.testing.assert_allclose(path.gradients, [gradient(P) for P in path.params[:-1]])
    # The unrolled sum P_t = P_0 + Σ_{i<t} p_i with p_i = −ρ g.
    np.testing.assert_allclose(path.params, P0 + np.vstack([[0, 0], np.cumsum(path.steps, 0)]))
    assert repr(path).startswith("DescentPath(n_steps=4, Φ: ")


def test_line_search_never_worse_than_fixed_step():
    X, y = ill_conditioned_least_squares()
    objective, gradient = linear_model_risk("squared_error", X, y)
    exact = parameter_descent(objective, gradient, [20.0, -20.0], n_steps=1)
    for rho in [0.01, 0.1, 0.5, 1.0, 2.0]:
        fixed = parameter_descent(objective, gradient, [20.0, -20.0], n_steps=1, rho=rho)
        assert exact.values[1] <= fixed.values[1]


def test_parameter_descent_logistic_regression_decreases():
    X, y = make_classification(
        n_samples=100, n_features=2, n_informative=2, n_redundant=0, flip_y=0.2, random_state=3
    )
    objective, gradient = linear_model_risk("log_loss", X, y)
    path = parameter_descent(objective, gradient, np.zeros(2), n_steps=6)
    assert np.all(np.diff(path.values) < 0)
    assert np.linalg.norm(path.gradients[-1]) < 1e-2 * np.linalg.norm(path.gradients[0])


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        ({"n_steps": 0}, "n_steps"),
        ({"n_steps": 2.5}, "n_steps"),
        ({"n_steps": True}, "n_steps"),
        ({"P0": [np.nan, 0.0]}, "P0"),
        ({"P0": [[0.0, 0.0]]}, "P0"),
        ({"rho": 0.0}, "rho"),
        ({"rho": -1.0}, "rho"),
        ({"rho": np.inf}, "rho"),
        ({"P0": [0.0, 0.0, 0.0]}, "gradient"),
    ],
    ids=lambda v: str(v),
)
def test_parameter_descent_bad_input(kwargs, parameter):
    X, y = ill_conditioned_least_squares()
    objective, gradient = linear_model_risk("squared_error", X, y)
    args = {"P0": [0.0, 0.0], "n_steps": 3} | kwargs
    with pytest.raises((ValueError, TypeError), match=parameter):
        parameter_descent(
            lambda P: objective(P[:2]), lambda P: gradient(P[:2]), args.pop("P0"), **args
        )


# --- function_descent -----------------------------------------------------------------------


def test_squared_error_reaches_every_target_in_one_step():
    # g = F − y, so F − ρg with the exact ρ = 1 is y itself.
    _, y = make_regression(n_samples=50, n_features=1, noise=3.0, random_state=4)
    path = function_descent("squared_error", y, y.mean(), n_steps=1)
    assert path.rhos[0] == pytest.approx(1.0, rel=1e-6)
    np.testing.assert_allclose(path.gradients[0], y.mean() - y)
    np.testing.assert_allclose(path.params[1], y, atol=1e-6 * np.ptp(y))
    assert path.values[1] < 1e-10 * path.values[0]


def test_function_line_search_matches_grid_argmin():
    y = np.array([-1.0, 1.0, 1.0, -1.0, 1.0])
    F0 = np.array([0.3, -0.2, 0.5, 0.1, 2.0])
    path = function_descent("absolute_error", y, F0, n_steps=1)
    g = path.gradients[0]
    grid = np.linspace(0.0, 3.0, 300_001)
    best = np.abs(y - (F0 - grid[:, None] * g)).sum(axis=1).min()
    assert np.abs(y - path.params[1]).sum() == pytest.approx(best, abs=1e-6)


def test_log_loss_training_loss_decreases_monotonically():
    _, y = make_classification(n_samples=60, n_features=4, random_state=5)
    path = function_descent("log_loss", y, 0.0, n_steps=30, rho=2.0)
    assert np.all(np.diff(path.values) < 0)
    # Every point moves towards its own label: F grows where y = 1, falls where y = 0.
    assert np.all(np.sign(path.params[-1]) == 2 * y - 1)


def test_log_loss_line_search_runs_off():
    # No minimiser along −g: the search goes until the loss is 0 in floating point.
    y = np.array([0.0, 1.0, 1.0])
    path = function_descent("log_loss", y, 0.0, n_steps=1)
    assert path.rhos[0] > 1e3
    assert path.values[1] < 1e-300
    assert np.all(np.isfinite(path.params))


def test_function_descent_vector_loss():
    y = np.eye(3)[[0, 1, 2, 1]]
    path = function_descent("quadratic", y, np.zeros((4, 3)), n_steps=1)
    assert path.params.shape == (2, 4, 3) and path.steps.shape == (1, 4, 3)
    # g = −2(y − F): the exact step is ρ = ½, which lands on y.
    assert path.rhos[0] == pytest.approx(0.5, rel=1e-6)
    np.testing.assert_allclose(path.params[1], y, atol=1e-6)


@pytest.mark.parametrize(
    "args, parameter",
    [
        (("squared_error", [1.0, 2.0], [0.0, 0.0, 0.0], 2), "F0"),
        (("squared_error", [1.0, 2.0], [0.0, np.inf], 2), "F0"),
        (("squared_error", [1.0, np.nan], 0.0, 2), "y"),
        (("squared_error", [], 0.0, 2), "y"),
        (("squared_error", [1.0, 2.0], 0.0, 0), "n_steps"),
        (("squared_error", [1.0, 2.0], 0.0, 2, -0.5), "rho"),
        (("no_such_loss", [1.0, 2.0], 0.0, 2), "loss"),
    ],
    ids=lambda v: str(v),
)
def test_function_descent_bad_input(args, parameter):
    with pytest.raises(ValueError, match=parameter):
        function_descent(*args)


def test_linear_model_risk_bad_input():
    with pytest.raises(ValueError, match="X must"):
        linear_model_risk("squared_error", np.zeros((3, 2)), np.zeros(4))
    with pytest.raises(ValueError, match="vector loss"):
        linear_model_risk("softmax", np.zeros((3, 2)), np.zeros(3))
