"""Every loss: derivatives by finite differences, optimal constant by a numeric argmin,
hand-computed values, and properties (convexity, finiteness) with hypothesis."""

import numpy as np
import pytest
from conftest import sample
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize, minimize_scalar
from scipy.special import logit

from boostlib.losses import (
    LOSSES,
    AbsoluteError,
    BinomialDeviance,
    Coordinate,
    Exponential,
    Huber,
    LogLoss,
    Loss,
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


@pytest.mark.parametrize("vector_loss", [Softmax(), Quadratic()], ids=lambda v: v.name)
def test_coordinate_is_the_loss_along_one_score(vector_loss):
    """Per-class boosting's scalar loss F_k ↦ L(y, F): its value is the vector loss's,
    its g is column k of the gradient, its h the diagonal H_kk; both by finite
    differences along F_k, and at shifted F_k too (the steps move it)."""
    y, F = sample(vector_loss, n=30, seed=5)
    g_full, H_full = vector_loss.gradient(y, F), vector_loss.hessian(y, F)
    for k, coordinate in enumerate(Coordinate.per_class(vector_loss, y, F)):
        y_k = y[:, k]
        for shift in (0.0, 0.7):
            F_k = F[:, k] + shift
            moved = F.copy()
            moved[:, k] = F_k
            np.testing.assert_allclose(coordinate(y_k, F_k), vector_loss(y, moved))
            value, slope = coordinate.__call__, coordinate.gradient
            np.testing.assert_allclose(
                slope(y_k, F_k), fd4(lambda t, f=value, a=y_k, b=F_k: f(a, b + t), 0.0),
                rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(
                coordinate.hessian(y_k, F_k),
                fd4(lambda t, f=slope, a=y_k, b=F_k: f(a, b + t), 0.0), rtol=1e-6, atol=1e-8)
        np.testing.assert_array_equal(coordinate.gradient(y_k, F[:, k]), g_full[:, k])
        np.testing.assert_allclose(coordinate.hessian(y_k, F[:, k]), H_full[:, k, k], rtol=1e-12)
    K = F.shape[1]
    expected = (K - 1) / K if isinstance(vector_loss, Softmax) else 1.0
    assert coordinate.leaf_factor == expected
    with pytest.raises(ValueError, match="vector loss"):
        Coordinate(LogLoss(), y[:, 0], F[:, 0], 0)


def test_softmax_gradient_and_start_are_scikit_learns_to_the_bit():
    """Per-class boosting grows scikit-learn's trees only from its exact numbers: the
    gradient of its HalfMultinomialLoss and the start its prior and link give."""
    from sklearn._loss.loss import HalfMultinomialLoss
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble._gb import _init_raw_predictions

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, 200)
    Y, F = np.eye(4)[codes], rng.normal(size=(200, 4)) * 3
    loss = Softmax()
    theirs = HalfMultinomialLoss(n_classes=4)
    np.testing.assert_array_equal(loss.gradient(Y, F), theirs.gradient(codes.astype(float), F))
    X = np.zeros((200, 1))
    prior = DummyClassifier(strategy="prior").fit(X, codes)
    start = _init_raw_predictions(X[:1], prior, theirs, use_predict_proba=True)[0]
    np.testing.assert_array_equal(loss.optimal_constant(Y), start)
    # soft labels (not one-hot) take numpy's p − y
    soft = np.full((3, 4), 0.25)
    np.testing.assert_allclose(loss.gradient(soft, F[:3]), loss.predict_proba(F[:3]) - soft)


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


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradient_hessian_is_gradient_and_hessian_to_the_last_bit(name, monkeypatch):
    """One pass (the log loss's own kernel, two exp per row) or separate calls: the same bits,
    on every branch of the log loss's formulas (F ≤ −37, overflow of e^F), in blocks of rows
    on several threads and in one call."""
    from boostlib import row_blocks
    from boostlib.row_blocks import loop_threads

    loss = LOSSES[name]()
    rng = np.random.default_rng(1)
    scales = np.repeat([0.1, 1.0, 5.0, 40.0, 400.0], 200)
    F = scales * rng.normal(size=scales.size)
    F[:8] = [-800.0, -745.0, -40.0, -37.0, -36.9, 0.0, 33.3, 800.0]
    if loss.vector:
        F = np.column_stack([F, np.roll(F, 7), np.zeros_like(F)])
        y = np.eye(3)[rng.integers(0, 3, size=len(F))]
    elif loss.labels == (0, 1):
        y = (rng.random(len(F)) < 0.4).astype(float)
    elif loss.labels is not None:
        y = np.where(rng.random(len(F)) < 0.4, 1.0, -1.0)
    else:
        y = rng.normal(size=len(F))
    with np.errstate(all="ignore"):
        expected = loss(y, F), loss.gradient(y, F), loss.hessian(y, F)
        monkeypatch.setattr(row_blocks, "BLOCK_ROWS", 97)  # many blocks, a short last one
        for n_threads in (1, 3):
            with loop_threads(n_threads):
                g, h = loss.gradient_hessian(y, F)
                values, g3, h3 = loss.loss_gradient_hessian(y, F)
            for got, want in zip((values, g, h, g3, h3), (*expected, *expected[1:]), strict=True):
                np.testing.assert_array_equal(got, want)
    if name == "log_loss":  # scikit-learn's own loss, branch by branch
        from sklearn._loss.loss import HalfBinomialLoss

        np.testing.assert_array_equal(values, HalfBinomialLoss().loss(y, F))


def test_loss_at_a_point_computes_it_once_and_passes_other_points_on(monkeypatch):
    """LossAt: the log loss's L, g and h at the loop's (y, F) come from one pass, shared
    read-only; at any other point, and for every attribute, it is the loss itself."""
    from boostlib.losses import LossAt

    loss = LOSSES["log_loss"]()
    rng = np.random.default_rng(2)
    y, F = (rng.random(50) < 0.5).astype(float), rng.normal(size=50)
    calls = []
    one_pass = type(loss).loss_gradient_hessian
    monkeypatch.setattr(type(loss), "loss_gradient_hessian",
                        lambda self, y, F, out=None: calls.append(1) or one_pass(self, y, F, out))
    at = LossAt(loss, y, F)
    assert at.name == "log_loss" and at.positive_hessian and not at.vector
    assert at.mean(y, F) == loss.mean(y, F)
    g, h = at.gradient_hessian(y, F)
    np.testing.assert_array_equal(at(y, F), loss(y, F))
    assert at.gradient(y, F) is g and at.hessian(y, F) is h and len(calls) == 1
    with pytest.raises(ValueError, match="read-only"):
        g[0] = 0.0
    other = F + 0.5  # another point: the loss's own values
    np.testing.assert_array_equal(at.gradient(y, other), loss.gradient(y, other))
    np.testing.assert_array_equal(at(y.copy(), F), loss(y, F))
    # the next point in this one's memory: the same values as in fresh memory
    following = LossAt(loss, y, other, reuse=at)
    g_next = following.gradient(y, other)
    assert np.shares_memory(g_next, g) and at._kept == [None] * 3
    np.testing.assert_array_equal(g_next, loss.gradient(y, other))
    np.testing.assert_array_equal(following(y, other), loss(y, other))
    # copies (as copy and pickle make them, before their attributes are set) work
    import copy
    import pickle

    assert copy.deepcopy(following).name == "log_loss"
    assert pickle.loads(pickle.dumps(following)).loss.name == "log_loss"
    # a loss without one pass: each quantity computed when first asked, once
    squared = LossAt(LOSSES["squared_error"](), y, F)
    np.testing.assert_array_equal(squared.gradient(y, F), F - y)
    assert squared._kept[0] is None and squared._kept[2] is None


def test_the_loop_evaluates_the_log_loss_in_one_pass_per_stage(monkeypatch):
    """Newton boosting of the log loss: one pass over the rows per stage gives the training
    loss and the next direction (n_estimators + 1 passes), and never the three methods."""
    from boostlib import BoostingClassifier, HistTreeRegressor

    loss_class = type(LOSSES["log_loss"]())
    counts = {"one pass": 0, "separate": 0}
    one_pass = loss_class.loss_gradient_hessian

    def counted(self, y, F, out=None):
        counts["one pass"] += 1
        return one_pass(self, y, F, out)

    def separate(method):
        def run(self, y, F):
            counts["separate"] += 1
            return method(self, y, F)
        return run

    monkeypatch.setattr(loss_class, "loss_gradient_hessian", counted)
    for method in ("__call__", "gradient", "hessian"):
        monkeypatch.setattr(loss_class, method, separate(getattr(loss_class, method)))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
    BoostingClassifier(direction="newton", step="constant", n_estimators=5,
                       learner=HistTreeRegressor(max_depth=2)).fit(X, y)
    assert counts == {"one pass": 6, "separate": 0}


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


@pytest.mark.parametrize("loss", [LogLoss(), BinomialDeviance(), Exponential(), Softmax()],
                         ids=lambda v: v.name)
def test_optimal_constant_of_one_class_is_finite(loss):
    """All labels of one class: the best constant is at infinity; the rate is clipped to
    [1e−15, 1 − 1e−15] (P_CLIP; softmax's class shares to [eps, 1 − eps] as scikit-learn
    clips its prior), so the start is a large finite score of the right sign, with
    sample weights or without."""
    negative, positive = (np.eye(3)[[0] * 5], np.eye(3)[[2] * 5]) if loss.vector else (
        np.full(5, float(loss.labels[0])), np.full(5, float(loss.labels[1])))
    low, high = loss.optimal_constant(negative), loss.optimal_constant(positive)
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))
    w = np.array([0.5, 1.0, 2.0, 1.0, 3.0])  # weights change nothing when one class has all
    np.testing.assert_array_equal(loss.optimal_constant(negative, w), low)
    np.testing.assert_array_equal(loss.optimal_constant(positive, w), high)
    if loss.vector:  # log(eps) for the absent classes, centred
        eps = np.finfo(np.float64).eps
        np.testing.assert_allclose(high[2] - high[0], np.log(1 - eps) - np.log(eps), rtol=1e-12)
        np.testing.assert_allclose(low[0] - low[1], np.log(1 - eps) - np.log(eps), rtol=1e-12)
    else:
        scale = 1.0 if isinstance(loss, LogLoss) else 0.5
        np.testing.assert_allclose([low, high], scale * logit([1e-15, 1 - 1e-15]), rtol=1e-12)


def test_softmax_constant_is_centred_log_frequencies():
    """``c_k = log p̄_k − mean_k log p̄_k``: it sums to zero, and softmax(c) is p̄."""
    y = np.eye(3)[[0, 0, 0, 1, 2, 2]]
    w = np.array([1.0, 1.0, 2.0, 1.0, 0.5, 0.5])
    for weights, rates in [(None, [3 / 6, 1 / 6, 2 / 6]), (w, [4 / 6, 1 / 6, 1 / 6])]:
        c = Softmax().optimal_constant(y, weights)
        assert abs(c.sum()) < 1e-12
        np.testing.assert_allclose(Softmax().predict_proba(c[None, :])[0], rates, rtol=1e-12)


def test_predict_proba_is_each_losss_link():
    F = np.array([-3.0, -0.5, 0.0, 0.5, 3.0])
    np.testing.assert_allclose(LogLoss().predict_proba(F), 1 / (1 + np.exp(-F)), rtol=1e-12)
    for loss in (BinomialDeviance(), Exponential()):  # F is half the log-odds
        np.testing.assert_allclose(loss.predict_proba(F), 1 / (1 + np.exp(-2 * F)), rtol=1e-12)
    scores = np.array([[0.0, 1.0, 2.0], [5.0, 5.0, 5.0]])
    expected = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(Softmax().predict_proba(scores), expected, rtol=1e-12)


def test_huber_constant_is_a_root_of_the_mean_gradient():
    """scipy's bounded search runs to 1e−10 of the range of y: the mean gradient vanishes
    there to that precision (the Huber gradient is continuous), with weights too."""
    rng = np.random.default_rng(7)
    y = np.concatenate([rng.normal(size=40), [8.0, 9.0, -12.0]])
    w = rng.uniform(0.5, 2.0, size=len(y))
    for weights in (None, w):
        c = Huber().optimal_constant(y, weights)
        slope = np.average(Huber().gradient(y, np.full_like(y, c)), weights=weights)
        assert abs(slope) < 1e-8
    assert repr(Huber()) == "Huber(delta=1.0)"  # the default threshold


def test_compiled_losses_take_integer_labels_and_keep_the_shape_of_F():
    """Log loss and exponential loss go through scikit-learn's compiled code, which needs
    float64: integer labels are converted, and F of any shape keeps its shape."""
    F = np.linspace(-2, 2, 6).reshape(2, 3)
    for loss, labels in [(LogLoss(), np.array([[0, 1, 1], [1, 0, 0]])),
                         (Exponential(), np.array([[-1, 1, 1], [1, -1, -1]]))]:
        for method in (loss.__call__, loss.gradient, loss.hessian):
            values = method(labels, F)
            assert values.shape == F.shape
            np.testing.assert_array_equal(values, method(labels.astype(float), F))


def test_derivatives_have_the_shape_of_F(loss):
    """``L`` has shape (n,); ``g`` the shape of ``F``; ``h`` (n,) or (n, K, K)."""
    y, F = sample(loss, n=7)
    assert loss(y, F).shape == (7,)
    assert loss.gradient(y, F).shape == F.shape
    assert loss.hessian(y, F).shape == ((7, 3, 3) if loss.vector else (7,))


def test_huber_constant_of_integer_targets():
    """Integer targets are taken as numbers: the same constant as their float copy."""
    y = [0, 0, 1, 5]  # the best constant is 2/3 (a point in the quadratic zone of three)
    assert Huber().optimal_constant(y) == pytest.approx(
        Huber().optimal_constant(np.array(y, dtype=float)), abs=1e-12)
    assert Huber().optimal_constant(y) == pytest.approx(2 / 3, abs=1e-7)


# -- per-class coordinates: the cached gradient, any vector loss, any dtype -----------------
class _CountingSoftmax(Softmax):
    """Softmax that counts its gradient evaluations."""

    calls = 0

    def gradient(self, y, F):
        self.calls += 1
        return super().gradient(y, F)


def test_coordinate_gradient_is_evaluated_once_per_stage():
    """``per_class`` evaluates the full gradient once for all K coordinates; each coordinate
    reads its column from that cache at the stage start (``F_k = F[:, k]`` or ``None``), and
    evaluates afresh elsewhere. A coordinate built alone fills its cache on first use and
    then reuses it. The values are column k of the softmax gradient in every case, and the
    name (used in error messages) is the loss's with the class index."""
    rng = np.random.default_rng(11)
    Y, F = np.eye(3)[rng.integers(0, 3, 25)], rng.normal(size=(25, 3))
    g, moved = Softmax().gradient(Y, F), F.copy()
    moved[:, 1] += 0.5
    g_moved = Softmax().gradient(Y, moved)
    loss = _CountingSoftmax()
    coordinates = Coordinate.per_class(loss, Y, F)
    assert loss.calls == 1
    for k, c in enumerate(coordinates):
        assert c.name == f"softmax[{k}]"
        for F_k in (F[:, k], F[:, k].copy(), None):
            np.testing.assert_array_equal(c.gradient(Y[:, k], F_k), g[:, k])
        np.testing.assert_array_equal(c(Y[:, k], None), Softmax()(Y, F))
    assert loss.calls == 1  # all read the shared evaluation
    np.testing.assert_array_equal(coordinates[1].gradient(Y[:, 1], moved[:, 1]), g_moved[:, 1])
    assert loss.calls == 2  # a moved score is evaluated afresh
    alone = Coordinate(loss, Y, F, 2)
    for _ in range(3):
        np.testing.assert_array_equal(alone.gradient(Y[:, 2], F[:, 2]), g[:, 2])
    assert loss.calls == 3  # once, then cached
    np.testing.assert_array_equal(alone.gradient(Y[:, 2], moved[:, 2]), g[:, 2])
    assert loss.calls == 3  # moving another score leaves this one at the stage start


class _GammaDeviance(Loss):
    """Half the Gamma deviance with log link per output, ``Σ_k y e^{−F} + F − log y − 1``
    (``y > 0``): a vector loss whose Hessian ``diag(y e^{−F})`` depends on ``y``."""

    name = "gamma"
    vector = True

    def __call__(self, y, F):
        return np.sum(y * np.exp(-F) + F - np.log(y) - 1, axis=1)

    def gradient(self, y, F):
        return 1 - y * np.exp(-F)

    def hessian(self, y, F):
        return np.einsum("ij,jk->ijk", y * np.exp(-F), np.eye(np.shape(F)[1]))


def test_coordinate_of_any_vector_loss_uses_its_targets_in_float64():
    """A coordinate of a vector loss other than softmax: its h is the loss's own ``H_kk``
    (which here depends on y), at the stage start and at a moved score, and the finite
    difference of its g. Targets and scores are taken as float64 whatever their dtype:
    float32 targets and integer scores give the values of their float64 copies."""
    rng = np.random.default_rng(12)
    Y, F = rng.uniform(0.5, 3.0, size=(20, 3)), rng.integers(-2, 3, size=(20, 3))
    loss = _GammaDeviance()
    exact = Coordinate(loss, Y.astype(np.float32).astype(float), F.astype(float), 1)
    given_ = Coordinate(loss, Y.astype(np.float32), F, 1)
    assert exact.leaf_factor == 1.0 and given_.name == "gamma[1]"
    for F_k in (F[:, 1].astype(float), F[:, 1] + 0.3):
        moved = F.astype(float)
        moved[:, 1] = F_k
        Y32 = Y.astype(np.float32).astype(float)
        np.testing.assert_allclose(exact.hessian(None, F_k), loss.hessian(Y32, moved)[:, 1, 1],
                                   rtol=1e-12)
        np.testing.assert_allclose(exact.hessian(None, F_k),
                                   fd4(lambda t, b=F_k: exact.gradient(None, b + t), 0.0),
                                   rtol=1e-6, atol=1e-8)
        for method in ("__call__", "gradient", "hessian"):
            np.testing.assert_array_equal(getattr(given_, method)(None, F_k),
                                          getattr(exact, method)(None, F_k))


def test_integer_and_float32_inputs_are_taken_as_float64_numbers():
    """Softmax's gradient (scikit-learn's compiled loss, which needs float64) takes integer
    scores, and every start float32 or integer labels, as their float64 copies, to the bit
    (a mean taken in float32 would be off by ~1e-9); a softmax coordinate built from
    integer scores is moved to a fractional score exactly."""
    rng = np.random.default_rng(13)
    Y, F = np.eye(3)[rng.integers(0, 3, 30)], rng.integers(-3, 4, size=(30, 3))
    loss = Softmax()
    np.testing.assert_array_equal(loss.gradient(Y, F), loss.gradient(Y, F.astype(float)))
    np.testing.assert_array_equal(loss.optimal_constant(Y.astype(np.float32)),
                                  loss.optimal_constant(Y))
    soft = rng.dirichlet(np.ones(3), size=30)
    np.testing.assert_array_equal(loss.optimal_constant(soft.astype(np.float32)),
                                  loss.optimal_constant(soft.astype(np.float32).astype(float)))
    y01 = rng.integers(0, 2, 30)
    for binary, labels in ((LogLoss(), y01), (BinomialDeviance(), 2 * y01 - 1),
                           (Exponential(), 2 * y01 - 1)):
        for typed in (labels.astype(np.float32), labels):  # float32 and integer labels
            assert binary.optimal_constant(typed) == binary.optimal_constant(labels.astype(float))
    F_k = F[:, 0] + 0.25
    from_int, from_float = Coordinate(loss, Y, F, 0), Coordinate(loss, Y, F.astype(float), 0)
    for method in ("__call__", "gradient", "hessian"):
        np.testing.assert_array_equal(getattr(from_int, method)(None, F_k),
                                      getattr(from_float, method)(None, F_k))


# -- weighted optimal constants -------------------------------------------------------------
def test_weighted_starts_are_scikit_learns_to_the_bit():
    """With sample weights, the start of log loss, of the ±1 losses (half the log-odds) and
    of softmax is the link of scikit-learn's weighted prior (DummyClassifier, which sums
    the class weights with np.bincount) to the last bit, as its gradient boosting starts."""
    from sklearn._loss.loss import ExponentialLoss, HalfBinomialLoss, HalfMultinomialLoss
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble._gb import _init_raw_predictions

    rng = np.random.default_rng(0)
    n = 1000
    X, w = np.zeros((n, 1)), rng.uniform(0.5, 2.0, n)
    y01, codes = (rng.random(n) < 0.3).astype(float), rng.integers(0, 4, n)

    def start(labels, theirs):
        prior = DummyClassifier(strategy="prior").fit(X, labels, sample_weight=w)
        return _init_raw_predictions(X[:1], prior, theirs, use_predict_proba=True)[0]

    assert LogLoss().optimal_constant(y01, w) == start(y01, HalfBinomialLoss())[0]
    for loss in (BinomialDeviance(), Exponential()):
        assert loss.optimal_constant(2 * y01 - 1, w) == start(y01, ExponentialLoss())[0]
    np.testing.assert_array_equal(Softmax().optimal_constant(np.eye(4)[codes], w),
                                  start(codes, HalfMultinomialLoss(n_classes=4)))


def test_weighted_soft_label_starts_are_the_numeric_argmin():
    """Soft labels (not 0/1, not one-hot) take the weighted mean of y: the start is the
    argmin of the weighted loss found by scipy, for log loss (y in [0, 1]), softmax (rows on
    the simplex) and the ±1 losses (y in [−1, 1], whose deviance's log-loss form
    ``LogLoss((y + 1)/2, 2F)`` is minimised; it is the deviance itself on ±1 labels).
    The weights grow with y, so an unweighted mean is far off."""
    rng = np.random.default_rng(14)
    y = rng.uniform(0, 1, 60)
    w = 0.2 + 3 * y
    for weights in (None, w):
        c = LogLoss().optimal_constant(y, weights)
        best = minimize_scalar(lambda v, s=weights: LogLoss().mean(y, np.full(60, v), s),
                               bracket=(-3, 3), tol=1e-12).x
        np.testing.assert_allclose(c, best, atol=1e-6)
        for loss in (BinomialDeviance(), Exponential()):
            c = loss.optimal_constant(2 * y - 1, weights)
            best = minimize_scalar(lambda v, s=weights: LogLoss().mean(y, np.full(60, 2 * v), s),
                                   bracket=(-3, 3), tol=1e-12).x
            np.testing.assert_allclose(c, best, atol=1e-6)
    Y = rng.dirichlet(np.ones(3), size=60)
    w = 0.2 + 3 * Y[:, 0]
    for weights in (None, w):
        c = Softmax().optimal_constant(Y, weights)

        def objective(v, s=weights):
            return Softmax().mean(Y, np.broadcast_to(v, Y.shape), s)

        best = minimize(objective, np.zeros(3), method="BFGS", tol=1e-12).x
        assert objective(c) <= objective(best) + 1e-12
        np.testing.assert_allclose(Softmax().predict_proba(c[None, :])[0],
                                   Softmax().predict_proba(best[None, :])[0], atol=1e-6)


def test_absolute_error_gradient_at_the_kink_is_scikit_learns():
    """At ``F = y`` the subgradient is −1, scikit-learn's AbsoluteError's (a weighted start
    is one of the y, so the first gradient has such ties)."""
    from sklearn._loss.loss import AbsoluteError as TheirAbsoluteError

    y, F = np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, 1.5, 2.0, 2.5])
    g = AbsoluteError().gradient(y, F)
    np.testing.assert_array_equal(g, [-1.0, 1.0, -1.0, -1.0])
    np.testing.assert_array_equal(g, TheirAbsoluteError().gradient(y, F))
