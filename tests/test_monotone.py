"""Monotone constraints in HistTreeRegressor (chapter 8): bounds carried down the tree."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from xgboost import XGBClassifier

from boostlib import BoostingClassifier, BoostingRegressor, HistTreeRegressor
from boostlib.trees.monotone import (
    bounded_gain,
    bounded_leaf_value,
    check_monotonic_cst,
    children_bounds,
    score_of_value,
)
from boostlib.trees.splitting import gain, score


def integer_data(n=3000, d=6, levels=8, seed=0):
    """Few distinct integer values per feature (one bin each) and a binary label whose
    log-odds rise with x0, fall with x3 and mix in an interaction."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, levels, size=(n, d)).astype(float)
    F = (X[:, 0] - levels / 2 + 0.5 * (X[:, 1] - levels / 2) * (X[:, 2] > levels / 2)
         - 0.3 * X[:, 3] * (X[:, 4] > 3))
    y = (rng.rand(n) < 1 / (1 + np.exp(-F))).astype(int)
    X_fresh = rng.randint(0, levels, size=(1000, d)).astype(float)
    return X, y, X_fresh


def assert_monotone(model, X_other, constraints, grid, predict):
    """Along every constrained feature, over ``grid``, with the other features of each row
    of ``X_other``: the predictions never fall (+1) or never rise (−1)."""
    for j, c in enumerate(constraints):
        if c == 0:
            continue
        rows = np.repeat(X_other, len(grid), axis=0)
        rows[:, j] = np.tile(grid, len(X_other))
        steps = np.diff(predict(model, rows).reshape(len(X_other), len(grid)), axis=1)
        assert np.all(c * steps >= 0), (j, c, steps.min(), steps.max())


# -- the formulas ---------------------------------------------------------------
@given(st.floats(-5, 5), st.floats(0.01, 10), st.floats(0, 5), st.floats(-2, 2),
       st.floats(0, 2))
@settings(max_examples=80, deadline=None)
def test_the_clipped_closed_form_is_the_argmin_on_the_interval(sum_wz, sum_w, lam, lower,
                                                               width):
    """``clip(−G/(H+λ), lower, upper)`` minimises ``G γ + ½(H+λ)γ²`` over ``[lower, upper]``,
    and ``score(γ)`` is twice the drop of that objective from ``γ = 0``."""
    upper = lower + width
    G = -sum_wz
    objective = lambda v: G * v + 0.5 * (sum_w + lam) * v * v  # noqa: E731
    numeric = minimize_scalar(objective, bounds=(lower, upper), method="bounded",
                              options={"xatol": 1e-12}).x
    value = bounded_leaf_value(sum_wz, sum_w, lam, lower, upper)
    assert lower <= value <= upper
    assert value == pytest.approx(numeric, abs=1e-5)
    assert score_of_value(sum_wz, sum_w, lam, value) == pytest.approx(-2 * objective(value),
                                                                      rel=1e-12, abs=1e-12)


@given(st.floats(-5, 5), st.floats(0.01, 5), st.floats(-5, 5), st.floats(0.01, 5),
       st.floats(0, 3))
@settings(max_examples=60, deadline=None)
def test_without_bounds_the_bounded_gain_is_xgboosts_gain(left_wz, left_w, right_wz, right_w,
                                                          lam):
    parent = bounded_leaf_value(left_wz + right_wz, left_w + right_w, lam, -np.inf, np.inf)
    assert score_of_value(left_wz, left_w, lam, left_wz / (left_w + lam)) == pytest.approx(
        score(left_wz, left_w, lam), rel=1e-9, abs=1e-12)
    assert bounded_gain(left_wz, left_w, right_wz, right_w, lam, 0, -np.inf, np.inf,
                        parent) == pytest.approx(gain(left_wz, left_w, right_wz, right_w, lam),
                                                 rel=1e-9, abs=1e-9)
    in_order = left_wz / (left_w + lam) <= right_wz / (right_w + lam)
    increasing = bounded_gain(left_wz, left_w, right_wz, right_w, lam, 1, -np.inf, np.inf,
                              parent)
    assert (increasing == -np.inf) == (not in_order)


def test_children_share_the_interval_at_the_mid_value():
    assert children_bounds(1, -1.0, 2.0, 0.0, 1.0) == ((-1.0, 0.5), (0.5, 2.0))
    assert children_bounds(-1, -1.0, 2.0, 1.0, 0.0) == ((0.5, 2.0), (-1.0, 0.5))
    assert children_bounds(0, -1.0, 2.0, 5.0, -3.0) == ((-1.0, 2.0), (-1.0, 2.0))


# -- the model is monotone ------------------------------------------------------
@given(st.integers(0, 10_000), st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3),
       st.sampled_from([(3, None), (8, None), (None, 20)]), st.floats(0, 2),
       st.sampled_from([1.0, 0.5]))
@settings(max_examples=25, deadline=None)
def test_a_tree_is_monotone_along_every_constrained_feature(seed, constraints, size, lam,
                                                            max_features):
    """On random data whose target goes against the constraints as often as with them,
    the tree's output moves only the allowed way along each constrained feature, on a
    grid across (and beyond) the data, whatever the other features; NaN rows included,
    column subsampling or not."""
    rng = np.random.RandomState(seed)
    X = rng.randn(400, 3)
    X[:, 2] = np.round(X[:, 2])
    X[rng.rand(400, 3) < 0.05] = np.nan
    y = np.sin(3 * np.nan_to_num(X[:, 0])) + np.nan_to_num(X[:, 1] * X[:, 2]) + rng.randn(400)
    max_depth, max_leaf_nodes = size
    tree = HistTreeRegressor(max_depth=max_depth, max_leaf_nodes=max_leaf_nodes,
                             l2_regularization=lam, monotonic_cst=constraints,
                             max_features=max_features,
                             random_state=0).fit(X, y, sample_weight=rng.rand(400))
    X_other = rng.randn(30, 3)
    X_other[rng.rand(30, 3) < 0.1] = np.nan
    grid = np.concatenate([[-10.0], np.sort(rng.randn(40) * 2), [10.0]])
    assert_monotone(tree, X_other, constraints, grid, lambda m, rows: m.predict(rows))
    leaves = tree.tree_.children_left == -1
    assert np.all(np.isfinite(tree.tree_.value[leaves]))


@pytest.mark.parametrize("direction,step", [("newton", "constant"), ("gradient", "newton")])
def test_a_boosted_model_is_monotone(direction, step):
    """A sum of monotone trees with positive steps: the boosted output is monotone too."""
    rng = np.random.RandomState(1)
    X = rng.rand(2000, 4)
    y = (rng.rand(2000) < 1 / (1 + np.exp(-np.sin(6 * X[:, 0]) + 3 * X[:, 1]))).astype(int)
    constraints = [1, -1, 0, 1]
    model = BoostingClassifier(direction=direction, step=step, n_estimators=40,
                               learning_rate=0.3,
                               learner=HistTreeRegressor(max_depth=4, l2_regularization=1.0,
                                                         monotonic_cst=constraints)).fit(X, y)
    assert min(model.steps_) > 0
    assert_monotone(model, rng.rand(50, 4), constraints, np.linspace(-0.1, 1.1, 60),
                    lambda m, rows: m.decision_function(rows))
    # the constraint is binding: unconstrained, the model is not monotone along x0
    free = BoostingClassifier(direction=direction, step=step, n_estimators=40,
                              learning_rate=0.3,
                              learner=HistTreeRegressor(max_depth=4, l2_regularization=1.0))
    free.fit(X, y)
    with pytest.raises(AssertionError):
        assert_monotone(free, rng.rand(50, 4), [1, 0, 0, 0], np.linspace(-0.1, 1.1, 60),
                        lambda m, rows: m.decision_function(rows))


# -- XGBoost ------------------------------------------------------------------------
@pytest.mark.parametrize("depth,lam,constraints", [
    (2, 1.0, (1, -1, 0, -1, 0, 0)),
    (3, 1.0, (1, -1, 0, 1, 0, -1)),
    (4, 0.5, (1, -1, 0, 1, 0, -1)),
    (4, 2.0, (1, 0, 0, -1, 0, 0)),
])
def test_newton_boosting_with_monotone_hist_trees_is_xgboost(depth, lam, constraints):
    """boostlib's Newton loop equals XGBoost hist with the same ``monotone_constraints``,
    on the training rows and on fresh ones.

    XGBoost keeps gradients, Hessians, leaf weights and bounds in float32, and with
    constraints scores a split as ``score(γ_L) + score(γ_R) − score(γ_P)``, a
    difference of numbers far larger than the gain: deeper in the tree two candidates
    whose gains differ by ~1e-6 can then be ordered either way by float32 rounding (at
    depth 6 on these data they are). At these depths no such near-tie occurs, and the
    scores agree to float32 rounding. Two settings constrain x3, whose effect has the
    sign of the constraint in one and the opposite sign in the other (x1: a mixed
    effect), so the bounds bind.
    """
    X, y, X_fresh = integer_data()
    ours = BoostingClassifier(
        loss="log_loss", direction="newton", step="constant", init="zero",
        learner=HistTreeRegressor(max_depth=depth, l2_regularization=lam, min_child_weight=1.0,
                                  monotonic_cst=constraints),
        n_estimators=30, learning_rate=0.3).fit(X, y)
    xgb = XGBClassifier(tree_method="hist", max_depth=depth, reg_lambda=lam, min_child_weight=1.0,
                        gamma=0, base_score=0.5, n_estimators=30, learning_rate=0.3, n_jobs=1,
                        monotone_constraints=constraints).fit(X, y)
    for data in (X, X_fresh):
        np.testing.assert_allclose(ours.decision_function(data),
                                   xgb.predict(data, output_margin=True), rtol=0, atol=1e-5)
    free = BoostingClassifier(
        loss="log_loss", direction="newton", step="constant", init="zero",
        learner=HistTreeRegressor(max_depth=depth, l2_regularization=lam, min_child_weight=1.0),
        n_estimators=30, learning_rate=0.3).fit(X, y)
    # the constraints changed the model
    assert np.abs(free.decision_function(X) - ours.decision_function(X)).max() > 1e-2


# -- parameters ---------------------------------------------------------------------
def test_no_constraint_grows_the_very_same_tree():
    rng = np.random.RandomState(0)
    X = rng.randn(500, 3)
    y = X[:, 0] + rng.randn(500)
    plain = HistTreeRegressor(max_depth=5).fit(X, y)
    for cst in (None, [0, 0, 0], np.zeros(3, dtype=int)):
        tree = HistTreeRegressor(max_depth=5, monotonic_cst=cst).fit(X, y)
        for name in ("feature", "threshold", "value", "gain"):
            np.testing.assert_array_equal(getattr(tree.tree_, name), getattr(plain.tree_, name))


@pytest.mark.parametrize("bad,message", [
    ([1, 0], "shape"), ([1, 0, 0, 1], "shape"), ([[1, 0, 0]], "shape"),
    ([2, 0, 0], "only -1"), ([0.5, 0, 0], "only -1"), (["inc", 0, 0], "only -1"),
    ("increasing", "array-like"), ({"x0": 1}, "array-like"),
])
def test_bad_constraints_are_named(bad, message):
    X = np.random.RandomState(0).randn(50, 3)
    with pytest.raises(ValueError, match=f"monotonic_cst.*{message}|{message}.*monotonic_cst"):
        HistTreeRegressor(monotonic_cst=bad).fit(X, X[:, 0])


def test_check_monotonic_cst_returns_int8_or_none():
    assert check_monotonic_cst(None, 3) is None
    assert check_monotonic_cst([0, 0], 2) is None
    values = check_monotonic_cst([1.0, -1, 0], 3)
    assert values.dtype == np.int8 and values.tolist() == [1, -1, 0]


def test_regression_through_boosting_keeps_the_constraint():
    """BoostingRegressor with the gradient direction and a line-search step."""
    rng = np.random.RandomState(3)
    X = rng.rand(1000, 2)
    y = np.sin(8 * X[:, 0]) - X[:, 1] + 0.3 * rng.randn(1000)
    model = BoostingRegressor(n_estimators=30, step="line_search", learner=HistTreeRegressor(
        max_depth=3, monotonic_cst=[1, -1])).fit(X, y)
    assert min(model.steps_) > 0
    assert_monotone(model, rng.rand(40, 2), [1, -1], np.linspace(0, 1, 50),
                    lambda m, rows: m.predict(rows))


@pytest.mark.parametrize("max_leaf_nodes", [4, 16])
def test_best_first_growth_with_constraints_is_xgboosts_lossguide(max_leaf_nodes):
    """Best-first trees (``max_leaf_nodes``) with monotone constraints equal XGBoost's
    ``grow_policy="lossguide"`` with ``max_leaves`` and the same ``monotone_constraints``:
    the bounds do not depend on the order the leaves are split in."""
    X, y, X_fresh = integer_data()
    constraints = (1, -1, 0, 1, 0, -1)
    ours = BoostingClassifier(
        loss="log_loss", direction="newton", step="constant", init="zero",
        learner=HistTreeRegressor(max_depth=None, max_leaf_nodes=max_leaf_nodes,
                                  l2_regularization=1.0, min_child_weight=1.0,
                                  monotonic_cst=constraints),
        n_estimators=30, learning_rate=0.3).fit(X, y)
    xgb = XGBClassifier(tree_method="hist", grow_policy="lossguide", max_leaves=max_leaf_nodes,
                        max_depth=0, reg_lambda=1.0, min_child_weight=1.0, gamma=0,
                        base_score=0.5, n_estimators=30, learning_rate=0.3, n_jobs=1,
                        monotone_constraints=constraints).fit(X, y)
    for data in (X, X_fresh):
        np.testing.assert_allclose(ours.decision_function(data),
                                   xgb.predict(data, output_margin=True), rtol=0, atol=1e-5)


# -- through the boosting loop: every step the loop accepts keeps the constraint --------
def monotone_data(n=600, classes=2, seed=5):
    """Labels (``classes`` of them) or a real target, falling with x0 against a rising
    constraint on x0 somewhere (so it binds) and rising with x1 against a falling one."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 3)
    F = np.sin(7 * X[:, 0]) + 2 * X[:, 0] + np.cos(5 * X[:, 1]) - X[:, 1] + X[:, 2]
    if classes == 0:
        return X, F + 0.3 * rng.randn(n)
    edges = np.quantile(F, np.linspace(0, 1, classes + 1)[1:-1])
    return X, np.digitize(F + 0.5 * rng.randn(n), edges)


CONSTRAINTS = [1, -1, 0]


@pytest.mark.parametrize("step", ["constant", "newton", "line_search"])
@pytest.mark.parametrize("direction", ["gradient", "newton", "newton_unweighted",
                                       "newton_raphson"])
@pytest.mark.parametrize("task", ["binary", "three classes", "regression"])
@pytest.mark.parametrize("learner", ["hist", "sklearn"])
def test_every_accepted_step_and_direction_keeps_the_boosted_model_monotone(
        step, direction, task, learner):
    """Subsampled, started from a learner (``init="learner"``, whose ``ρ_0`` the step
    rule also picks; one output only, so not for three classes): the boosted output never
    falls along x0 nor rises along x1, for any direction (the trees keep the constraint
    whatever target they fit) and any accepted step (one ``ρ ≥ 0`` per tree); per class
    for three classes."""
    from sklearn.tree import DecisionTreeRegressor

    X, y = monotone_data(classes={"binary": 2, "three classes": 3, "regression": 0}[task])
    tree = (HistTreeRegressor(max_depth=3, monotonic_cst=CONSTRAINTS) if learner == "hist"
            else DecisionTreeRegressor(max_depth=3, monotonic_cst=CONSTRAINTS))
    kwargs = dict(direction=direction, step=step, learner=tree, n_estimators=15,
                  learning_rate=0.5, subsample=0.8, random_state=0,
                  # the initial learner fits every class at once: one output only
                  init="constant" if task == "three classes" else "learner")
    if task == "regression":
        model = BoostingRegressor(**kwargs).fit(X, y)
        outputs = [lambda m, rows: m.predict(rows)]
    else:
        model = BoostingClassifier(**kwargs).fit(X, y)
        F = model.decision_function
        outputs = ([lambda m, rows: m.decision_function(rows)] if F(X[:1]).ndim == 1 else
                   [lambda m, rows, k=k: m.decision_function(rows)[:, k] for k in range(3)])
    assert np.min(model.steps_) >= 0 and model.init_step_ >= 0
    X_other = np.random.RandomState(1).rand(25, 3)
    for output in outputs:
        assert_monotone(model, X_other, CONSTRAINTS, np.linspace(-0.1, 1.1, 40), output)


def test_a_negative_step_becomes_zero_for_a_monotone_learner():
    """Started from a tree fitted to 0/1 labels that are mostly 0, the line search wants
    ``ρ_0 < 0``, which would turn the rising tree into a falling one; with the constraint
    the rule keeps ``ρ ≥ 0``, and on ``ρ ≥ 0`` the convex line search is smallest at 0."""
    rng = np.random.RandomState(0)
    X = rng.rand(500, 2)
    y = (rng.rand(500) < 0.1 * X[:, 0]).astype(int)
    kwargs = dict(step="line_search", init="learner", n_estimators=5, random_state=0)
    free = BoostingClassifier(learner=HistTreeRegressor(max_depth=2), **kwargs).fit(X, y)
    assert free.init_step_ < 0
    bound = BoostingClassifier(learner=HistTreeRegressor(max_depth=2, monotonic_cst=[1, 0]),
                               **kwargs).fit(X, y)
    assert bound.init_step_ == 0.0
    assert_monotone(bound, rng.rand(20, 2), [1, 0], np.linspace(0, 1, 30),
                    lambda m, rows: m.decision_function(rows))


@pytest.mark.parametrize("estimator", [BoostingClassifier, BoostingRegressor])
@pytest.mark.parametrize("kwargs,name", [({}, "step"), ({"step": "leaf_newton"}, "step"),
                                         ({"step": "constant", "init": "learner",
                                           "init_step": "leaf_newton"}, "init_step")])
def test_leaf_newton_with_a_monotone_learner_is_refused(estimator, kwargs, name):
    """``leaf_newton`` (the default step) rewrites the leaves and would undo the bounds."""
    from sklearn.tree import DecisionTreeRegressor

    X, y = monotone_data()
    for learner in (HistTreeRegressor(monotonic_cst=CONSTRAINTS),
                    DecisionTreeRegressor(monotonic_cst=CONSTRAINTS)):
        with pytest.raises(ValueError, match=(
                f"^{name}='leaf_newton' rewrites every leaf.*monotonic_cst use {name}="
                "'constant', 'newton' or 'line_search'")):
            estimator(learner=learner, n_estimators=2, **kwargs).fit(X, y)
    # no constraint (or all zero): leaf_newton is fine
    estimator(learner=HistTreeRegressor(monotonic_cst=[0, 0, 0]), n_estimators=2,
              **kwargs).fit(X, y)
