"""Steps: each rule against a brute-force argmin; the closed-form γ; TreeBoost's leaves."""

import warnings

import numpy as np
import pytest
from conftest import sample
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeRegressor
from test_directions import targets_and_scores

from boostlib import steps
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
)
from boostlib.steps import NEWTON_MAX_ITER, RHO_MAX, get_step

SMOOTH = [SquaredError(), LogLoss(), BinomialDeviance(), Exponential(), Quadratic(), Softmax()]


def brute_force_argmin(loss, y, F, u, lo=-50.0, hi=50.0):
    """Grid search, then a finer grid around the best point."""
    for _ in range(4):
        grid = np.linspace(lo, hi, 2001)
        values = [loss.mean(y, F + r * u) for r in grid]
        best = grid[int(np.argmin(values))]
        width = (hi - lo) / 200
        lo, hi = best - width, best + width
    return best


def direction_for(loss, seed=1):
    y, F = sample(loss, n=60, seed=seed, scale=1.0)
    u = -loss.gradient(y, F) + 0.3 * np.random.default_rng(seed).normal(size=np.shape(F))
    return y, F, u


@pytest.mark.parametrize("loss", SMOOTH + [AbsoluteError(), Huber()], ids=lambda v: v.name)
def test_line_search_is_the_argmin(loss):
    y, F, u = direction_for(loss)
    rho, u_out = steps.line_search(loss, y, F, u)
    assert u_out is u
    np.testing.assert_allclose(rho, brute_force_argmin(loss, y, F, u), atol=1e-5)


@pytest.mark.parametrize("loss", SMOOTH, ids=lambda v: v.name)
def test_iterated_newton_is_the_argmin(loss):
    y, F, u = direction_for(loss)
    rho, _ = steps.newton(loss, y, F, u)
    np.testing.assert_allclose(rho, brute_force_argmin(loss, y, F, u), atol=1e-5)


def test_one_newton_step_is_the_closed_form_gamma_for_quadratic_loss():
    """Seed 001: γ = Σ (y − f)ᵀu / Σ uᵀu, exact in one step (chapter 5)."""
    loss = Quadratic()
    y, F, u = direction_for(loss)
    gamma = np.sum((y - F) * u) / np.sum(u * u)
    one_step, _ = steps.newton(loss, y, F, u, max_iter=1)
    np.testing.assert_allclose(one_step, gamma, rtol=1e-12)
    np.testing.assert_allclose(steps.line_search(loss, y, F, u)[0], gamma, rtol=1e-7)
    np.testing.assert_allclose(brute_force_argmin(loss, y, F, u), gamma, atol=1e-5)


def test_one_newton_step_is_minus_slope_over_curvature():
    loss = LogLoss()
    y, F, u = direction_for(loss)
    g, h = loss.gradient(y, F), loss.hessian(y, F)
    rho, _ = steps.newton(loss, y, F, u, max_iter=1)
    np.testing.assert_allclose(rho, -np.sum(g * u) / np.sum(h * u * u), rtol=1e-12)


def test_newton_step_never_goes_uphill_on_a_steep_exponential():
    loss = Exponential()
    y = np.array([1.0, 1.0, -1.0])
    F = np.array([-3.0, 0.0, 0.0])
    u = np.array([5.0, 5.0, 5.0])
    rho, _ = steps.newton(loss, y, F, u)
    assert loss.mean(y, F + rho * u) <= loss.mean(y, F)
    np.testing.assert_allclose(rho, brute_force_argmin(loss, y, F, u, -2, 2), atol=1e-5)


def weighted_argmin(loss, y, F, u, w, lo=-50.0, hi=50.0):
    """The brute-force argmin of the weighted mean loss Σ w L(y, F + ρu) / Σ w."""
    for _ in range(4):
        grid = np.linspace(lo, hi, 2001)
        best = grid[int(np.argmin([loss.mean(y, F + r * u, w) for r in grid]))]
        width = (hi - lo) / 200
        lo, hi = best - width, best + width
    return best


@pytest.mark.parametrize("name", ["line_search", "newton"])
@pytest.mark.parametrize("loss", SMOOTH, ids=lambda v: v.name)
def test_weighted_steps_minimise_the_weighted_loss(loss, name):
    """With sample weights the step minimises Σ w L(y, F + ρu); a 0/1 bag (a subsample)
    gives the step of the bag alone, which differs from the step of every row."""
    y, F, u = direction_for(loss)
    rng = np.random.default_rng(5)
    step = get_step(name)
    w = rng.uniform(0.0, 3.0, size=len(F))
    rho, _ = step(loss, y, F, u, sample_weight=w)
    np.testing.assert_allclose(rho, weighted_argmin(loss, y, F, u, w), atol=1e-5)
    bag = (rng.random(len(F)) < 0.5).astype(float)
    rho_bag, _ = step(loss, y, F, u, sample_weight=bag)
    inside = bag == 1
    rho_inside, _ = step(loss, y[inside], F[inside], u[inside])
    np.testing.assert_allclose(rho_bag, rho_inside, rtol=1e-9)
    assert abs(rho_bag - step(loss, y, F, u)[0]) > 1e-3


def test_one_weighted_newton_step_is_minus_weighted_slope_over_curvature():
    loss = LogLoss()
    y, F, u = direction_for(loss)
    w = np.random.default_rng(6).uniform(0.0, 3.0, size=len(F))
    g, h = loss.gradient(y, F), loss.hessian(y, F)
    rho, _ = steps.newton(loss, y, F, u, sample_weight=w, max_iter=1)
    np.testing.assert_allclose(rho, -np.sum(w * g * u) / np.sum(w * h * u * u), rtol=1e-12)


# Newton on ρ overshoots where the curvature at ρ = 0 is tiny but the loss is steep
# further on: here the first point's h ≈ 2.6e−5 while its slope is ≈ 2.
UPHILL = (BinomialDeviance(), np.array([-1.0, -1.0, 1.0]), np.array([5.97, -5.04, 6.06]),
          np.array([4.04, 2.34, 0.79]))


@st.composite
def step_problems(draw):
    """A scalar loss with a positive Hessian and up to 6 rows of (y, F, u)."""
    loss = draw(st.sampled_from([SquaredError(), LogLoss(), BinomialDeviance(), Exponential()]))
    n = draw(st.integers(1, 6))
    floats = st.floats(-10.0, 10.0, allow_nan=False)
    F = np.array(draw(st.lists(floats, min_size=n, max_size=n)))
    u = np.array(draw(st.lists(floats, min_size=n, max_size=n)))
    if loss.labels is None:
        y = np.array(draw(st.lists(floats, min_size=n, max_size=n)))
    else:
        y = np.array(loss.labels, float)[draw(st.lists(st.integers(0, 1), min_size=n,
                                                       max_size=n))]
    w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n)))
    return loss, y, F, u, (w if w.sum() > 0 else None)


@settings(max_examples=300, deadline=None)
@given(problem=step_problems())
@example(problem=(*UPHILL, None))
@example(problem=(*UPHILL, np.array([1.0, 0.0, 1.0])))
# plain Newton overshoots by a step shorter than 1 here (ρ ≈ −0.45, the loss up 22 %): the
# halving must not wait for steps longer than 1
@example(problem=(BinomialDeviance(), -np.ones(3), np.array([1.5, 2.1, -1.3]),
                  np.array([-6.0, 8.9, -2.6]), None))
def test_newton_step_never_raises_the_loss(problem):
    """One Newton step on ρ, and the iterated step, never end above the (weighted) loss at
    ρ = 0 beyond rounding: a step that would go uphill is halved."""
    loss, y, F, u, w = problem
    before = loss.mean(y, F, w)
    for max_iter in (1, NEWTON_MAX_ITER):
        rho, _ = steps.newton(loss, y, F, u, sample_weight=w, max_iter=max_iter)
        assert loss.mean(y, F + rho * u, w) <= before + 1e-12 * abs(before), (max_iter, rho)


def test_newton_step_halves_the_overshoot_of_the_issue_example():
    """Plain Newton from ρ = 0 jumps to ρ ≈ −6e3 on this example, where the mean loss is
    ~3e3 (it starts at ~4); the halved step descends, and the iterations find the argmin."""
    loss, y, F, u = UPHILL
    g, h = loss.gradient(y, F), loss.hessian(y, F)
    plain = -np.sum(g * u) / np.sum(h * u * u)
    assert loss.mean(y, F + np.clip(plain, -RHO_MAX, RHO_MAX) * u) > 100 * loss.mean(y, F)
    rho, _ = steps.newton(loss, y, F, u, max_iter=1)
    assert loss.mean(y, F + rho * u) < loss.mean(y, F)
    rho, _ = steps.newton(loss, y, F, u)
    np.testing.assert_allclose(rho, brute_force_argmin(loss, y, F, u, -5, 5), atol=1e-5)


def test_steps_are_bounded_on_separable_data():
    """On separable data the loss falls forever along u: the line search runs until
    the loss underflows to zero (or RHO_MAX), always finite and without warnings."""
    loss = LogLoss()
    y = np.array([0.0, 0.0, 1.0, 1.0])
    F = np.zeros(4)
    u = np.array([-1.0, -1.0, 1.0, 1.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        rho_ls, _ = steps.line_search(loss, y, F, u)
        rho_nt, _ = steps.newton(loss, y, F, u)
    assert 30 < rho_ls <= RHO_MAX and loss.mean(y, F + rho_ls * u) < 1e-13
    assert 0 < rho_nt <= RHO_MAX and loss.mean(y, F + rho_nt * u) < loss.mean(y, F + u)


def test_zero_direction_gives_zero_step():
    loss = SquaredError()
    y, F = sample(loss)
    assert steps.line_search(loss, y, F, np.zeros_like(F))[0] == 0.0
    assert steps.newton(loss, y, F, np.zeros_like(F))[0] == 0.0
    assert steps.constant(loss, y, F, np.zeros_like(F))[0] == 1.0


def fitted_tree(loss, seed=2, depth=2):
    y, F = sample(loss, n=200, seed=seed, scale=1.0)
    X = np.random.default_rng(seed).normal(size=(200, 3))
    z = -loss.gradient(y, F)
    tree = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, z)
    return X, y, F, tree


@pytest.mark.parametrize(
    "loss", [SquaredError(), LogLoss(), AbsoluteError(), Huber(delta=0.5)], ids=lambda v: v.name
)
def test_leaf_newton_values(loss):
    """Squared error: the exact per-leaf argmin; log loss: one Newton step per leaf;
    absolute error and Huber: the exact per-leaf argmin."""
    X, y, F, tree = fitted_tree(loss)
    rho, u = steps.leaf_newton(loss, y, F, tree.predict(X), learner=tree, X=X)
    assert rho == 1.0
    np.testing.assert_allclose(tree.predict(X), u)  # leaves were rewritten in place
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        inside = leaves == leaf
        yl, Fl = y[inside], F[inside]
        gamma = u[inside][0]
        if isinstance(loss, LogLoss):
            g, h = loss.gradient(yl, Fl), loss.hessian(yl, Fl)
            np.testing.assert_allclose(gamma, -g.sum() / h.sum(), rtol=1e-12)
        else:
            best = brute_force_argmin(loss, yl, Fl, np.ones_like(yl), -10, 10)
            assert loss.mean(yl, Fl + gamma) <= loss.mean(yl, Fl + best) + 1e-9


def test_leaf_newton_keeps_a_squared_error_trees_own_values():
    """Fitted to −g = y − F the tree's leaf means are γ_R already: kept to the last bit,
    as scikit-learn keeps them. Fitted to another target, the leaves get γ_R."""
    loss = SquaredError()
    X, y, F, tree = fitted_tree(loss, depth=3)
    before = tree.tree_.value.copy()
    steps.leaf_newton(loss, y, F, tree.predict(X), learner=tree, X=X)
    np.testing.assert_array_equal(tree.tree_.value, before)
    halved = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, (y - F) / 2)
    _, u = steps.leaf_newton(loss, y, F, halved.predict(X), learner=halved, X=X)
    leaves = halved.apply(X)
    for leaf in np.unique(leaves):
        np.testing.assert_allclose(u[leaves == leaf], np.mean((y - F)[leaves == leaf]),
                                   rtol=1e-12)


def test_leaf_newton_is_close_to_the_leaf_argmin_for_log_loss():
    """One Newton step per leaf lands near the leaf's exact minimiser."""
    loss = LogLoss()
    X, y, F, tree = fitted_tree(loss)
    _, u = steps.leaf_newton(loss, y, F, tree.predict(X), learner=tree, X=X)
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        inside = leaves == leaf
        if len(np.unique(y[inside])) < 2:
            continue  # one class only: the leaf's argmin is at infinity
        best = brute_force_argmin(loss, y[inside], F[inside], np.ones(inside.sum()), -10, 10)
        assert abs(u[inside][0] - best) < 0.1


def test_leaf_newton_vector_loss():
    loss = Softmax()
    y, F = sample(loss, n=150, scale=1.0)
    X = np.random.default_rng(0).normal(size=(150, 2))
    tree = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, -loss.gradient(y, F))
    _, u = steps.leaf_newton(loss, y, F, tree.predict(X), learner=tree, X=X)
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        inside = leaves == leaf
        G = loss.gradient(y[inside], F[inside]).sum(axis=0)
        H = loss.hessian(y[inside], F[inside]).sum(axis=0)
        np.testing.assert_allclose(H @ u[inside][0], -G, atol=1e-8)


@pytest.mark.parametrize("loss_name", sorted(LOSSES))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_leaf_newton_is_finite_for_every_score(loss_name, data):
    """Every loss, |F| ≤ 1e4 (softmax rows far apart included), with and without a
    subsample: finite leaf values, no warning."""
    loss = LOSSES[loss_name]()
    y, F = data.draw(targets_and_scores(loss, max_rows=12))
    n = len(F)
    X = np.arange(n, dtype=float).reshape(-1, 1)
    shape = (n, 3) if loss.vector else n
    z = np.random.default_rng(n).normal(size=shape)
    for bag in (None, (np.arange(n) % 2 == 0).astype(float)):
        tree = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, z, sample_weight=bag)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                _, u = steps.leaf_newton(loss, y, F, tree.predict(X), sample_weight=bag,
                                         learner=tree, X=X)
        assert np.all(np.isfinite(u)) and np.all(np.isfinite(tree.tree_.value))


def test_leaf_newton_needs_a_tree_and_names_are_checked():
    from sklearn.linear_model import Ridge

    loss = SquaredError()
    y, F = sample(loss)
    X = np.random.default_rng(0).normal(size=(len(y), 2))
    ridge = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="leaf_newton"):
        steps.leaf_newton(loss, y, F, ridge.predict(X), learner=ridge, X=X)
    with pytest.raises(ValueError, match="step='golden'"):
        get_step("golden")
    with pytest.raises(ValueError, match=r"^step='newton' needs a loss with a positive Hessian; "
                                         r"absolute_error's is zero on part of its domain\. "
                                         r"Use step='line_search' or 'leaf_newton'\.$"):
        steps.newton(AbsoluteError(), y, F, y - F)


def test_flat_direction_gives_zero_step():
    """Softmax along u ∝ (1, …, 1) changes nothing; the terms of the slope cancel
    to rounding noise, and both steps must say ρ = 0 rather than a random value."""
    loss = Softmax()
    for seed in range(5):
        y, F = sample(loss, n=50, seed=seed)
        u = np.random.default_rng(seed).normal(size=(50, 1)) * np.ones((1, 3))
        assert steps.newton(loss, y, F, u)[0] == 0.0
        assert steps.line_search(loss, y, F, u)[0] == 0.0


def test_root_of_slope_brackets_solves_and_says_when_it_stops_at_the_limit():
    """A root where the slope turns non-negative is found (flag True), to ~1e−14 relative;
    a slope still negative at the limit gives (limit, False); a slope that reaches exactly 0
    and stays there (the loss has underflowed) stops the doubling at once."""
    cube_root, found = steps.root_of_slope(lambda r: r**3 - 2.0)
    assert found and abs(cube_root - 2.0 ** (1 / 3)) <= 4e-14
    far, found = steps.root_of_slope(lambda r: np.log(r / 777.7))
    assert found and abs(far / 777.7 - 1) <= 4e-14
    assert steps.root_of_slope(lambda r: -1.0) == (RHO_MAX, False)
    assert steps.root_of_slope(lambda r: -1.0, limit=50.0) == (50.0, False)
    flat, found = steps.root_of_slope(lambda r: min(r - 3.0, 0.0))
    assert found and 3.0 <= flat <= 4.0


def test_steps_that_rounding_cannot_tell_from_zero_are_zero():
    """Along a u orthogonal to the residual (up to rounding) the slope is noise: both steps
    return exactly 0. Where the curvature underflows below TINY (log loss at |F| = 400) the
    Newton step is 0 as well, as scikit-learn's _safe_divide makes it."""
    loss = SquaredError()
    rng = np.random.default_rng(3)
    y, F, v = rng.normal(size=50), rng.normal(size=50), rng.normal(size=50)
    r = y - F
    u = v - (v @ r) / (r @ r) * r
    assert steps.newton(loss, y, F, u)[0] == 0.0 and steps.line_search(loss, y, F, u)[0] == 0.0
    log = LogLoss()
    y, F, u = np.array([1.0, 0.0]), np.array([400.0, -400.0]), np.array([1.0, -1.0])
    assert 0 < np.sum(log.hessian(y, F) * u * u) < steps.TINY
    assert steps.newton(log, y, F, u)[0] == 0.0


def test_line_search_from_a_unit_slope():
    """½(y − F − ρu)² with y − F = −1 and u = 1: the slope at 0 is exactly 1, ρ = −1."""
    rho, _ = steps.line_search(SquaredError(), np.array([0.0]), np.array([1.0]), np.array([1.0]))
    assert rho == pytest.approx(-1.0, abs=1e-12)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_newton_step_is_bounded_by_rho_max_on_separable_data(sign):
    """Along a tiny u the loss falls until ρ ~ 1e7; every iterate is clipped to ±RHO_MAX."""
    loss = LogLoss()
    y = np.array([0.0, 0.0, 1.0, 1.0])
    u = sign * 1e-6 * np.array([-1.0, -1.0, 1.0, 1.0])
    rho, _ = steps.newton(loss, y, np.zeros(4), u)
    assert rho == sign * RHO_MAX


def test_iterated_newton_is_the_line_search_to_rounding():
    """Iterated Newton stops only where the loss stops falling beyond rounding: it agrees
    with the line search (the root of the slope) far below the argmin tests' 1e−5."""
    for loss in (LogLoss(), BinomialDeviance(), Exponential(), Softmax()):
        y, F, u = direction_for(loss)
        newton_rho, searched = steps.newton(loss, y, F, u)[0], steps.line_search(loss, y, F, u)[0]
        assert abs(newton_rho - searched) <= 1e-9 * abs(searched), loss.name


def test_weighted_leaf_newton_values_and_empty_or_flat_leaves():
    """With weights each leaf gets −Σ_R w g / Σ_R w h; a leaf with no row in the bag gets 0,
    and so does a leaf whose Hessians underflow (log loss at |F| = 800)."""
    loss = LogLoss()
    X, y, F, tree = fitted_tree(loss)
    w = np.random.default_rng(9).uniform(0.2, 3.0, size=len(y))
    _, u = steps.leaf_newton(loss, y, F, tree.predict(X), sample_weight=w, learner=tree, X=X)
    leaves = tree.apply(X)
    g, h = loss.gradient(y, F), loss.hessian(y, F)
    for leaf in np.unique(leaves):
        inside = leaves == leaf
        expected = -np.sum(w[inside] * g[inside]) / np.sum(w[inside] * h[inside])
        np.testing.assert_allclose(u[inside][0], expected, rtol=1e-9)
    first = leaves == leaves[0]
    _, u = steps.leaf_newton(loss, y, F, tree.predict(X), sample_weight=(~first).astype(float),
                             learner=tree, X=X)
    assert np.all(u[first] == 0.0)
    X1 = np.arange(6.0).reshape(-1, 1)
    y1, F1 = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0]), np.array([800.0] * 3 + [-800.0] * 3)
    stump = DecisionTreeRegressor(max_depth=1).fit(X1, np.arange(6.0))
    _, u = steps.leaf_newton(loss, y1, F1, stump.predict(X1), learner=stump, X=X1)
    np.testing.assert_array_equal(u, 0.0)


def test_a_callable_step_and_leaf_newton_s_message():
    assert get_step(steps.constant) is steps.constant
    from sklearn.linear_model import Ridge

    ridge = Ridge().fit(np.ones((3, 1)), np.arange(3.0))
    message = (r"^step='leaf_newton' needs a tree learner \(with tree_ and apply\), such as "
               r"DecisionTreeRegressor; got Ridge$")
    with pytest.raises(ValueError, match=message):
        steps.leaf_newton(SquaredError(), np.zeros(3), np.zeros(3), np.zeros(3), learner=ridge,
                          X=np.ones((3, 1)))


def test_zero_weights_are_rows_left_out_of_the_newton_step():
    """Rows of weight 0 change no step: every loss value the Newton step compares is the
    weighted one. Here the unweighted loss would rise along u while the weighted one falls."""
    loss = LogLoss()
    y, F, u = np.array([1.0, 1.0, 0.0, 0.0]), np.zeros(4), np.ones(4)
    w = np.array([1.0, 1.0, 0.0, 0.0])
    for max_iter in (1, 3):
        weighted, _ = steps.newton(loss, y, F, u, sample_weight=w, max_iter=max_iter)
        kept, _ = steps.newton(loss, y[:2], F[:2], u[:2], max_iter=max_iter)
        assert weighted == kept and weighted > 2 - 1e-12, max_iter


def test_leaf_newton_value_without_a_factor_is_the_plain_newton_step():
    """γ_R = −Σ w g / Σ w h when no (K − 1)/K factor is given; 0 for a leaf whose rows all
    weigh 0 (the bag can hold such rows)."""
    rng = np.random.default_rng(4)
    neg_g, h, w = rng.normal(size=7), rng.uniform(0.1, 0.3, size=7), rng.uniform(0.5, 2, 7)
    value = steps._leaf_newton_value(neg_g, h, w)
    np.testing.assert_allclose(value, np.sum(w * neg_g) / np.sum(w * h), rtol=1e-13)
    assert steps._leaf_newton_value(neg_g, h, np.zeros(7)) == 0.0


def test_leaf_newton_uses_the_rows_in_the_bag():
    """With ``bag`` a leaf's value comes from its rows in the bag only, weighted; a leaf whose
    rows in the bag all weigh 0, or with no row in the bag, gets 0 (log loss, absolute error)."""
    loss = LogLoss()
    X, y, F, tree = fitted_tree(loss)
    rng = np.random.default_rng(5)
    w = rng.uniform(0.2, 3.0, size=len(y))
    bag = rng.uniform(size=len(y)) < 0.6
    leaves = tree.apply(X)
    first = leaves == leaves[0]
    w[first & bag] = 0.0  # the first row's leaf: rows in the bag weigh 0, the others do not
    _, u = steps.leaf_newton(loss, y, F, tree.predict(X), sample_weight=w, learner=tree, X=X,
                             bag=bag)
    g, h = loss.gradient(y, F), loss.hessian(y, F)
    assert np.all(u[first] == 0.0)
    for leaf in np.unique(leaves[~first]):
        inside = (leaves == leaf) & bag
        expected = (-np.sum(w[inside] * g[inside]) / np.sum(w[inside] * h[inside])
                    if inside.any() else 0.0)
        np.testing.assert_allclose(u[leaves == leaf], expected, rtol=1e-9)
    absolute = AbsoluteError()
    X, y, F, tree = fitted_tree(absolute)
    leaves = tree.apply(X)
    out = leaves == leaves[0]
    _, u = steps.leaf_newton(absolute, y, F, tree.predict(X), learner=tree, X=X, bag=~out)
    assert np.all(u[out] == 0.0)
    for leaf in np.unique(leaves[~out]):
        inside = leaves == leaf
        best = brute_force_argmin(absolute, y[inside], F[inside], np.ones(inside.sum()), -10, 10)
        assert absolute.mean(y[inside], F[inside] + u[inside][0]) <= (
            absolute.mean(y[inside], F[inside] + best) + 1e-9)


def test_squared_error_leaves_keep_only_values_within_rounding():
    """A squared-error leaf keeps the tree's value only within rounding (1e-9 of its mean
    |g| per unit weight) of γ_R: a tree fitted to y − F + 1e-8 gets γ_R. A leaf with no
    weight gets 0, however close to 0 the tree's value is."""
    loss = SquaredError()
    X, y, F, _ = fitted_tree(loss)
    shifted = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y - F + 1e-8)
    _, u = steps.leaf_newton(loss, y, F, shifted.predict(X), learner=shifted, X=X)
    leaves = shifted.apply(X)
    for leaf in np.unique(leaves):
        inside = leaves == leaf
        assert abs(u[inside][0] - np.mean((y - F)[inside])) <= 1e-13
    X1 = np.arange(8.0).reshape(-1, 1)
    y1 = np.array([1e-10] * 4 + [5.0] * 4)
    stump = DecisionTreeRegressor(max_depth=1).fit(X1, y1)
    w = np.array([0.0] * 4 + [1.0] * 4)
    _, u = steps.leaf_newton(loss, y1, np.zeros(8), stump.predict(X1), sample_weight=w,
                             learner=stump, X=X1)
    np.testing.assert_array_equal(u, [0.0] * 4 + [5.0] * 4)


@pytest.mark.parametrize("rule", ["newton", "line_search"])
def test_a_step_whose_derivatives_overflow_float64_stays_finite_and_downhill(rule):
    # e^{−yF} near 1e304 on a margin of −700, times u = 1e10: Σ g u overflows float64.
    # pyproject turns boostlib's RuntimeWarnings into errors, so an overflow warning fails.
    from boostlib.losses import get_loss

    loss = get_loss("exponential")
    y = np.array([1.0, -1.0, 1.0, -1.0])
    F = np.array([-700.0, 1.0, 2.0, -3.0])
    u = np.array([1e10, -1.0, 1.0, 1e10])
    with np.errstate(over="raise", invalid="raise"):  # the rule must guard itself
        rho, _ = get_step(rule)(loss, y, F, u)
    assert np.isfinite(rho)
    assert loss.mean(y, F + rho * u) <= loss.mean(y, F)
