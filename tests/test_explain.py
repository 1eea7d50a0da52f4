"""boostlib.explain (chapter 10): SHAP values by TreeSHAP, and relative influence.

TreeSHAP is checked four ways: local accuracy on any model (hypothesis); the
Shapley values of the definition, every coalition enumerated, with the
path-dependent expectation; XGBoost's ``pred_contribs`` on a boostlib model
proven equal to an XGBoost one; and the ``shap`` package's TreeExplainer on a
scikit-learn model boostlib reproduces to the bit.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
import xgboost
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import expit
from sklearn.dummy import DummyRegressor
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor, ExtraTreeRegressor

from boostlib import BoostingClassifier, BoostingRegressor, HistTreeRegressor
from boostlib.explain import relative_influence, shap_values


# -- the definition, by brute force -----------------------------------------------------
def _goes_left(tree, node, value):
    if np.isnan(value):
        missing = tree.missing_left if hasattr(tree, "missing_left") else tree.missing_go_to_left
        return bool(missing[node])
    return value <= tree.threshold[node]


def expected_given(tree, x, known, node=0):
    """``v(S) = E[h(x) | x_S]`` of one tree, path-dependent: at a split on a feature in
    ``S`` follow ``x``; at any other, both children, weighted by their training cover."""
    if tree.children_left[node] == -1:
        return tree.value[node, :, 0]
    left, right = tree.children_left[node], tree.children_right[node]
    if tree.feature[node] in known:
        child = left if _goes_left(tree, node, x[tree.feature[node]]) else right
        return expected_given(tree, x, known, child)
    cover = tree.weighted_n_node_samples
    return (cover[left] * expected_given(tree, x, known, left)
            + cover[right] * expected_given(tree, x, known, right)) / cover[node]


def model_terms(model):
    """``(tree, scale, column)`` of every tree, read from the model's own attributes,
    and the constant ``F_0``, shaped (K,)."""
    terms = []
    estimators = np.asarray(model.estimators_, dtype=object)
    for m, rho in enumerate(np.asarray(model.steps_)):
        if estimators.ndim == 2:
            terms += [(estimators[m, k].tree_, model.learning_rate * rho[k], k)
                      for k in range(estimators.shape[1])]
        else:
            terms.append((estimators[m].tree_, model.learning_rate * rho, None))
    if isinstance(model.init_, DummyRegressor):
        return terms, model.init_step_ * np.ravel(model.init_.constant_)
    return [(model.init_.tree_, model.init_step_, None)] + terms, 0.0


def brute_force_shap(model, X):
    """φ_j = Σ_{S ⊆ N∖{j}} |S|!(d − |S| − 1)!/d! (v(S ∪ {j}) − v(S)), every S enumerated;
    returns φ (n, d, K), v(∅) (K,) and v(N) (n, K)."""
    terms, constant = model_terms(model)
    d = X.shape[1]
    K = np.size(model.decision_function(X[:1])) if hasattr(model, "classes_") else \
        np.size(model.predict(X[:1]))

    def v(x, known):
        total = np.zeros(K) + constant
        for tree, scale, column in terms:
            value = scale * expected_given(tree, x, known)
            if column is None:
                total += value
            else:
                total[column] += value[0]
        return total

    phi = np.zeros((len(X), d, K))
    full = np.zeros((len(X), K))
    for i, x in enumerate(X):
        values = {S: v(x, set(S)) for r in range(d + 1)
                  for S in itertools.combinations(range(d), r)}
        full[i] = values[tuple(range(d))]
        for j in range(d):
            for S, value in values.items():
                if j in S:
                    continue
                weight = math.factorial(len(S)) * math.factorial(d - len(S) - 1) / \
                    math.factorial(d)
                with_j = tuple(sorted(S + (j,)))
                phi[i, j] += weight * (values[with_j] - value)
    return phi, v(X[0], set()), full


def raw(model, X):
    return model.decision_function(X) if hasattr(model, "classes_") else model.predict(X)


def as_3d(phi, expected):
    return (phi[:, :, None], np.atleast_1d(expected)) if phi.ndim == 2 else (phi, expected)


def small_data(n=200, d=5, seed=0, nan=0.0, classes=None):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, d)
    f = 3 * X[:, 0] * X[:, 1] + 2 * (X[:, 2] > 0.5) - X[:, 3 % d] + 0.3 * rng.randn(n)
    if nan:
        X[rng.rand(n, d) < nan] = np.nan
    if classes is None:
        return X, f
    return X, np.digitize(f, np.quantile(f, np.linspace(0, 1, classes + 1)[1:-1]))


MODELS = {
    "regressor, sklearn tree": lambda: BoostingRegressor(n_estimators=15, random_state=0),
    "regressor, huber, subsample, line search": lambda: BoostingRegressor(
        loss="huber", step="line_search", subsample=0.7, n_estimators=10, random_state=0),
    "regressor, hist tree, newton, init learner": lambda: BoostingRegressor(
        direction="newton", learner=HistTreeRegressor(max_depth=4, l2_regularization=1.0),
        init="learner", n_estimators=10, random_state=0),
    "binary, log loss, leaf_newton": lambda: BoostingClassifier(n_estimators=15,
                                                                random_state=0),
    "binary, hist tree, newton": lambda: BoostingClassifier(
        direction="newton", learner=HistTreeRegressor(max_depth=3), n_estimators=15),
    "three classes, per class": lambda: BoostingClassifier(n_estimators=8, random_state=0),
    "three classes, joint": lambda: BoostingClassifier(multiclass="joint", n_estimators=8,
                                                       random_state=0),
    "three classes, hist tree, newton": lambda: BoostingClassifier(
        learner=HistTreeRegressor(max_depth=3), direction="newton", n_estimators=6),
    "binary, hist tree, init learner": lambda: BoostingClassifier(
        learner=HistTreeRegressor(max_depth=3), init="learner", init_step="constant",
        n_estimators=6),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_shap_values_are_the_shapley_values_of_the_definition(name):
    """Every coalition enumerated (d = 5), with NaN in training and explained rows."""
    classes = 3 if "three" in name else 2 if "binary" in name else None
    X, y = small_data(nan=0.1, classes=classes)
    model = MODELS[name]().fit(X, y)
    rows = np.vstack([X[:8], small_data(n=8, seed=1, nan=0.3)[0]])
    phi, expected = as_3d(*shap_values(model, rows))
    truth, empty, full = brute_force_shap(model, rows)
    np.testing.assert_allclose(full, raw(model, rows).reshape(len(rows), -1), rtol=0, atol=1e-10)
    np.testing.assert_allclose(expected, empty, rtol=0, atol=1e-10)
    np.testing.assert_allclose(phi, truth, rtol=0, atol=1e-10)


def test_a_feature_split_on_twice_on_one_path_is_counted_once():
    """Deep trees on two features: every path meets each feature again (UNWIND)."""
    rng = np.random.RandomState(3)
    X = rng.rand(300, 2)
    y = np.sin(6 * X[:, 0]) * X[:, 1] + 0.1 * rng.randn(300)
    model = BoostingRegressor(learner=DecisionTreeRegressor(max_depth=6), n_estimators=5,
                              random_state=0).fit(X, y)
    phi, expected = shap_values(model, X[:20])
    truth, empty, _ = brute_force_shap(model, X[:20])
    np.testing.assert_allclose(phi, truth[:, :, 0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(expected, empty[0], rtol=0, atol=1e-10)


# -- local accuracy on any model --------------------------------------------------------
@st.composite
def models_and_data(draw):
    seed = draw(st.integers(0, 2**16))
    rng = np.random.RandomState(seed)
    n, d = draw(st.integers(20, 120)), draw(st.integers(1, 7))
    X = rng.randn(n, d).round(draw(st.sampled_from([0, 1, 3])))
    if draw(st.booleans()):
        X[rng.rand(n, d) < 0.2] = np.nan
    learner = draw(st.sampled_from([
        DecisionTreeRegressor(max_depth=draw(st.integers(1, 6))),
        ExtraTreeRegressor(max_depth=4),
        HistTreeRegressor(max_depth=draw(st.integers(1, 6)), max_bins=draw(st.integers(2, 40)),
                          l2_regularization=draw(st.sampled_from([0.0, 1.0]))),
    ]))
    kind = draw(st.sampled_from(["regression", "binary", "multiclass"]))
    common = dict(learner=learner, n_estimators=draw(st.integers(1, 12)),
                  learning_rate=draw(st.sampled_from([0.1, 0.5, 1.0])),
                  subsample=draw(st.sampled_from([1.0, 0.6])), random_state=seed,
                  direction=draw(st.sampled_from(["gradient", "newton"])),
                  step=draw(st.sampled_from(["leaf_newton", "line_search", "newton",
                                             "constant"])),
                  init=draw(st.sampled_from(["constant", "zero", "learner"])))
    signal = np.nan_to_num(X[:, 0]) + rng.randn(n)
    if kind == "regression":
        loss = draw(st.sampled_from(["squared_error", "huber", "absolute_error"]))
        if loss != "squared_error":  # their Hessian vanishes: no Newton direction or step
            common["direction"] = "gradient"
            if common["step"] == "newton":
                common["step"] = "line_search"
        model, y = BoostingRegressor(loss=loss, **common), signal
    else:
        K = 2 if kind == "binary" else 3
        y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, K + 1)[1:-1]))
        if len(np.unique(y)) < 2:
            y[: n // 2] = 0
            y[n // 2:] = 1
        multiclass = draw(st.sampled_from(["per_class", "joint"]))
        if isinstance(learner, HistTreeRegressor):  # a single-output learner
            multiclass = "per_class"
            if K > 2:
                common["init"] = "constant"  # h_0 would be fitted to the one-hot y
        loss = "log_loss" if K > 2 else draw(st.sampled_from(["log_loss", "exponential"]))
        model = BoostingClassifier(loss=loss, multiclass=multiclass, **common)
    weights = rng.uniform(0.1, 3.0, n) if draw(st.booleans()) else None
    return model, X, y, weights


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models_and_data())
def test_local_accuracy_the_values_add_up_to_the_models_output(case):
    """Σ_j φ_j + E[F] = F to 1e-10, or to 1e-12 of the terms F adds up where they are large:
    a line search capped at 1e4 on leaves of −g/h with h bounded at 1e-12 gives leaf
    values near 1e9 whose sum, F, is far smaller, and rounding is relative to the terms."""
    model, X, y, weights = case
    model.fit(X, y, sample_weight=weights)
    phi, expected = as_3d(*shap_values(model, X))
    F = raw(model, X).reshape(len(X), -1)
    terms, constant = model_terms(model)
    size = np.max(np.abs(constant)) + sum(abs(scale) * np.max(np.abs(tree.value))
                                          for tree, scale, _ in terms)
    np.testing.assert_allclose(phi.sum(axis=1) + expected, F, rtol=0,
                               atol=max(1e-10, 1e-12 * size))


def test_shapes_follow_the_model_output():
    X, y = small_data(classes=3)
    phi, expected = shap_values(BoostingClassifier(n_estimators=3).fit(X, y), X[:7])
    assert phi.shape == (7, 5, 3) and expected.shape == (3,)
    phi, expected = shap_values(BoostingRegressor(n_estimators=3).fit(X, y), X[:7])
    assert phi.shape == (7, 5) and isinstance(expected, float)
    Y = np.column_stack([y, -y])
    model = BoostingRegressor(loss="quadratic", n_estimators=3).fit(X, Y)
    phi, expected = shap_values(model, X[:7])
    assert phi.shape == (7, 5, 2) and expected.shape == (2,)
    np.testing.assert_allclose(phi.sum(axis=1) + expected, model.predict(X[:7]), atol=1e-10)


# -- the peers --------------------------------------------------------------------------
def integer_data(n=3000, d=6, levels=8, seed=0, nan=0.2):
    """As chapter 8's equality with XGBoost: few integer values, every one present; NaN."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, levels, size=(n, d)).astype(float)
    F = X[:, 0] - levels / 2 + 0.5 * (X[:, 1] - levels / 2) * (X[:, 2] > levels / 2)
    y = (rng.rand(n) < expit(F)).astype(int)
    X_fresh = rng.randint(0, levels, size=(1000, d)).astype(float)
    X[rng.rand(n, d) < nan] = np.nan
    X_fresh[rng.rand(1000, d) < nan] = np.nan
    return X, y, X_fresh, F + rng.randn(n)


def nan_defaults_are_learned(model, X):
    """Whether every split's missing-value direction was learned from training rows.

    A node that saw no NaN of its feature sends one to the heavier child in boostlib and
    to the right in XGBoost (chapter 8). φ follows x down paths its prediction does not
    take, so such a node would part the two even where the predictions agree. It is
    harmless only below a split on the same feature: no row with that value missing
    arrives there.
    """
    for learner in model.estimators_:
        t = learner.tree_
        stack = [(0, np.arange(len(X)), frozenset())]
        while stack:
            node, rows, above = stack.pop()
            if t.children_left[node] == -1:
                continue
            j = t.feature[node]
            x = X[rows, j]
            if not np.isnan(x).any() and j not in above:
                return False
            left = np.where(np.isnan(x), t.missing_left[node], x <= t.threshold[node])
            stack += [(t.children_left[node], rows[left], above | {j}),
                      (t.children_right[node], rows[~left], above | {j})]
    return True


@pytest.mark.parametrize("task", ["binary", "regression"])
def test_equal_to_xgboosts_contributions_on_an_equal_model(task):
    """A boostlib Newton model equal to XGBoost's (hist, integer data, NaN in training and in
    fresh rows) has XGBoost's ``pred_contribs``: φ and, in the last column, E[F].

    XGBoost keeps gradients, covers and φ in float32: they agree to ~1e-6.
    """
    X, y, X_fresh, target = integer_data()
    tree = HistTreeRegressor(max_depth=4, l2_regularization=1.0, min_child_weight=10.0)
    settings_ = dict(n_estimators=30, learning_rate=0.3)
    peer = dict(tree_method="hist", max_depth=4, reg_lambda=1.0, min_child_weight=10.0,
                gamma=0, n_jobs=1, **settings_)
    if task == "binary":
        ours = BoostingClassifier(direction="newton", step="constant", init="zero",
                                  learner=tree, **settings_).fit(X, y)
        theirs = xgboost.XGBClassifier(base_score=0.5, **peer).fit(X, y)
    else:
        ours = BoostingRegressor(direction="newton", step="constant", init="zero",
                                 learner=tree, **settings_).fit(X, target)
        theirs = xgboost.XGBRegressor(base_score=0.0, **peer).fit(X, target)
    assert nan_defaults_are_learned(ours, X)
    booster = theirs.get_booster()
    for rows in (X, X_fresh):
        margin = booster.predict(xgboost.DMatrix(rows), output_margin=True)
        np.testing.assert_allclose(raw(ours, rows), margin, rtol=0, atol=1e-5)
        contributions = booster.predict(xgboost.DMatrix(rows), pred_contribs=True)
        phi, expected = shap_values(ours, rows)
        np.testing.assert_allclose(phi, contributions[:, :-1].astype(float), rtol=0, atol=1e-5)
        np.testing.assert_allclose(expected, contributions[:, -1].astype(float), atol=1e-5)
        assert np.isnan(rows).mean() > 0.15


def test_a_nan_default_not_learned_parts_the_values_where_predictions_agree():
    """With NaN in only 10 % of the rows some small node sees none of its feature's: the
    predictions of every row still agree with XGBoost's, φ do not (the reason for the check
    in the test above)."""
    X, _, _, target = integer_data(nan=0.1)
    settings_ = dict(n_estimators=30, learning_rate=0.3)
    ours = BoostingRegressor(direction="newton", step="constant", init="zero",
                             learner=HistTreeRegressor(max_depth=4, l2_regularization=1.0,
                                                       min_child_weight=1.0),
                             **settings_).fit(X, target)
    booster = xgboost.XGBRegressor(base_score=0.0, tree_method="hist", max_depth=4,
                                   reg_lambda=1.0, min_child_weight=1.0, gamma=0, n_jobs=1,
                                   **settings_).fit(X, target).get_booster()
    assert not nan_defaults_are_learned(ours, X)
    margin = booster.predict(xgboost.DMatrix(X), output_margin=True)
    np.testing.assert_allclose(ours.predict(X), margin, rtol=0, atol=1e-5)
    contributions = booster.predict(xgboost.DMatrix(X), pred_contribs=True)[:, :-1]
    assert np.abs(shap_values(ours, X)[0] - contributions).max() > 1e-2


def tree_explainer(model):
    """The ``shap`` package's TreeExplainer (imported quietly: its colour maps call
    matplotlib functions that warn of their deprecation)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        import shap
    return shap.TreeExplainer(model)


@pytest.mark.parametrize("task", ["regression", "binary"])
def test_equal_to_shaps_tree_explainer_on_scikit_learns_model(task):
    """boostlib reproduces scikit-learn's gradient boosting to the bit; shap explains that."""
    settings_ = dict(n_estimators=30, subsample=0.8, random_state=0)
    if task == "regression":
        X, y = small_data(n=400, d=6, seed=2)
        ours = BoostingRegressor(**settings_).fit(X, y)
        theirs = GradientBoostingRegressor(max_depth=3, **settings_).fit(X, y)
    else:
        X, y = small_data(n=400, d=6, seed=4, classes=2)
        ours = BoostingClassifier(**settings_).fit(X, y)
        theirs = GradientBoostingClassifier(max_depth=3, **settings_).fit(X, y)
    np.testing.assert_array_equal(raw(ours, X), raw(theirs, X))
    explainer = tree_explainer(theirs)
    phi, expected = shap_values(ours, X)
    np.testing.assert_allclose(phi, explainer.shap_values(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(expected, np.ravel(explainer.expected_value)[0], atol=1e-10)


def test_learners_that_are_not_trees_are_refused_by_name():
    X, y = small_data()
    model = BoostingRegressor(learner=LinearRegression(), step="line_search",
                              n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="tree learners.*not LinearRegression"):
        shap_values(model, X)
    with pytest.raises(ValueError, match="tree learners.*not LinearRegression"):
        relative_influence(model)


def test_rows_are_validated_as_predict_validates_them():
    X, y = small_data()
    model = BoostingRegressor(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        shap_values(model, X[:, :3])


@pytest.mark.parametrize("learner", [None, HistTreeRegressor(max_depth=3, n_jobs=1)],
                         ids=["sklearn-tree", "hist-tree"])
def test_a_sparse_X_gets_the_values_of_its_dense_copy(learner):
    """Both tree learners fit a sparse X; its SHAP values are those of the dense copy (an
    absent entry is a 0) and add up to the model's output on the sparse rows."""
    from scipy import sparse

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5)) * (rng.random((300, 5)) < 0.3)  # 70 % zeros
    y = X[:, 0] - 2 * X[:, 1] * (X[:, 2] > 0) + 0.1 * rng.normal(size=300)
    kwargs = {} if learner is None else {"learner": learner}
    model = BoostingRegressor(n_estimators=5, random_state=0, **kwargs).fit(
        sparse.csr_matrix(X), y)
    for rows in (sparse.csr_matrix(X[:40]), sparse.csc_matrix(X[:40])):
        phi, expected = shap_values(model, rows)
        dense_phi, dense_expected = shap_values(model, X[:40])
        np.testing.assert_array_equal(phi, dense_phi)
        assert expected == dense_expected
        np.testing.assert_allclose(phi.sum(axis=1) + expected, model.predict(rows), atol=1e-12)
        assert np.abs(phi).sum() > 0


# -- relative influence -----------------------------------------------------------------
def influence_by_hand(model, X, y):
    """Friedman's I_j² from the data: each stage's pseudo-response ``z = −g`` at F_{m−1},
    its weighted means in every node, and eq. split-improvement's closed form
    ``W_ℓ W_r / (W_ℓ + W_r) (z̄_ℓ − z̄_r)²``; per tree over the root's W, averaged, normalised."""
    loss = model.loss_
    Y = y
    if hasattr(model, "classes_"):
        codes = np.searchsorted(model.classes_, y)
        Y = np.eye(len(model.classes_))[codes] if loss.vector else np.where(
            codes == 1, loss.labels[1], loss.labels[0])
    F = model.init_step_ * model.init_.predict(X)
    stages = [F] + list(model.staged_decision_function(X) if hasattr(model, "classes_")
                        else model.staged_predict(X))
    per_tree = []
    for m, learners in enumerate(np.asarray(model.estimators_, dtype=object)):
        F_prev = stages[m]
        if loss.vector:
            p = loss.predict_proba(F_prev)
            targets = [(Y[:, k] - p[:, k], np.ones(len(y))) for k in range(len(learners))]
        elif model.direction == "newton":
            g, h = loss.gradient(Y, F_prev), loss.hessian(Y, F_prev)
            targets = [(-g / h, h)]
        else:
            targets = [(-loss.gradient(Y, F_prev), np.ones(len(y)))]
        for learner, (z, w) in zip(np.ravel(learners), targets, strict=True):
            tree = learner.tree_
            if tree.node_count == 1:
                continue
            X_in = X.astype(np.float32) if isinstance(learner, DecisionTreeRegressor) else X
            paths = learner.decision_path(X_in).toarray().astype(bool) if hasattr(
                learner, "decision_path") else None
            if paths is None:  # HistTreeRegressor: walk each row down to its leaf
                paths = np.zeros((len(X), tree.node_count), dtype=bool)
                for i, x in enumerate(X):
                    node = 0
                    while True:
                        paths[i, node] = True
                        if tree.children_left[node] == -1:
                            break
                        left = _goes_left(tree, node, x[tree.feature[node]])
                        node = tree.children_left[node] if left else tree.children_right[node]
            influence = np.zeros(X.shape[1])
            for t in np.flatnonzero(tree.children_left != -1):
                left, right = tree.children_left[t], tree.children_right[t]
                W_l, W_r = w[paths[:, left]].sum(), w[paths[:, right]].sum()
                z_l = np.average(z[paths[:, left]], weights=w[paths[:, left]])
                z_r = np.average(z[paths[:, right]], weights=w[paths[:, right]])
                influence[tree.feature[t]] += W_l * W_r / (W_l + W_r) * (z_l - z_r) ** 2
            per_tree.append(influence / w.sum())
    mean = np.mean(per_tree, axis=0)
    return mean / mean.sum()


@pytest.mark.parametrize("case", ["regressor", "binary", "three classes", "hist newton"])
def test_relative_influence_equals_the_closed_form_from_the_data(case):
    """Including classifiers, whose leaves ``leaf_newton`` rewrote: the leaf values are then
    not the node means of the pseudo-response, and the influence must not read them."""
    classes = {"regressor": None, "binary": 2, "three classes": 3, "hist newton": 2}[case]
    X, y = small_data(n=300, d=5, seed=6, classes=classes)
    if case == "regressor":
        model = BoostingRegressor(n_estimators=12, random_state=0)
    elif case == "hist newton":
        model = BoostingClassifier(direction="newton", step="constant",
                                   learner=HistTreeRegressor(max_depth=3), n_estimators=12)
    else:
        model = BoostingClassifier(n_estimators=12, random_state=0)
    model.fit(X, y)
    by_hand = influence_by_hand(model, X, y)
    np.testing.assert_allclose(relative_influence(model), by_hand, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(relative_influence(model), model.feature_importances_,
                               rtol=0, atol=1e-12)
    if case == "binary":  # the node means the leaves no longer hold
        tree = model.estimators_[0].tree_
        leaves = np.flatnonzero(tree.children_left == -1)
        paths = model.estimators_[0].decision_path(X.astype(np.float32)).toarray().astype(bool)
        residual = y - expit(model.init_.predict(X))
        means = [residual[paths[:, leaf]].mean() for leaf in leaves]
        assert np.max(np.abs(tree.value[leaves, 0, 0] - means)) > 0.1


def test_relative_influence_of_hist_trees_is_gain_over_the_root_hessian():
    X, y = small_data(n=300, seed=7, classes=2)
    model = BoostingClassifier(direction="newton", step="constant",
                               learner=HistTreeRegressor(max_depth=3, l2_regularization=2.0),
                               n_estimators=10).fit(X, y)
    total = np.zeros(X.shape[1])
    for learner in model.estimators_:
        t = learner.tree_
        for node in np.flatnonzero(t.children_left != -1):
            total[t.feature[node]] += t.gain[node] / t.weighted_n_node_samples[0]
    np.testing.assert_allclose(relative_influence(model), total / total.sum(), rtol=1e-12)
