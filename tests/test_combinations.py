"""Where features meet: every carrier of weight against every other choice, one reference per cell.

Each feature of the loop is tested alone elsewhere; a bug that is right in one
path and wrong in another hides where two of them meet (a weight that reaches
the learner but not the leaf values, the default direction of a NaN the
tree never saw, ``ρ_0`` in the validation scores). The table below (``CELLS``)
crosses the four carriers of weight

    none, ``sample_weight`` (integers, zeros included), the subsample bag, both

with every direction; every step × every learner (scikit-learn's tree,
``HistTreeRegressor``, a non-tree regressor: ridge); every task (regression,
binary, multi-class per class and joint, the multi-output quadratic) × every
learner; every start × early stopping on and off; NaN in X on and off × every
learner. The rest of a cell is ``BASE``. A cell that can run runs; a cell that
cannot is refused with a ``ValueError`` whose message is checked word for word.

One reference per cell, the strongest that is exact there:

* **repeat** (``sample_weight``, no early stopping): integer weights are
  repeated rows. Exact for all three learners, with two exceptions the table
  respects. (1) scikit-learn's tree sends a NaN in a feature that had none in
  training to the child with more *rows*, not more weight (``n_left >
  n_right`` in its ``_splitter.pyx``), so there the repeated model may differ;
  those rows are left out of the comparison for that learner only
  (``HistTreeRegressor`` follows the heavier child by ``Σ w`` and is compared
  there too). (2) With the bag or a validation split the row count changes
  the draw, so those cells take another reference.
* **by hand** (no weights, the bag, both): every stage rebuilt from the loss's
  ``g`` and ``h`` at the stage's start and the weights ``s · bag`` (the bag
  read off scikit-learn's sampler as the loop calls it): the learner's root
  weight ``Σ w s · bag``, its leaf values (weighted means of the target) or
  ``γ_R = −(Σ_R s g)/(Σ_R s h)`` per leaf for ``leaf_newton`` (the
  pseudo-inverse of ``Σ_R s H`` for a vector loss; Friedman's ``(K − 1)/K`` per
  class), the root of ``Σ s g(F + ρu)·u`` for ``newton`` and ``line_search``,
  ``ρ = 1`` for ``constant``, ``ρ_0`` likewise for ``init="learner"``, a
  histogram tree's default direction for NaN (the heavier child by ``Σ w``)
  where its node saw none, and ``train_loss_`` after every stage.
* **early stopping** (every carrier): the stage at which scikit-learn's rule
  stops (the validation loss, twice the mean for squared error and log loss,
  fails to beat any of the last ``n_iter_no_change`` values by ``tol``),
  recomputed from ``staged_predict`` on the same split, weights split with it.
"""

import re
import sys

import numpy as np
import pytest
from sklearn.ensemble._gradient_boosting import _random_sample_mask
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.boosting import loss_targets
from boostlib.directions import get_direction
from boostlib.losses import Coordinate
from boostlib.steps import RHO_MAX
from boostlib.trees import HistTreeRegressor

N, N_TEST, SUBSAMPLE, N_ITER_NO_CHANGE, VALIDATION_FRACTION = 80, 40, 0.7, 2, 0.25

LEARNERS = {
    "tree": lambda: DecisionTreeRegressor(max_depth=2),
    "hist": lambda: HistTreeRegressor(max_depth=2),
    "ridge": lambda: Ridge(alpha=1.0),
}
CARRIERS = ("none", "sample_weight", "bag", "both")
BASE = dict(task="binary", direction="newton", step="leaf_newton", learner="hist",
            init="constant", early_stopping=False, nan=False)
TASKS = ("regression", "binary", "per_class", "joint", "quadratic")


def _step_for(learner):
    """A non-tree learner cannot take ``leaf_newton``: it brings ``newton`` (its refusal
    is the cell ``step=leaf_newton, learner=ridge``)."""
    return {"step": "newton"} if learner == "ridge" else {}


def _variations():
    """The table: what each cell changes from ``BASE``."""
    rows = [dict(direction=d) for d in ("gradient", "newton", "newton_unweighted",
                                        "newton_raphson")]
    rows += [dict(step=s, learner=lrn) for s in ("line_search", "newton", "leaf_newton",
                                                 "constant") for lrn in LEARNERS]
    rows += [dict(task=t, learner=lrn, **_step_for(lrn)) for t in TASKS for lrn in LEARNERS]
    rows += [dict(init=i, early_stopping=e, learner=lrn, **_step_for(lrn))
             for i in ("constant", "zero", "learner") for e in (False, True) for lrn in LEARNERS]
    rows += [dict(nan=v, learner=lrn, **_step_for(lrn)) for v in (False, True) for lrn in LEARNERS]
    cells, seen = [], set()
    for row in rows:
        cell = {**BASE, **row}
        key = tuple(sorted(cell.items()))
        if key not in seen:
            seen.add(key)
            cells.append(cell)
    return cells


def _cell_id(carrier, cell):
    changed = [f"{k}={v}" for k, v in cell.items() if v != BASE[k]]
    return f"{carrier}-{','.join(changed) or 'base'}"


CELLS = [(carrier, cell) for carrier in CARRIERS for cell in _variations()]
IDS = [_cell_id(carrier, cell) for carrier, cell in CELLS]

NAN_MESSAGE = (
    "Input X contains NaN, and learner=Ridge() does not accept missing values. Learners "
    "that do: scikit-learn's DecisionTreeRegressor (the default) and ExtraTreeRegressor, "
    "boostlib's HistTreeRegressor, and any regressor whose tags say allow_nan "
    "(HistGradientBoostingRegressor); or impute first (sklearn.impute)."
)


def refusal(cell):
    """The message a cell that cannot run is refused with; None when it runs."""
    if cell["learner"] == "ridge" and cell["nan"]:
        return NAN_MESSAGE
    if cell["learner"] == "ridge" and cell["step"] == "leaf_newton":
        return ("step='leaf_newton' needs a tree learner (with tree_ and apply), such as "
                "DecisionTreeRegressor; got Ridge")
    if cell["learner"] == "hist" and cell["task"] in ("joint", "quadratic"):
        K = 3 if cell["task"] == "joint" else 2
        return (f"HistTreeRegressor fits one output, but y has shape ({N}, {K}): boost a "
                "vector loss with a multi-output learner (such as DecisionTreeRegressor) or "
                "one learner per class (BoostingClassifier's multiclass='per_class')")
    return None


def data(cell):
    """``X`` (continuous: no two splits tie), ``y`` for the task, integer weights, ``X_test``.

    With NaN: a fifth of feature 0 missing in training; ``X_test`` misses
    feature 0 (seen in training) and feature 1 (never missing in training).
    """
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(N, 3))
    signal = 2 * X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=N)
    task = cell["task"]
    if task == "regression":
        y = signal
    elif task == "binary":
        y = (signal > np.median(signal)).astype(int)
    elif task in ("per_class", "joint"):
        y = np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3]))
    else:
        y = np.column_stack([signal, X[:, 2] + 0.3 * rng.normal(size=N)])
    s = np.random.RandomState(1).randint(0, 4, N).astype(float)
    X_test = rng.uniform(size=(N_TEST, 3))
    if cell["nan"]:
        X[rng.uniform(size=N) < 0.2, 0] = np.nan
        X_test[::3, 0] = np.nan
        X_test[1::3, 1] = np.nan
    return X, y, s, X_test


def estimator(cell, carrier):
    regression = cell["task"] in ("regression", "quadratic")
    kwargs = dict(direction=cell["direction"], step=cell["step"],
                  learner=LEARNERS[cell["learner"]](), init=cell["init"], learning_rate=0.5,
                  n_estimators=3, random_state=0,
                  subsample=SUBSAMPLE if carrier in ("bag", "both") else 1.0)
    if cell["init"] == "learner":
        kwargs["init_step"] = "line_search"  # ρ_0 ≠ 1 (a step rule of its own)
    if cell["early_stopping"]:
        kwargs.update(n_estimators=10, n_iter_no_change=N_ITER_NO_CHANGE,
                      validation_fraction=VALIDATION_FRACTION)
    if regression:
        return BoostingRegressor(loss="quadratic" if cell["task"] == "quadratic"
                                 else "squared_error", **kwargs)
    if cell["task"] in ("per_class", "joint"):
        kwargs["multiclass"] = cell["task"]
    return BoostingClassifier(**kwargs)


def raw(model, X):
    return model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X)


def staged_raw(model, X):
    if hasattr(model, "staged_decision_function"):
        return model.staged_decision_function(X)
    return model.staged_predict(X)


@pytest.fixture
def bags(monkeypatch):
    """Every subsample mask the fit draws, in order (scikit-learn's sampler, spied on
    wherever boostlib imported it)."""
    drawn = []

    def spy(n, n_inbag, rng):
        drawn.append(_random_sample_mask(n, n_inbag, rng).astype(bool))
        return drawn[-1].astype(np.uint8)

    modules = [m for name, m in list(sys.modules.items())
               if name.startswith("boostlib") and hasattr(m, "_random_sample_mask")]
    assert modules, "the loop no longer draws its bags with scikit-learn's _random_sample_mask"
    for module in modules:
        monkeypatch.setattr(module, "_random_sample_mask", spy)
    return drawn


@pytest.mark.parametrize("carrier, cell", CELLS, ids=IDS)
def test_cell(carrier, cell, bags):
    X, y, s, X_test = data(cell)
    sample_weight = s if carrier in ("sample_weight", "both") else None
    model = estimator(cell, carrier)
    message = refusal(cell)
    if message is not None:
        with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
            model.fit(X, y, sample_weight=sample_weight)
        return
    model.fit(X, y, sample_weight=sample_weight)
    if cell["early_stopping"]:
        check_early_stopping(model, X, y, sample_weight)
    elif carrier == "sample_weight":
        check_repeated_rows(cell, carrier, model, X, y, s, X_test)
    else:
        by_hand(model, X, y, sample_weight, bags)


# -- reference: integer weights are repeated rows ----------------------------
def check_repeated_rows(cell, carrier, model, X, y, s, X_test):
    keep = s.astype(int)
    repeated = estimator(cell, carrier).fit(np.repeat(X, keep, axis=0), np.repeat(y, keep, axis=0))
    if cell["learner"] == "tree":  # a NaN it never saw goes by rows, not weight (see top)
        X_test = X_test[~np.isnan(X_test[:, 1])]
    np.testing.assert_allclose(raw(model, X_test), raw(repeated, X_test), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.steps_, repeated.steps_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(model.train_loss_, repeated.train_loss_, rtol=1e-10)
    np.testing.assert_allclose(model.init_step_, repeated.init_step_, rtol=1e-9)


# -- reference: early stopping by scikit-learn's rule --------------------------
def check_early_stopping(model, X, y, s):
    """scikit-learn's ``_fit_stages``: keep going while the validation loss beats one of
    the last ``n_iter_no_change`` by more than ``tol``; the stage that fails is kept."""
    classifier = hasattr(model, "classes_")
    arrays = (X, y) if s is None else (X, y, s)
    parts = train_test_split(*arrays, random_state=0, test_size=VALIDATION_FRACTION,
                             stratify=y if classifier else None)
    X_val, y_val = parts[1], parts[3]
    s_val = None if s is None else parts[5]
    Y_val = loss_targets(model, y_val)
    factor = 2.0 if model.loss_.name in ("squared_error", "log_loss") else 1.0  # the deviances
    history = np.full(N_ITER_NO_CHANGE, np.inf)
    expected = model.n_estimators
    for m, F in enumerate(staged_raw(model, X_val)):
        loss = factor * model.loss_.mean(Y_val, F, s_val)
        if np.any(loss + 1e-4 < history):  # tol=None: scikit-learn's default 1e-4
            history[m % N_ITER_NO_CHANGE] = loss
        else:
            expected = m + 1
            break
    assert model.n_estimators_ == expected
    assert expected < model.n_estimators  # the cell stops early: the rule is exercised


# -- reference: every stage rebuilt by hand --------------------------------------
def by_hand(model, X, y, s, bags):
    loss = model.loss_
    Y = loss_targets(model, y)
    n = len(X)
    s_loss = np.ones(n) if s is None else s
    leaf_newton = model.step == "leaf_newton"
    if model.init == "learner":  # h_0 fitted to y with weights s, ρ_0 by its own rule
        u0 = output(model.init_, X, loss)
        check_learner_fit(model.init_, X, Y, s_loss, leaf_values=True)
        check_rho_root(loss, Y, np.zeros_like(u0), u0, s_loss, model.init_step_)
        F = model.init_step_ * u0
    else:
        F = np.broadcast_to(model.init_.predict(X[:1])[0], Y.shape).astype(float)
    np.testing.assert_allclose(loss.mean(Y, F, s), model.train_loss_[0], rtol=1e-12)
    subsampled = model.subsample < 1
    assert len(bags) == (model.n_estimators_ if subsampled else 0)
    direction = get_direction(model.direction)
    per_class = loss.vector and getattr(model, "multiclass", None) == "per_class"
    K = Y.shape[1] if per_class else 1
    for m in range(model.n_estimators_):
        bag = bags[m].astype(float) if subsampled else np.ones(n)
        if subsampled:
            assert bag.sum() == int(SUBSAMPLE * n)
        weight = s_loss * bag  # the weight of every sample's loss this stage
        update = np.zeros_like(F)
        for k in range(K):
            if per_class:
                view, y_k, F_k = Coordinate(loss, Y, F, k), Y[:, k], F[:, k]
                learner, rho = model.estimators_[m, k], model.steps_[m, k]
            else:
                view, y_k, F_k = loss, Y, F
                learner, rho = model.estimators_[m], model.steps_[m]
            z, w = direction(view, y_k, F_k)
            u = output(learner, X, view)
            check_learner_fit(learner, X, z, w * weight, leaf_values=not leaf_newton)
            if leaf_newton:
                assert rho == 1.0
                check_leaf_newton(learner, X, view, y_k, F_k, weight, bag > 0)
            elif model.step == "constant":
                assert rho == 1.0
            else:
                check_rho_root(view, y_k, F_k, u, weight, rho)
            if per_class:
                update[:, k] = model.learning_rate * rho * u
            else:
                update = model.learning_rate * rho * u
        F = F + update
        np.testing.assert_allclose(loss.mean(Y, F, s), model.train_loss_[m + 1], rtol=1e-10)


def output(learner, X, loss):
    u = np.asarray(learner.predict(X), dtype=float)
    return u.reshape(len(X), -1) if loss.vector else u.reshape(len(X))


def check_learner_fit(learner, X, z, w, leaf_values):
    """The learner solved ``min Σ w (z − h)²``: a tree's root weight and leaf means, a
    ridge's coefficients; a histogram tree's NaN direction where its node saw no NaN."""
    z = np.asarray(z, dtype=float).reshape(len(X), -1)
    tree = getattr(learner, "tree_", None)
    if tree is None:
        params = {k: v for k, v in learner.get_params().items() if k != "random_state"}
        reference = Ridge(**params).fit(X, z if z.shape[1] > 1 else z[:, 0], sample_weight=w)
        np.testing.assert_allclose(learner.coef_, reference.coef_, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(learner.intercept_, reference.intercept_, rtol=1e-8,
                                   atol=1e-12)
        return
    np.testing.assert_allclose(tree.weighted_n_node_samples[0], w.sum(), rtol=1e-10)
    leaves = learner.apply(X)
    if leaf_values:
        for leaf in np.flatnonzero(tree.children_left == -1):
            inside = leaves == leaf
            if w[inside].sum() > 0:
                np.testing.assert_allclose(tree.value[leaf, :, 0], w[inside] @ z[inside]
                                           / w[inside].sum(), rtol=1e-9, atol=1e-12)
    if isinstance(learner, HistTreeRegressor):
        check_default_nan_direction(tree, leaves, X, w)


def check_default_nan_direction(tree, leaves, X, w):
    """Where no NaN of the split feature reached a node in training, NaN follows the child
    with the larger ``Σ w`` (left on a tie)."""
    def under(k):  # the leaves of the subtree at node k
        if tree.children_left[k] == -1:
            return [k]
        return under(tree.children_left[k]) + under(tree.children_right[k])

    for k in np.flatnonzero(tree.children_left != -1):
        at_node = np.isin(leaves, under(k))
        if np.any(at_node & (w > 0) & np.isnan(X[:, tree.feature[k]])):
            continue  # its direction is learned by the gain
        left_w = w[np.isin(leaves, under(tree.children_left[k]))].sum()
        right_w = w[np.isin(leaves, under(tree.children_right[k]))].sum()
        assert tree.missing_left[k] == (left_w >= right_w), k


def check_leaf_newton(learner, X, loss, y, F, weight, in_bag):
    """``γ_R = −(Σ_R s g)/(Σ_R s h)`` over the leaf's rows in the bag, times ``(K − 1)/K``
    per softmax class; ``−(Σ_R s H)⁺ Σ_R s g`` for a vector loss; 0 without weight."""
    tree = learner.tree_
    leaves = learner.apply(X)
    g = loss.gradient(y, F)
    H = loss.hessian(y, F)
    factor = getattr(loss, "leaf_factor", 1.0)
    for leaf in np.flatnonzero(tree.children_left == -1):
        inside = (leaves == leaf) & in_bag
        ws = weight[inside]
        if loss.vector:
            G = ws @ g[inside]
            Hsum = np.einsum("i,ijk->jk", ws, H[inside])
            gamma = -np.linalg.pinv(Hsum, rcond=1e-10, hermitian=True) @ G
        else:
            total = ws @ H[inside]
            gamma = -factor * (ws @ g[inside]) / total if total > 0 else 0.0
        np.testing.assert_allclose(tree.value[leaf, :, 0], np.ravel(gamma), rtol=1e-9,
                                   atol=1e-12)


def check_rho_root(loss, y, F, u, weight, rho):
    """``ρ`` is where ``φ(ρ) = Σ s L(y, F + ρu)`` stops falling: ``Σ s g(F + ρu)·u = 0``."""
    assert abs(rho) < RHO_MAX
    terms = weight[:, None] * loss.gradient(y, F + rho * u) * u if loss.vector else (
        weight * loss.gradient(y, F + rho * u) * u)
    assert abs(terms.sum()) <= 1e-7 * np.abs(terms).sum() + 1e-300
