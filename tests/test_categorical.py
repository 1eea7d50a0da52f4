"""Categorical splits (chapter 8): the sorted scan is optimal at λ = 0, equals
scikit-learn's HistGradientBoosting, beats one-hot and ordinal codes where it
should, and refuses bad input by name."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingRegressor

from boostlib import BoostingClassifier, BoostingRegressor, HistTreeRegressor
from boostlib.trees import categorical
from boostlib.trees.splitting import gain


def exhaustive_best_gain(sum_wz, sum_w, lam):
    """max Δ over every binary partition of the categories (each counted once)."""
    K = len(sum_wz)
    best = 0.0
    for mask in range(1, 2 ** (K - 1)):  # category K−1 always right: each partition once
        left = np.array([(mask >> c) & 1 for c in range(K)], dtype=bool)
        best = max(best, gain(sum_wz[left].sum(), sum_w[left].sum(), sum_wz[~left].sum(),
                              sum_w[~left].sum(), lam))
    return best


@st.composite
def categorical_data(draw):
    K = draw(st.integers(2, 8))
    counts = draw(st.lists(st.integers(1, 4), min_size=K, max_size=K))
    codes = np.repeat(np.arange(K), counts)
    n = len(codes)
    y = np.array(draw(st.lists(st.floats(-10, 10, allow_nan=False), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.floats(0.05, 5), min_size=n, max_size=n)))
    nan_category = draw(st.booleans())  # the last category is NaN: a category of the scan
    x = codes.astype(float)
    if nan_category:
        x[codes == K - 1] = np.nan
    return x, y, w, codes


@settings(max_examples=150, deadline=None)
@given(categorical_data(), st.sampled_from([0.0, 0.5, 3.0]))
def test_sorted_scan_finds_the_best_of_all_partitions(data, lam):
    """Fisher (1958), Breiman et al. (1984, Theorem 4.5) at λ = 0, and (chapter 8) at any
    λ ≥ 0 when some partition has Δ > 0: the best of all 2^(K−1) − 1 partitions is a
    boundary of the order by G_c/H_c."""
    x, y, w, codes = data
    tree = HistTreeRegressor(max_depth=1, categorical_features=[0], min_child_weight=0.0,
                             l2_regularization=lam).fit(x[:, None], y, sample_weight=w)
    sum_wz = np.bincount(codes, w * y)
    sum_w = np.bincount(codes, w)
    best = exhaustive_best_gain(sum_wz, sum_w, lam)
    scale = np.sum(w * y * y) + 1.0
    if best <= 1e-9 * scale:  # no partition lowers the objective (up to rounding): no split
        return
    assert tree.tree_.node_count == 3
    assert tree.tree_.gain[0] == pytest.approx(best, rel=1e-9, abs=1e-9 * scale)
    # and the rows really are split that way: each category wholly on one side
    leaf = tree.apply(x[:, None])
    assert all(len(set(leaf[codes == c])) == 1 for c in range(len(sum_w)))
    left = np.array([leaf[codes == c][0] == 1 for c in range(len(sum_w))])
    assert gain(sum_wz[left].sum(), sum_w[left].sum(), sum_wz[~left].sum(),
                sum_w[~left].sum(), lam) == pytest.approx(best, rel=1e-9, abs=1e-9 * scale)


def test_sorting_by_smoothed_means_can_miss_the_best_partition():
    """Sorted by G_c/(H_c + s) with s = λ = 1, the best partition {0, 1} | {2} is not a
    boundary of the order (0, 2, 1); sorted by G_c/H_c it is, and is found."""
    sum_wz, sum_w, lam = np.array([5.9, 1.3, 3.4]), np.array([1.2, 0.6, 2.8]), 1.0
    hist = np.zeros((4, 3))
    hist[:3, 0], hist[:3, 1], hist[:3, 2] = sum_wz, sum_w, 1000.0  # many rows: none rare
    best = exhaustive_best_gain(sum_wz, sum_w, lam)
    assert best == pytest.approx(gain(7.2, 1.8, 3.4, 2.8, lam))

    def scan(smoothing):
        return categorical._best_split_of_categorical_feature(
            hist, 3, sum_wz.sum(), sum_w.sum(), 3000.0, 3, lam, 0.0, 1, smoothing)

    assert list(categorical.sorted_categories(hist, 3, 3, 3000.0, sum_w.sum(), 1.0)) == [0, 2, 1]
    assert scan(1.0)[0] < 0.6 * best
    assert scan(0.0)[0] == pytest.approx(best)


def sklearn_data(n=3000, seed=0):
    """Two categorical features (12 and 40 categories, some rare) and one numeric feature
    of 50 distinct values (one bin each in both libraries)."""
    rng = np.random.RandomState(seed)
    a = rng.randint(0, 12, n)
    b = np.minimum(rng.geometric(0.08, n) - 1, 39)  # rare categories in the tail
    x = rng.randint(0, 50, n) / 7.0
    y = (rng.randn(12)[a] + 0.5 * rng.randn(40)[b] + np.sin(x) + 0.3 * rng.randn(n))
    X = np.c_[a, b, x].astype(float)
    return X, y


def test_equals_scikit_learns_hist_gradient_boosting_with_its_smoothing():
    """scikit-learn sorts by G_c/(H_c + 10) and leaves categories under 10 rows out of
    the scan (on the right): ``categorical_smoothing=10``. Its gradients are float32,
    so the two agree to float32 rounding, not to the last bit. They could part on a
    fresh row whose category a node saw no rows of (here it goes where the node's
    missing values go, in scikit-learn right); no row of this fresh sample meets one."""
    X, y = sklearn_data()
    kwargs = dict(max_leaf_nodes=15, min_samples_leaf=20, l2_regularization=0.5)
    theirs = HistGradientBoostingRegressor(
        max_iter=30, learning_rate=0.2, early_stopping=False, categorical_features=[0, 1],
        **kwargs).fit(X, y)
    ours = BoostingRegressor(
        learner=HistTreeRegressor(categorical_features=[0, 1], categorical_smoothing=10.0,
                                  max_depth=None, **kwargs),
        direction="gradient", step="constant", n_estimators=30, learning_rate=0.2,
        random_state=0).fit(X, y)
    assert ours.predict(X) == pytest.approx(theirs.predict(X), rel=1e-5, abs=1e-5)
    X_fresh, _ = sklearn_data(seed=1)
    assert ours.predict(X_fresh) == pytest.approx(theirs.predict(X_fresh), rel=1e-5, abs=1e-5)
    n_categorical = sum(t.tree_.is_categorical.sum() for t in ours.estimators_)
    assert n_categorical > 30  # the categorical splits did take part


def test_without_smoothing_it_differs_from_scikit_learn_and_fits_the_training_set_better():
    X, y = sklearn_data()
    common = dict(max_leaf_nodes=15, min_samples_leaf=20)

    def ours(s):
        return BoostingRegressor(
            learner=HistTreeRegressor(categorical_features=[0, 1], categorical_smoothing=s,
                                      max_depth=None, **common),
            direction="gradient", step="constant", n_estimators=30, learning_rate=0.2,
            random_state=0).fit(X, y)

    exact, smoothed = ours(0.0), ours(10.0)
    assert not np.allclose(exact.predict(X), smoothed.predict(X))
    assert exact.train_loss_[1] <= smoothed.train_loss_[1]  # the first tree's greedy splits


def many_categories(n, seed):
    """40 categories whose effects are in no order related to their codes."""
    effect = np.random.RandomState(0).randn(40) * 1.5  # the same in every sample
    rng = np.random.RandomState(seed + 1)
    c = rng.randint(0, 40, n)
    x = rng.randn(n)
    y = (effect[c] + x + rng.randn(n) > 0).astype(int)
    return np.c_[c, x], y


def test_a_native_categorical_feature_beats_one_hot_and_ordinal_codes():
    """Depth-2 trees, 40 categories: a split on the ordinal codes can only cut the codes
    at one place, one-hot splits peel one category off at a time; the native split
    groups the categories by effect in one step."""
    X, y = many_categories(6000, 0)
    X_test, y_test = many_categories(20000, 1)

    def one_hot(X):
        return np.c_[np.eye(40)[X[:, 0].astype(int)], X[:, 1]]

    def log_loss(categorical_features, encode):
        model = BoostingClassifier(
            learner=HistTreeRegressor(max_depth=2, categorical_features=categorical_features),
            direction="newton", step="constant", n_estimators=30, learning_rate=0.3,
            random_state=0).fit(encode(X), y)
        p = np.clip(model.predict_proba(encode(X_test))[:, 1], 1e-12, 1 - 1e-12)
        return -np.mean(y_test * np.log(p) + (1 - y_test) * np.log(1 - p))

    native = log_loss([0], lambda X: X)
    ordinal = log_loss(None, lambda X: X)
    onehot = log_loss(None, one_hot)
    assert native < 0.97 * min(ordinal, onehot)


def test_indices_mask_names_and_from_dtype_pick_the_same_features():
    rng = np.random.RandomState(3)
    codes = rng.randint(0, 6, 400)
    x = rng.randn(400)
    y = np.array([0.0, 3.0, -1.0, 2.0, -2.0, 1.0])[codes] + x
    X = np.c_[x, codes]
    labels = np.array(["u", "v", "w", "x", "y", "z"])
    frame = pd.DataFrame({"x": x, "c": pd.Categorical(labels[codes])})
    strings = pd.DataFrame({"x": x, "c": labels[codes].astype(object)})
    reference = HistTreeRegressor(max_depth=3, categorical_features=[1]).fit(X, y).predict(X)
    for spec, data in [([False, True], X), (["c"], frame), ("from_dtype", frame),
                       ([1], strings)]:
        model = HistTreeRegressor(max_depth=3, categorical_features=spec).fit(data, y)
        assert np.array_equal(model.is_categorical_, [False, True])
        assert np.array_equal(model.predict(data), reference)
    # a DataFrame at predict is coded by the labels of fit, not by its own dtype's order
    shuffled = frame.assign(c=pd.Categorical(labels[codes], categories=labels[::-1]))
    model = HistTreeRegressor(max_depth=3, categorical_features="from_dtype").fit(frame, y)
    assert np.array_equal(model.predict(shuffled), reference)


def test_nan_and_unseen_categories_follow_the_missing_value_rule():
    rng = np.random.RandomState(4)
    codes = rng.randint(0, 5, 500).astype(float)
    y = np.array([0.0, 4.0, 0.0, 4.0, 2.0])[codes.astype(int)] + 0.1 * rng.randn(500)
    codes[rng.rand(500) < 0.2] = np.nan
    y[np.isnan(codes)] = 4.0  # NaN belongs with categories 1 and 3
    model = HistTreeRegressor(max_depth=1, categorical_features=[0]).fit(codes[:, None], y)
    left = model.apply(np.array([[1.0], [3.0], [np.nan]]))
    assert len(set(left)) == 1  # NaN scanned as a category: it joins 1 and 3
    unseen = model.apply(np.array([[7.0], [np.nan]]))
    assert unseen[0] == unseen[1]  # a category never seen in training goes where NaN goes
    # a node that saw no NaN and no rows of a category sends both to the heavier child
    heavy = np.r_[np.zeros(300), np.ones(100)]
    model = HistTreeRegressor(max_depth=1, categorical_features=[0]).fit(
        heavy[:, None], np.r_[np.zeros(300), np.ones(100)])
    assert model.predict(np.array([[np.nan], [5.0]])) == pytest.approx([0.0, 0.0])


@pytest.mark.filterwarnings("error")
def test_an_unseen_label_in_a_dataframe_is_coded_as_missing_without_a_warning():
    rng = np.random.RandomState(5)
    labels = np.array(["u", "v", "w", "x"])
    codes = rng.randint(0, 4, 400)
    y = np.array([0.0, 3.0, -1.0, 2.0])[codes] + 0.1 * rng.randn(400)
    for column in (pd.Categorical(labels[codes]), labels[codes].astype(object)):
        model = HistTreeRegressor(max_depth=2, categorical_features=[0]).fit(
            pd.DataFrame({"c": column}), y)
        fresh = ["v", "new", None, "u", "other"]
        for unseen in (pd.Categorical(fresh), np.array(fresh, dtype=object)):
            coded = categorical.category_codes(pd.DataFrame({"c": unseen}), model.binner_.labels)
            np.testing.assert_array_equal(coded["c"], [1.0, np.nan, np.nan, 0.0, np.nan])
            missing = pd.DataFrame({"c": np.array(["v", None, None, "u", None], dtype=object)})
            np.testing.assert_array_equal(model.predict(pd.DataFrame({"c": unseen})),
                                          model.predict(missing))


@pytest.mark.parametrize("bad, message", [
    (-1.0, "categorical feature 0 holds -1.0: categories must be coded as non-negative "
           "integers"),
    (2.5, "categorical feature 0 holds 2.5: categories must be coded as non-negative "
          "integers"),
])
def test_negative_and_non_integer_codes_raise_at_fit_and_at_predict(bad, message):
    X = np.arange(20, dtype=float)[:, None] % 4
    y = X[:, 0]
    model = HistTreeRegressor(categorical_features=[0])
    with pytest.raises(ValueError, match=message):
        model.fit(np.r_[X, [[bad]]], np.r_[y, 0.0])
    model.fit(X, y)
    with pytest.raises(ValueError, match=message):
        model.predict(np.array([[1.0], [bad]]))


def test_more_categories_than_max_bins_raise_naming_both():
    X = np.arange(40, dtype=float)[:, None]
    with pytest.raises(ValueError, match="categorical feature 0 has 40 categories, more "
                                         "than max_bins=32"):
        HistTreeRegressor(max_bins=32, categorical_features=[0]).fit(X, X[:, 0])
    HistTreeRegressor(max_bins=40, categorical_features=[0]).fit(X, X[:, 0])  # 40 fit


@pytest.mark.parametrize("spec, X, message", [
    ("from_dtype", np.zeros((4, 2)), "categorical_features='from_dtype' reads the dtypes"),
    (["a"], np.zeros((4, 2)), "categorical_features names columns, but X has no column"),
    ([2], np.zeros((4, 2)), "must be in \\[0, n_features - 1\\]"),
    ([True], np.zeros((4, 2)), "must have shape \\(n_features,\\)"),
    ("yes", np.zeros((4, 2)), "categorical_features must be None, 'from_dtype'"),
])
def test_bad_categorical_features_raise(spec, X, message):
    with pytest.raises(ValueError, match=message):
        HistTreeRegressor(categorical_features=spec).fit(X, np.arange(4.0))


def test_boosting_estimators_take_numeric_codes_by_index_and_by_name():
    X, y = many_categories(2000, 5)
    model = BoostingClassifier(learner=HistTreeRegressor(categorical_features=[0]),
                               direction="newton", step="leaf_newton", n_estimators=5,
                               n_iter_no_change=3, random_state=0).fit(X, y)
    assert model.binner_.categories_[0] is not None
    assert any(t.tree_.is_categorical.any() for t in model.estimators_)
    # predict bins fresh rows as training did: the same as each tree on its own
    tree = model.estimators_[0]
    assert np.array_equal(tree.predict(X), tree.predict(model.binner_.transform(X)))
    # a DataFrame reaches the learner as it is, so its columns can be named
    frame = pd.DataFrame({"c": X[:, 0], "x": X[:, 1]})
    by_index, by_name = (BoostingRegressor(learner=HistTreeRegressor(categorical_features=spec),
                                           n_estimators=3, random_state=0).fit(data, y)
                         for spec, data in (([0], X), (["c"], frame)))
    assert by_name.binner_.categories_[0] is not None
    assert np.array_equal(by_name.predict(frame), by_index.predict(X))


def test_the_bitset_holds_exactly_the_left_bins():
    table = np.zeros(256, dtype=bool)
    table[[0, 31, 32, 200, 255]] = True
    bitset = categorical.to_bitset(table)
    assert bitset.dtype == np.uint32 and bitset.shape == (8,)
    assert [categorical.in_bitset(bitset, b) for b in range(256)] == list(table)


def test_a_tree_with_categorical_splits_refuses_treeshap_and_raw_walks():
    from boostlib.explain import shap_values

    X, y = many_categories(500, 6)
    model = BoostingRegressor(learner=HistTreeRegressor(categorical_features=[0]),
                              n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="has categorical splits"):
        shap_values(model, X[:5])
    with pytest.raises(ValueError, match="reads X binned"):
        model.estimators_[0].tree_.apply(X)


def test_the_exhaustive_reference_on_two_categories_is_their_one_split():
    sum_wz, sum_w = np.array([1.0, -2.0]), np.array([1.0, 2.0])
    assert exhaustive_best_gain(sum_wz, sum_w, 0.0) == gain(1.0, 1.0, -2.0, 2.0, 0.0)


THREADS = """
import hashlib, json
import numpy as np
from boostlib import BoostingClassifier, HistTreeRegressor

ARRAYS = ("feature", "is_categorical", "left_set", "missing_left", "children_left",
          "children_right", "value", "gain", "weighted_n_node_samples")


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


rng = np.random.RandomState(0)
n = 150_000  # above 4 × PARALLEL_PARTITION_ROWS: two threads share the partitions
X = np.c_[rng.randint(0, 60, n), rng.randint(0, 7, n), rng.randn(n), rng.randint(0, 200, n)]
X = X.astype(float)
X[rng.rand(n) < 0.05, 0] = np.nan
effect = rng.randn(200)
y = (effect[X[:, 3].astype(int)] + np.nan_to_num(X[:, 0] % 3) + X[:, 2] + rng.randn(n) > 0)
X_fresh = X[:20_000].copy()
X_fresh[:100, 3] = 500  # never seen: the missing-value rule


def results(n_jobs):
    model = BoostingClassifier(
        direction="newton", step="constant", n_estimators=4, random_state=0,
        learner=HistTreeRegressor(max_leaf_nodes=16, categorical_features=[0, 1, 3],
                                  l2_regularization=1.0, n_jobs=n_jobs)).fit(X, y)
    return [digest(*[getattr(t.tree_, a) for t in model.estimators_ for a in ARRAYS]),
            digest(model.decision_function(X_fresh)),
            int(sum(t.tree_.is_categorical.sum() for t in model.estimators_))]


print(json.dumps({k: results(k) for k in (1, 2, 4)}))
"""


def test_the_same_categorical_model_on_one_two_and_four_threads():
    """As tests/test_threads.py: one process with a pool of 4 threads; the categorical
    scan (one feature per thread), the partition by a left set and the prediction
    through bitsets give the same model to the bit."""
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NUMBA_NUM_THREADS="4", PYTHONPATH=os.pathsep.join(
        [str(root)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    run = subprocess.run([sys.executable, "-c", THREADS], capture_output=True, text=True,
                         env=env, cwd=root, timeout=900)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["1"] == out["2"] == out["4"]
    assert out["1"][2] > 10  # categorical splits were made


def test_a_validation_set_of_ones_own_is_binned_by_the_training_categories():
    """X_val goes through the training binner: its categories get the training bins, and a
    category training never saw follows the missing-value rule (no error)."""
    X, y = many_categories(3000, 7)
    X_val, y_val = many_categories(1000, 8)
    X_val[:50, 0] = 99  # never seen in training
    model = BoostingClassifier(learner=HistTreeRegressor(categorical_features=[0]),
                               direction="newton", step="constant", n_estimators=200,
                               n_iter_no_change=3, random_state=0)
    model.fit(X, y, X_val=X_val, y_val=y_val)
    assert model.n_estimators_ < 200
    assert np.array_equal(model.binner_.transform(X_val).bins[0][:50], np.full(50, 255))
    missing = model.predict_proba(np.c_[[np.nan], X_val[50:51, 1]])
    unseen = model.predict_proba(np.c_[[99.0], X_val[50:51, 1]])
    assert np.array_equal(missing, unseen)


def test_with_smoothing_a_rare_category_stays_out_of_the_scan_on_the_right():
    """scikit-learn's rule: a category under s rows (here 3 < 10) is not scanned and goes
    right, however extreme its mean; with s = 0 its mean puts it with the high ones."""
    codes = np.r_[np.repeat([0, 1, 2, 3], 100), [4, 4, 4]].astype(float)[:, None]
    y = np.r_[np.repeat([0.0, 0.0, 5.0, 5.0], 100), [9.0, 9.0, 9.0]]
    probe = np.arange(5.0)[:, None]
    exact = HistTreeRegressor(max_depth=1, categorical_features=[0]).fit(codes, y)
    smoothed = HistTreeRegressor(max_depth=1, categorical_features=[0],
                                 categorical_smoothing=10.0).fit(codes, y)
    leaf = exact.apply(probe)
    assert leaf[4] == leaf[2] == leaf[3] != leaf[0]
    leaf = smoothed.apply(probe)
    assert leaf[4] == 2  # right, whatever its mean: here with the low categories
    assert leaf[0] == leaf[1] != leaf[2] == leaf[3]


def test_with_monotone_constraints_column_subsampling_and_sparse_x():
    """Categorical features next to the other options: a monotone constraint on a numeric
    feature holds with categorical splits in the tree, and one on a categorical feature is
    refused; column subsampling draws categorical features too and repeats itself; a sparse
    X gives the same model as its dense copy."""
    from scipy import sparse

    rng = np.random.RandomState(9)
    codes = rng.randint(0, 12, 3000).astype(float)
    x = rng.randn(3000)
    y = np.sin(3 * x) + x + rng.randn(12)[codes.astype(int)] + 0.3 * rng.randn(3000)
    X = np.c_[codes, x]
    model = BoostingRegressor(
        learner=HistTreeRegressor(categorical_features=[0], monotonic_cst=[0, 1],
                                  max_leaf_nodes=8, max_depth=None),
        step="constant", n_estimators=20, random_state=0).fit(X, y)
    assert any(t.tree_.is_categorical.any() for t in model.estimators_)
    grid = np.linspace(-3, 3, 200)
    for c in range(12):
        f = model.predict(np.c_[np.full(200, float(c)), grid])
        assert np.all(np.diff(f) >= 0)
    with pytest.raises(ValueError, match="monotonic_cst constrains feature 0, which is "
                                         "categorical"):
        HistTreeRegressor(categorical_features=[0], monotonic_cst=[1, 0]).fit(X, y)

    def subsampled():
        return BoostingRegressor(
            learner=HistTreeRegressor(categorical_features=[0], max_features=0.5),
            n_estimators=10, random_state=3).fit(X, y)

    first, second = subsampled(), subsampled()
    assert np.array_equal(first.predict(X), second.predict(X))
    assert any(t.tree_.is_categorical.any() for t in first.estimators_)

    X_sparse = X.copy()
    X_sparse[rng.rand(3000) < 0.5, 1] = 0.0
    dense = HistTreeRegressor(max_depth=4, categorical_features=[0]).fit(X_sparse, y)
    for matrix in (sparse.csr_matrix, sparse.csc_matrix):
        fitted = HistTreeRegressor(max_depth=4, categorical_features=[0]).fit(
            matrix(X_sparse), y)
        assert np.array_equal(fitted.predict(matrix(X_sparse)), dense.predict(X_sparse))
        assert np.array_equal(fitted.tree_.left_set, dense.tree_.left_set)
