"""Directions: the targets and weights of the tables in directions.py, and their bounds."""

import warnings

import numpy as np
import pytest
from conftest import sample
from hypothesis import given, settings
from hypothesis import strategies as st

from boostlib import directions
from boostlib.directions import TARGET_BOUND, get_direction
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


def test_vector_newton_weight_is_the_curvature_along_the_direction():
    """w = zᵀHz / zᵀz: a Rayleigh quotient, between the extreme non-null eigenvalues,
    so the weighted least-squares fit is exact along z: w‖tz − z‖² = (1 − t)² zᵀHz."""
    for loss in (Softmax(), Quadratic()):
        y, F = sample(loss, n=60, seed=2)
        z, w = directions.newton(loss, y, F)
        H = loss.hessian(y, F)
        curvature = np.einsum("ij,ijk,ik->i", z, H, z)
        np.testing.assert_allclose(w, curvature / np.sum(z * z, axis=1), rtol=1e-10)
        lam = np.linalg.eigvalsh(H)
        live = np.where(lam > 1e-9, lam, np.nan)
        assert np.all(w >= np.nanmin(live, axis=1) * (1 - 1e-12))
        assert np.all(w <= np.nanmax(live, axis=1) * (1 + 1e-12))
        for t in (0.0, 0.5, 2.0):
            np.testing.assert_allclose(w * np.sum((t * z - z) ** 2, axis=1),
                                       (1 - t) ** 2 * curvature, rtol=1e-10)


def test_vector_newton_weight_no_longer_blows_up_where_the_true_class_is_improbable():
    """The weighted target w‖z‖ ≤ ‖g‖ where the true class is improbable; with the
    mean eigenvalue tr(H)/K as weight (boostlib before) w‖z‖/‖g‖ grows like 1/p_y:
    ~5·10³ at p_y ≈ 2e-5, and ~2·10⁵ once TARGET_BOUND clips z (p_y ≈ 1.5e-7)."""
    loss = Softmax()
    Y = np.eye(3)[[0]]
    for score, old_ratio in [(-10.0, 1e3), (-15.0, 1e5)]:
        F = np.array([[score, 0.0, 0.0]])  # p_0 ≈ e^score / 2, p_1 = p_2 ≈ ½
        z, w = directions.newton(loss, Y, F)
        g, H = loss.gradient(Y, F), loss.hessian(Y, F)
        assert w[0] * np.linalg.norm(z) <= np.linalg.norm(g) * (1 + 1e-12)
        mean_eigenvalue = np.trace(H[0]) / 3
        assert mean_eigenvalue * np.linalg.norm(z) > old_ratio * np.linalg.norm(g)


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
        if name in ("newton", "newton_unweighted"):  # their quotient runs compiled: numpy's here
            g, h = loss.gradient_hessian(y, F)
            assert np.all(np.isfinite(-g / np.maximum(h, directions.HESSIAN_FLOOR)))
    assert np.all(np.isfinite(z)) and np.all(np.isfinite(w))
    assert np.all(np.abs(z) <= TARGET_BOUND)


def test_softmax_newton_is_finite_when_probabilities_saturate():
    loss = Softmax()
    y = np.eye(3)[[0, 1, 2]]
    F = np.array([[1e4, 0, 0], [1e4, 0, 0], [0, 0, -1e4]])
    z, w = directions.newton(loss, y, F)
    assert np.all(np.isfinite(z)) and np.all(np.abs(z) <= TARGET_BOUND)


@pytest.mark.parametrize("gap", [30.0, 700.0, 709.0, 710.0, 720.0, 745.0, 800.0, 1e4])
def test_softmax_newton_is_finite_when_score_gaps_make_the_hessian_subnormal(gap):
    """Scores ~710 apart give Hessian eigenvalues ~1e-310: H⁺ floors them at
    HESSIAN_FLOOR, as for a scalar h, instead of overflowing 1/λ into inf · 0 = NaN;
    a misclassified row still points towards its class."""
    loss = Softmax()
    y = np.eye(3)[[0, 1, 2, 0]]
    F = np.array([[0, gap, 0], [0, gap, 0], [0, 0, gap], [gap, 0, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for name in ("newton", "newton_unweighted"):
            z, w = get_direction(name)(loss, y, F)
            assert np.all(np.isfinite(z)) and np.all(np.isfinite(w))
            assert z[0, 0] > 0 > z[0, 1], (name, z[0])  # row 0: class 0 scored `gap` below


def test_pseudo_inverse_is_numpys_for_well_conditioned_hessians():
    """Away from the floor, H⁺ is numpy's pinv: the minimum-norm Newton direction."""
    for loss in (Softmax(), Quadratic()):
        y, F = sample(loss)
        H = loss.hessian(y, F)
        expected = np.linalg.pinv(H, rtol=directions.PINV_RTOL, hermitian=True)
        np.testing.assert_allclose(directions.pseudo_inverse(H), expected, atol=1e-10)


@pytest.mark.parametrize("loss", [AbsoluteError(), Huber()], ids=lambda v: v.name)
@pytest.mark.parametrize("name", ["newton", "newton_unweighted"])
def test_newton_needs_a_positive_hessian(loss, name):
    y, F = sample(loss)
    with pytest.raises(ValueError, match=f"direction='{name}'.*{loss.name}"):
        get_direction(name)(loss, y, F)


def test_newton_raphson_is_scalar_only_and_unknown_names_fail():
    y, F = sample(Softmax())
    with pytest.raises(ValueError, match=r"^direction='newton_raphson' is defined for scalar "
                                         r"losses only$"):
        directions.newton_raphson(Softmax(), y, F)
    with pytest.raises(ValueError, match="direction='steepest'"):
        get_direction("steepest")


def test_exponential_newton_target_is_exactly_the_label_wherever_h_exceeds_the_floor():
    """Gentle AdaBoost fits the labels: h = −y g to the last bit, so −g/h is exactly y for
    every margin yF from −1e4 (h clipped at e^{650}) up to 25 (h = e^{−25} ≈ 1.4e−11), with
    weight h. At yF = 30 (h ≈ 9e−14) the floor 1e−12 takes over, in target and weight."""
    loss = Exponential()
    margins = np.array([-1e4, -700.0, -650.0, -300.0, -20.0, -1.0, 0.0, 1.0, 16.0, 25.0])
    for label in (1.0, -1.0):
        y = np.full(len(margins), label)
        F = label * margins
        z, w = directions.newton(loss, y, F)
        np.testing.assert_array_equal(z, y)
        np.testing.assert_array_equal(w, loss.hessian(y, F))
        z_unweighted, _ = directions.newton_unweighted(loss, y, F)
        np.testing.assert_array_equal(z_unweighted, y)
    y, F = np.array([1.0, -1.0]), np.array([30.0, -30.0])
    z, w = directions.newton(loss, y, F)
    np.testing.assert_array_equal(w, 1e-12)
    np.testing.assert_allclose(z, y * np.exp(-30.0) / 1e-12, rtol=1e-12)


def test_log_loss_newton_weight_is_the_hessian_far_from_the_floor():
    """At F ≈ ±16 (h ≈ 1.1e−7, far above the floor 1e−12) w = h and z = −g/h exactly
    (on misclassified rows −g/h ≈ ∓8.9e6, clipped to the target bound 1e6);
    at F = ±40 (h ≈ 4e−18) both use the floor."""
    loss = LogLoss()
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.0])
    F = np.array([16.0, -16.0, 16.0, -16.0, 15.5, -16.5])
    g, h = loss.gradient(y, F), loss.hessian(y, F)
    z, w = directions.newton(loss, y, F)
    np.testing.assert_array_equal(w, h)
    np.testing.assert_array_equal(z, np.clip(-g / h, -1e6, 1e6))
    np.testing.assert_array_equal(z[2:4], [-1e6, 1e6])
    assert np.all(h > 1e-8)
    y, F = np.array([1.0, 0.0]), np.array([40.0, -40.0])
    z, w = directions.newton(loss, y, F)
    np.testing.assert_array_equal(w, 1e-12)
    np.testing.assert_allclose(z, -loss.gradient(y, F) / 1e-12, rtol=1e-12)


def test_a_callable_direction_is_taken_as_it_is():
    def halved_gradient(loss, y, F):
        z, w = directions.gradient(loss, y, F)
        return 0.5 * z, w

    assert get_direction(halved_gradient) is halved_gradient


def test_pseudo_inverse_treats_each_matrix_on_its_own_scale():
    """Null directions are judged against each matrix's own largest eigenvalue: a Hessian
    1e−11 times smaller than its neighbour in the batch (below PINV_RTOL = 1e−10 of it, above
    the floor 1e−12) is inverted, not zeroed."""
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    batch = np.stack([A, 1e-11 * A])
    expected = np.stack([np.linalg.inv(A), 1e11 * np.linalg.inv(A)])
    np.testing.assert_allclose(directions.pseudo_inverse(batch), expected, rtol=1e-9)


# -- properties -----------------------------------------------------------------
# Scores where exp under- or overflows (±37, ±650, ±709…±746) come up often, so
# that softmax rows such as (0, 710, 0) are drawn.
EDGES = [0.0, 37.5, 650.0, 700.0, 709.0, 710.0, 720.0, 745.0, 746.0, 800.0, 1e4]
scores = st.one_of(
    st.floats(min_value=-1e4, max_value=1e4, allow_nan=False),
    st.sampled_from(EDGES + [-v for v in EDGES]),
)


@st.composite
def targets_and_scores(draw, loss, max_rows=8):
    """``y`` in ``loss``'s convention and ``F`` with ``|F| ≤ 1e4`` (three columns if vector)."""
    n = draw(st.integers(min_value=1, max_value=max_rows))
    columns = 3 if loss.vector else 1
    F = np.array(draw(st.lists(scores, min_size=n * columns, max_size=n * columns)))
    if loss.labels is None:
        y = np.array(draw(st.lists(st.floats(-1e3, 1e3), min_size=n * columns,
                                   max_size=n * columns)))
    else:
        classes = draw(st.lists(st.integers(0, columns if loss.vector else 1), min_size=n,
                                max_size=n))
        y = np.eye(3)[np.minimum(classes, 2)] if loss.vector else np.array(loss.labels,
                                                                           float)[classes]
    return (y.reshape(n, 3), F.reshape(n, 3)) if loss.vector else (y, F)


def defined(name, loss):
    """Whether boostlib defines direction ``name`` for ``loss``."""
    if name in ("newton", "newton_unweighted"):
        return loss.positive_hessian
    return not (name == "newton_raphson" and loss.vector)


@pytest.mark.parametrize("loss_name", sorted(LOSSES))
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_every_direction_is_finite_for_every_score(loss_name, data):
    """Every direction of every loss: finite targets and weights, no warning, |F| ≤ 1e4."""
    loss = LOSSES[loss_name]()
    y, F = data.draw(targets_and_scores(loss))
    for name in sorted(directions.DIRECTIONS):
        if not defined(name, loss):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                z, w = directions.DIRECTIONS[name](loss, y, F)
        assert np.all(np.isfinite(z)) and np.all(np.isfinite(w)) and np.all(w >= 0), name
        if name != "gradient":
            assert np.all(np.abs(z) <= TARGET_BOUND), name
    if not loss.vector and loss.positive_hessian:
        # the Newton target's division runs compiled, where errstate sees nothing: numpy's
        # own quotient neither overflows nor warns (the target is not an inf clipped)
        g, h = loss.gradient_hessian(y, F)
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            assert np.all(np.isfinite(-g / np.maximum(h, directions.HESSIAN_FLOOR)))


@pytest.mark.parametrize("loss", [Softmax(), Quadratic()], ids=lambda v: v.name)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_weighted_vector_newton_target_is_bounded_by_the_gradient(loss, data):
    """For every F with |F| ≤ 1e4 (score gaps where exp under- or overflows
    included): w_i ‖z_i‖ ≤ C ‖g_i‖ with C = 1, as directions.py states; the
    scalar rule h·|−g/h| = |g| carried over to vector losses (chapter 4)."""
    y, F = data.draw(targets_and_scores(loss))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        z, w = directions.newton(loss, y, F)
    g = loss.gradient(y, F)
    weighted, bound = w * row_norms(z), row_norms(g)
    # up to rounding: relative, and absolute below the normal range (subnormal g)
    assert np.all(weighted <= bound * (1 + 1e-12) + np.finfo(float).tiny), (weighted, bound)


def row_norms(v):
    """‖v_i‖ without squaring tiny entries into the subnormal range (np.linalg.norm does)."""
    size = np.abs(v).max(axis=1, keepdims=True)
    return size[:, 0] * np.linalg.norm(v / np.where(size > 0, size, 1.0), axis=1)


# -- vector_newton against numpy, sample by sample --------------------------------------
def rotated(eigenvalues, seed):
    """``V diag(λ) Vᵀ`` for each row of ``eigenvalues``, one random rotation ``V``."""
    eigenvalues = np.asarray(eigenvalues, float)
    V = np.linalg.qr(np.random.default_rng(seed).normal(size=(eigenvalues.shape[1],) * 2))[0]
    return np.einsum("jk,ik,lk->ijl", V, eigenvalues, V)


def test_vector_newton_is_numpys_pinv_step_on_each_sample():
    """For Hessians of every rank (g has components along their null directions) and of
    scales 1e−6 … 1e6 in one batch: z_i = −pinv(H_i) g_i and w_i = z_iᵀH_iz_i / z_iᵀz_i,
    each computed by numpy on that sample alone."""
    rng = np.random.default_rng(7)
    K = 4
    H = []
    for rank in range(1, K + 1):
        for scale in (1e-6, 1.0, 1e6):
            A = rng.normal(size=(K, rank))
            H.append(scale * (A @ A.T + (A @ A.T).T) / 2)
    H = np.array(H)
    g = rng.normal(size=(len(H), K))
    z, w = directions.vector_newton(H, g)
    for Hi, gi, zi, wi in zip(H, g, z, w, strict=True):
        expected = -np.linalg.pinv(Hi, rtol=directions.PINV_RTOL, hermitian=True) @ gi
        np.testing.assert_allclose(zi, expected, rtol=1e-6, atol=1e-9 * np.linalg.norm(expected))
        np.testing.assert_allclose(wi, expected @ Hi @ expected / (expected @ expected), rtol=1e-6)


def test_vector_newton_weight_is_the_same_at_every_scale_of_the_gradient():
    """z is linear in g and w depends only on z's direction, sample by sample: scaling g
    by 1e−250 … 1e250 scales z alike and leaves w at its value for the unscaled g, also
    when all the scaled rows come in one batch (a_j² would under- or overflow there)."""
    H1 = rotated([[0.5, 2.0, 8.0]], seed=3)
    g1 = np.random.default_rng(3).normal(size=(1, 3))
    z1, w1 = directions.vector_newton(H1, g1)
    np.testing.assert_allclose(w1, z1[0] @ H1[0] @ z1[0] / (z1[0] @ z1[0]), rtol=1e-12)
    assert abs(w1[0] - np.mean([0.5, 2.0, 8.0])) > 0.1  # not the fallback weight
    scales = np.array([1e-250, 1e-150, 1e-20, 1.0, 1e20, 1e150, 1e250])
    H, g = np.repeat(H1, len(scales), axis=0), scales[:, None] * g1
    z, w = directions.vector_newton(H, g)
    np.testing.assert_allclose(z, scales[:, None] * z1, rtol=1e-10)
    np.testing.assert_allclose(w, w1[0], rtol=1e-12)
    for i in range(len(scales)):
        _, w_alone = directions.vector_newton(H[i:i + 1], g[i:i + 1])
        np.testing.assert_allclose(w_alone, w1, rtol=1e-12)


def test_vector_newton_weight_where_the_step_is_zero_is_the_mean_inverted_eigenvalue():
    """Where g has no component that H⁺ inverts (g = 0, or g along a null direction),
    z = 0 and w is the mean of that sample's eigenvalues above PINV_RTOL × the largest
    (numpy's eigvalsh); an all-zero Hessian has none null, so w is the floor. Rows of
    different scales and ranks in one batch, each as if alone."""
    eigenvalues = [[2.0, 2.0, 2.0], [1e-3, 4e-3, 0.0], [5e2, 1e3, 7e2], [0.0, 0.0, 0.0]]
    H = np.concatenate([rotated(eigenvalues, seed=5), np.diag([3.0, 0.0, 0.0])[None]])
    g = np.zeros((len(H), 3))
    g[-1] = [0.0, 1.0, -1.0]  # along the null directions of diag(3, 0, 0)
    z, w = directions.vector_newton(H, g)
    np.testing.assert_array_equal(z, 0.0)
    for Hi, wi in zip(H, w, strict=True):
        lam = np.linalg.eigvalsh(Hi)
        live = lam[lam > directions.PINV_RTOL * lam.max()] if lam.max() > 0 else [0.0]
        np.testing.assert_allclose(wi, max(np.mean(live), directions.HESSIAN_FLOOR), rtol=1e-12)
    assert w[-1] == 3.0 and w[-2] == directions.HESSIAN_FLOOR
    loss = Quadratic()  # at its minimum: H = 2I, g = 0
    y, _ = sample(loss, n=5)
    z, w = directions.newton(loss, y, y.copy())
    np.testing.assert_array_equal(z, 0.0)
    np.testing.assert_array_equal(w, 2.0)


def test_an_all_zero_hessian_is_floored_like_a_scalar_h():
    """H = 0 (underflowed) has no null direction: every eigenvalue is floored, so
    z = −g/HESSIAN_FLOOR and w = HESSIAN_FLOOR, the scalar rule; w‖z‖ = ‖g‖."""
    g = np.array([[1e-15, -2e-15, 1e-15], [3e-14, 0.0, -3e-14]])
    z, w = directions.vector_newton(np.zeros((2, 3, 3)), g)
    np.testing.assert_allclose(z, -g / directions.HESSIAN_FLOOR, rtol=1e-12)
    np.testing.assert_allclose(w, directions.HESSIAN_FLOOR, rtol=1e-12)


def test_pseudo_inverse_counts_an_eigenvalue_at_exactly_pinv_rtol_of_the_largest_as_null():
    """|λ| ≤ PINV_RTOL · max|λ| is null with the boundary included, as in numpy's pinv
    (which keeps s > rtol · max s): the eigenvalues of diag(2, 2e−10) are exact and
    2e−10 = PINV_RTOL · 2 exactly, so H⁺ = diag(½, 0), not diag(½, 5e9)."""
    H = np.diag([2.0, 2.0 * directions.PINV_RTOL])[None]
    np.testing.assert_array_equal(np.linalg.pinv(H, rtol=directions.PINV_RTOL, hermitian=True),
                                  [np.diag([0.5, 0.0])])
    np.testing.assert_array_equal(directions.pseudo_inverse(H), [np.diag([0.5, 0.0])])
    z, w = directions.vector_newton(H, np.array([[0.0, 1.0]]))
    np.testing.assert_array_equal(z, 0.0)
    np.testing.assert_array_equal(w, 2.0)


class _Given:
    """A scalar loss whose ``g`` and ``h`` at the point are given arrays."""

    vector = False

    def __init__(self, g, h):
        self.g, self.h = g, h

    def gradient_hessian(self, y, F):
        return self.g, self.h


@pytest.mark.parametrize("threads", [1, 2])
def test_one_pass_newton_target_is_numpys_to_the_bit(monkeypatch, threads):
    """The compiled pass gives ``np.clip(−g / np.maximum(h, floor), −bound, bound)`` and the
    floored ``h`` bit for bit (signed zeros, NaN, ±inf, subnormal and huge values), on
    one and on two threads (skipped where numba's pool is smaller); and float64 vectors
    do take it."""
    import numba

    from boostlib.row_blocks import loop_threads

    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip(f"numba's pool has {numba.config.NUMBA_NUM_THREADS} thread(s)")

    compiled, calls = directions._scalar_newton, []
    monkeypatch.setattr(directions, "_scalar_newton",
                        lambda *args: calls.append(len(args[0])) or compiled(*args))
    using, threads_asked = directions.using_threads, []  # the loop's threads, not every core
    monkeypatch.setattr(directions, "using_threads",
                        lambda n: threads_asked.append(n) or using(n))
    rng = np.random.default_rng(0)
    n = 100_003
    g = rng.normal(size=n) * 10.0 ** rng.integers(-320, 300, n)
    h = np.abs(rng.normal(size=n)) * 10.0 ** rng.integers(-320, 10, n)
    g[:5] = [np.nan, 0.0, -0.0, np.inf, -np.inf]
    h[:3] = 0.0
    h[5:11] = [np.nan, 0.0, -0.0, -1.0, np.inf, directions.HESSIAN_FLOOR]
    g[11], h[11] = np.nan, np.nan  # NaN in both, −g's with the sign bit: whose comes out
    with loop_threads(threads), np.errstate(all="ignore"):
        floored = np.maximum(h, directions.HESSIAN_FLOOR)
        expected = np.clip(-g / floored, -TARGET_BOUND, TARGET_BOUND)
        z, w = directions._newton_target(_Given(g, h), None, None)
    assert calls == [n] and threads_asked == [threads]
    for got, want in ((z, expected), (w, floored)):
        assert got.tobytes() == want.tobytes()  # NaN payloads and the sign of zero too
    assert np.sum(z == TARGET_BOUND) > 0 and np.sum(z == -TARGET_BOUND) > 0  # clipped both ways


@pytest.mark.parametrize("g, h", [
    (np.array([1.0, -2.0, 0.5], dtype=np.float32), np.float32(2.0)),  # float32, a scalar h
    (np.array([1.0, -2.0, 0.5]), np.array([[2.0, 0.0, 1e-20]])),  # shapes (3,) and (1, 3)
    (np.array([1.0, -2.0, 0.5]), np.array([2.0, 0.0, 1e-20], dtype=np.float32)),
    (np.array([1.0, -2.0, 0.5], dtype=np.float32), np.array([2.0, 0.0, 1e-20])),  # g float32
])
def test_newton_target_of_other_arrays_takes_numpy(monkeypatch, g, h):
    """Other dtypes or shapes take the numpy formula, as before the compiled pass."""
    monkeypatch.setattr(directions, "_scalar_newton", None)  # calling it would raise
    z, w = directions._newton_target(_Given(g, h), None, None)
    floored = np.maximum(h, directions.HESSIAN_FLOOR)
    np.testing.assert_array_equal(w, floored)
    np.testing.assert_array_equal(z, np.clip(-g / floored, -TARGET_BOUND, TARGET_BOUND))
    assert z.dtype == np.result_type(g, h)


def test_newton_writes_into_out_where_given_and_the_same_values():
    """The loop's memory: ``z`` and ``w`` are the rows of ``out``, equal to the bit to fresh
    ones; an ``out`` of the wrong shape or dtype, a read-only one, a list, or a vector loss
    gets fresh arrays, and no error."""
    loss = LogLoss()
    rng = np.random.default_rng(3)
    y, F = (rng.random(500) < 0.4).astype(float), rng.normal(0, 4, 500)
    fresh = directions.newton(loss, y, F)
    out = np.full((2, 500), np.nan)
    z, w = directions.newton(loss, y, F, out=out)
    assert np.shares_memory(z, out[0]) and np.shares_memory(w, out[1])
    np.testing.assert_array_equal(z, fresh[0])
    np.testing.assert_array_equal(w, fresh[1])
    read_only = np.empty((2, 500))
    read_only.flags.writeable = False
    for wrong in (np.empty((2, 499)), np.empty((2, 500), dtype=np.float32), np.empty((3, 500)),
                  read_only, [[0.0] * 500] * 2):
        z, w = directions.newton(loss, y, F, out=wrong)
        assert not np.shares_memory(z, wrong) and not np.shares_memory(w, wrong)
        np.testing.assert_array_equal(z, fresh[0])
        np.testing.assert_array_equal(w, fresh[1])
    Y = np.eye(3)[rng.integers(0, 3, 50)]
    vector_out = np.empty((2, 50))
    z, w = directions.newton(Softmax(), Y, rng.normal(size=(50, 3)), out=vector_out)
    assert z.shape == (50, 3) and not np.shares_memory(z, vector_out)
