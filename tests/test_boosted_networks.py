"""Seed 001, boosted neural networks (chapter 6): the closed forms, end to end.

The chapter boosts one-hidden-layer ``MLPRegressor`` networks on one-hot Iris
targets with the quadratic loss; these tests pin the formulas it relies on.
"""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import StandardScaler

from boostlib import BoostingRegressor, directions, steps
from boostlib.datasets import load_split, one_hot
from boostlib.losses import Quadratic


@pytest.fixture(scope="module")
def iris():
    split = load_split("iris", random_state=0)
    X = StandardScaler().fit_transform(split.X_train)
    return X, one_hot(split.y_train)


def network(**params):
    return MLPRegressor(hidden_layer_sizes=(2,), solver="lbfgs", max_iter=2000, **params)


def test_every_step_is_the_closed_form_gamma_and_the_argmin(iris):
    """Eq. (3) for the start, γ_m = Σ (y − F_{m−1})ᵀu / Σ uᵀu for every stage."""
    X, Y = iris
    model = BoostingRegressor(
        loss="quadratic", direction="newton", step="newton", learner=network(),
        init="learner", learning_rate=1.0, n_estimators=4, random_state=0,
    ).fit(X, Y)
    h0 = model.init_.predict(X)
    np.testing.assert_allclose(model.init_step_, np.sum(Y * h0) / np.sum(h0 * h0), rtol=1e-12)
    loss = model.loss_
    F_prev = model.init_step_ * h0
    for gamma, net, F in zip(model.steps_, model.estimators_, model.staged_predict(X), strict=True):
        u = net.predict(X)
        np.testing.assert_allclose(gamma, np.sum((Y - F_prev) * u) / np.sum(u * u), rtol=1e-10)
        argmin = minimize_scalar(lambda r, F0=F_prev, u=u: loss.mean(Y, F0 + r * u)).x
        # Brent's argmin is only as sharp as the loss is curved: compare values too
        np.testing.assert_allclose(gamma, argmin, rtol=1e-4, atol=1e-6)
        assert loss.mean(Y, F_prev + gamma * u) <= loss.mean(Y, F_prev + argmin * u) + 1e-15
        np.testing.assert_allclose(F, F_prev + gamma * u, atol=1e-12)
        F_prev = F
    assert np.all(np.diff(model.train_loss_) <= 1e-12)


def test_seed_algorithm_1_as_printed_gives_gamma0_minus_one():
    """Step 2 with Δ = y − h₀ yields γ₀ − 1 and costs exactly Σ h₀ᵀh₀ more."""
    rng = np.random.default_rng(0)
    Y = one_hot(rng.integers(0, 3, 50))
    h0 = Y + 0.3 * rng.normal(size=Y.shape)
    loss, F_none = Quadratic(), np.zeros_like(Y)
    gamma0, _ = steps.newton(loss, Y, F_none, h0, max_iter=1)
    printed, _ = steps.newton(loss, Y - h0, F_none, h0, max_iter=1)
    np.testing.assert_allclose(printed, gamma0 - 1, atol=1e-12)
    excess = np.sum(loss(Y, printed * h0)) - np.sum(loss(Y, gamma0 * h0))
    np.testing.assert_allclose(excess, np.sum(h0 * h0), rtol=1e-10)


def test_newton_weight_two_acts_as_half_the_network_penalty(iris):
    """For the quadratic loss ``newton`` and ``newton_unweighted`` fit the residual,
    with weights 2 and 1; MLPRegressor divides ``alpha`` by Σw, so weight 2 is α/2."""
    X, Y = iris
    loss = Quadratic()
    F = np.full_like(Y, 1 / 3)
    z, w = directions.newton(loss, Y, F)
    z_plain, w_plain = directions.newton_unweighted(loss, Y, F)
    np.testing.assert_allclose(z, Y - F, atol=1e-15)
    np.testing.assert_allclose(z_plain, z, atol=0)
    np.testing.assert_allclose(w, 2.0)
    np.testing.assert_allclose(w_plain, 1.0)
    weighted = network(random_state=0).fit(X, z, sample_weight=w)
    halved = network(random_state=0, alpha=network().alpha / 2).fit(X, z)
    np.testing.assert_allclose(weighted.predict(X), halved.predict(X), atol=1e-10)
