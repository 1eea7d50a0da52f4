"""Column subsampling in HistTreeRegressor (chapter 8): ``max_features``, drawn per node."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boostlib import BoostingRegressor, HistTreeRegressor
from boostlib.trees.column_subsampling import features_of_node, n_features_drawn

ROOT = Path(__file__).resolve().parents[1]


def data(n=600, d=8, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = X @ np.linspace(1, 2, d) + rng.randn(n)
    return X, y


def test_the_count_is_scikit_learns():
    """``max(1, ⌈φ d⌉)``, as HistGradientBoosting's splitter counts."""
    assert [n_features_drawn(phi, 10) for phi in (0.01, 0.1, 0.15, 0.5, 0.99, 1.0)] == \
        [1, 1, 2, 5, 10, 10]


def test_each_node_draws_its_features_from_the_random_state():
    """Replaying the draws node by node, in the order the grower searches the nodes: each
    split's feature is among its node's drawn ones, and at the root it is the best of them
    (the stump grown on those columns alone)."""
    X, y = data()
    tree = HistTreeRegressor(max_depth=3, max_features=0.25, random_state=7).fit(X, y)
    replay = np.random.RandomState(7)
    t = tree.tree_
    depth = np.zeros(t.node_count, dtype=int)
    for k in range(t.node_count):  # children come after their parent
        if t.children_left[k] != -1:
            depth[t.children_left[k]] = depth[t.children_right[k]] = depth[k] + 1
    n_bins = tree.binner_.n_bins_
    # depth-wise growth makes the nodes level by level and searches every node that may
    # split as it is made: in the order of the node indices
    searched = [k for k in range(t.node_count) if depth[k] < 3 and t.n_node_samples[k] >= 2]
    for k in searched:
        drawn = features_of_node(n_bins, 0.25, replay) > 0
        assert drawn.sum() == 2
        if t.children_left[k] != -1:
            assert drawn[t.feature[k]]
    # the root: the best split among the two drawn features is a tree on those columns
    root_draw = features_of_node(n_bins, 0.25, np.random.RandomState(7)) > 0
    alone = HistTreeRegressor(max_depth=1).fit(X[:, root_draw], y).tree_
    assert np.flatnonzero(root_draw)[alone.feature[0]] == t.feature[0]
    assert alone.threshold[0] == t.threshold[0]


def test_a_random_state_repeats_the_tree_and_another_changes_it():
    X, y = data()
    fit = lambda seed: HistTreeRegressor(max_depth=4, max_features=0.3,  # noqa: E731
                                         random_state=seed).fit(X, y).tree_
    a, b, c = fit(0), fit(0), fit(1)
    for name in ("feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.feature, c.feature)


def test_boosting_draws_from_its_shared_random_state():
    """Inside a boosting fit each stage's tree draws from the estimator's random state: the
    same ``random_state``, the same model; another, another model; and the trees of one
    fit draw different features."""
    X, y = data(seed=1)
    fit = lambda seed: BoostingRegressor(  # noqa: E731
        n_estimators=20, random_state=seed,
        learner=HistTreeRegressor(max_depth=2, max_features=0.25)).fit(X, y)
    a, b, c = fit(3), fit(3), fit(4)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert np.abs(a.predict(X) - c.predict(X)).max() > 1e-3
    roots = {est.tree_.feature[0] for est in np.ravel(a.estimators_)}
    assert len(roots) > 2


def test_max_features_one_grows_the_very_same_tree_and_draws_nothing():
    X, y = data()
    rng = np.random.RandomState(0)
    state = rng.get_state()[1].copy()
    plain = HistTreeRegressor(max_depth=4).fit(X, y).tree_
    full = HistTreeRegressor(max_depth=4, max_features=1.0, random_state=rng).fit(X, y).tree_
    np.testing.assert_array_equal(plain.value, full.value)
    np.testing.assert_array_equal(rng.get_state()[1], state)


def test_fewer_features_make_weaker_trees():
    X, y = data(d=8)
    errors = [np.mean((HistTreeRegressor(max_depth=3, max_features=phi, random_state=0)
                       .fit(X, y).predict(X) - y) ** 2) for phi in (1.0, 0.125)]
    assert errors[1] > errors[0]


@pytest.mark.parametrize("bad", [0, 0.0, -0.5, 1.5, "sqrt", None, True])
def test_a_bad_max_features_is_named(bad):
    X, y = data()
    with pytest.raises(ValueError, match="max_features"):
        HistTreeRegressor(max_features=bad).fit(X, y)


FITS = """
import hashlib, json
import numpy as np
from boostlib import BoostingClassifier, HistTreeRegressor

rng = np.random.RandomState(0)
X = rng.randn(60_000, 9)
X[rng.rand(60_000, 9) < 0.05] = np.nan
y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1] * X[:, 2]) + rng.randn(60_000) > 0)


def digest(model):
    h = hashlib.sha256()
    for t in np.ravel(model.estimators_):
        for name in ("feature", "threshold", "value", "gain"):
            h.update(np.ascontiguousarray(getattr(t.tree_, name)).tobytes())
    return h.hexdigest()


out = {}
for n_jobs in (1, 2, 4):
    model = BoostingClassifier(
        direction="newton", step="constant", n_estimators=5, random_state=0,
        learner=HistTreeRegressor(max_depth=4, l2_regularization=1.0, max_features=0.5,
                                  monotonic_cst=[1, 0, 0, -1, 0, 0, 0, 0, 1],
                                  n_jobs=n_jobs)).fit(X, y)
    out[n_jobs] = digest(model)
print(json.dumps(out))
"""


def test_the_same_model_on_one_two_and_four_threads():
    """Column subsampling and monotone constraints together: the same trees to the bit on
    1, 2 and 4 threads (numba's pool set to 4 in a fresh process)."""
    env = dict(os.environ, NUMBA_NUM_THREADS="4", PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    run = subprocess.run([sys.executable, "-c", FITS], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=900)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["1"] == out["2"] == out["4"]
