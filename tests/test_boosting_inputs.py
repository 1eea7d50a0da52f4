"""What the boosting estimators take as ``X``: DataFrames with category columns and sparse
matrices reach a learner that bins as they are; scikit-learn's trees take sparse ``X``."""

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.tree import DecisionTreeRegressor

from boostlib import BoostingClassifier, BoostingRegressor, HistTreeRegressor

LABELS = np.array(["u", "v", "w", "x", "y", "z", "zz"])


def frame_and_codes(n, seed):
    """A DataFrame with a string-labelled category column (labels sorted, so the codes are
    the labels' positions), a numeric column, and the same data as codes in an array."""
    rng = np.random.RandomState(seed)
    codes = rng.randint(0, len(LABELS), n)
    x = rng.randn(n)
    x[rng.rand(n) < 0.05] = np.nan
    effect = np.array([1.5, -2.0, 0.3, 2.0, -0.7, 0.0, -1.2])
    y = (effect[codes] + np.nan_to_num(x) + rng.randn(n) > 0).astype(int)
    frame = pd.DataFrame({"x": x, "c": pd.Categorical(LABELS[codes], categories=LABELS)})
    return frame, np.c_[x, codes.astype(float)], y


# a label training never saw becomes NaN, with no warning from pandas
@pytest.mark.filterwarnings("error")
def test_a_dataframe_with_a_category_column_is_the_fit_on_its_codes():
    frame, X, y = frame_and_codes(1500, 0)
    frame_test, X_test, _ = frame_and_codes(500, 1)
    kwargs = dict(n_estimators=15, random_state=0, subsample=0.8)
    ours = BoostingClassifier(learner=HistTreeRegressor(categorical_features="from_dtype"),
                              **kwargs).fit(frame, y)
    codes = BoostingClassifier(learner=HistTreeRegressor(categorical_features=[1]),
                               **kwargs).fit(X, y)
    assert ours.feature_names_in_.tolist() == ["x", "c"] and ours.n_features_in_ == 2
    assert not hasattr(codes, "feature_names_in_")
    assert ours.binner_.categories_[1] is not None
    assert any(t.tree_.is_categorical.any() for t in ours.estimators_)
    for data, data_codes in ((frame, X), (frame_test, X_test)):
        np.testing.assert_array_equal(ours.decision_function(data),
                                      codes.decision_function(data_codes))
        np.testing.assert_array_equal(ours.predict_proba(data), codes.predict_proba(data_codes))
        np.testing.assert_array_equal(ours.predict(data), codes.predict(data_codes))
        for a, b in zip(ours.staged_predict_proba(data), codes.staged_predict_proba(data_codes),
                        strict=True):
            np.testing.assert_array_equal(a, b)
    # a label training never saw follows the missing-value rule, as NaN does
    unseen = frame_test.head(5).copy()
    unseen["c"] = pd.Categorical(["new"] * 5)
    missing = X_test[:5].copy()
    missing[:, 1] = np.nan
    np.testing.assert_array_equal(ours.decision_function(unseen),
                                  codes.decision_function(missing))


def test_early_stopping_on_a_dataframe_and_on_a_given_dataframe_x_val():
    frame, X, y = frame_and_codes(2000, 2)
    kwargs = dict(n_estimators=300, learning_rate=0.5, n_iter_no_change=3, random_state=0)
    # the hold-out split of a DataFrame is the split of its codes' array
    ours = BoostingClassifier(learner=HistTreeRegressor(categorical_features="from_dtype"),
                              **kwargs).fit(frame, y)
    codes = BoostingClassifier(learner=HistTreeRegressor(categorical_features=[1]),
                               **kwargs).fit(X, y)
    assert ours.n_estimators_ == codes.n_estimators_ < 300
    np.testing.assert_array_equal(ours.decision_function(frame), codes.decision_function(X))
    # X_val given as a DataFrame, binned with the training binner
    given = BoostingClassifier(learner=HistTreeRegressor(categorical_features="from_dtype"),
                               **kwargs).fit(frame[:1500], y[:1500], X_val=frame[1500:],
                                             y_val=y[1500:])
    given_codes = BoostingClassifier(learner=HistTreeRegressor(categorical_features=[1]),
                                     **kwargs).fit(X[:1500], y[:1500], X_val=X[1500:],
                                                   y_val=y[1500:])
    assert given.n_estimators_ == given_codes.n_estimators_ < 300
    np.testing.assert_array_equal(given.decision_function(frame), given_codes.decision_function(X))


def sparse_data(seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(800, 5)
    X[rng.rand(800, 5) < 0.7] = 0.0
    y = X[:, 0] - 2 * X[:, 1] + X[:, 2] * X[:, 3] + 0.3 * rng.randn(800)
    return X[:600], y[:600], X[600:]


@pytest.mark.parametrize("to_format", [sparse.csr_matrix, sparse.csc_matrix])
@pytest.mark.parametrize("kwargs", [{}, {"subsample": 0.7, "n_iter_no_change": 2},
                                    {"step": "line_search", "init": "learner"}])
def test_sparse_x_gives_the_dense_fit_with_hist_trees(to_format, kwargs):
    """HistTreeRegressor bins a sparse X to the dense X's bins: the very same model."""
    X, y, X_test = sparse_data()
    dense = BoostingRegressor(learner=HistTreeRegressor(max_depth=3), n_estimators=20,
                              random_state=0, **kwargs).fit(X, y)
    ours = BoostingRegressor(learner=HistTreeRegressor(max_depth=3), n_estimators=20,
                             random_state=0, **kwargs).fit(to_format(X), y)
    assert ours.n_estimators_ == dense.n_estimators_
    for data in (X, X_test):
        np.testing.assert_array_equal(ours.predict(to_format(data)), dense.predict(data))
        np.testing.assert_array_equal(ours.predict(data), dense.predict(data))


@pytest.mark.parametrize("to_format", [sparse.csr_matrix, sparse.csc_matrix])
@pytest.mark.parametrize("kwargs", [{}, {"subsample": 0.7, "n_iter_no_change": 2}])
def test_sparse_x_with_scikit_learn_trees_is_scikit_learns_sparse_fit(to_format, kwargs):
    """With DecisionTreeRegressor a sparse X gives GradientBoostingRegressor's fit on it.

    scikit-learn's sparse splitter can order two equally good splits differently from
    its dense one (on these data, stage 11 of 20), so the sparse fit is compared with
    scikit-learn's sparse fit (equal) and with the dense fit (close).
    """
    X, y, X_test = sparse_data()
    ours = BoostingRegressor(learner=DecisionTreeRegressor(max_depth=3), n_estimators=20,
                             random_state=0, **kwargs).fit(to_format(X), y)
    theirs = GradientBoostingRegressor(max_depth=3, n_estimators=20, random_state=0,
                                       **kwargs).fit(to_format(X), y)
    dense = BoostingRegressor(learner=DecisionTreeRegressor(max_depth=3), n_estimators=20,
                              random_state=0, **kwargs).fit(X, y)
    assert ours.n_estimators_ == theirs.n_estimators_
    for data in (X, X_test):
        np.testing.assert_array_equal(ours.predict(to_format(data)),
                                      theirs.predict(to_format(data)))
        np.testing.assert_allclose(ours.predict(data), dense.predict(data), rtol=0, atol=0.5)


def test_sparse_x_and_a_sparse_x_val_for_a_classifier():
    rng = np.random.RandomState(1)
    X = rng.randn(800, 4)
    X[rng.rand(800, 4) < 0.6] = 0.0
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    kwargs = dict(learner=HistTreeRegressor(), n_estimators=50, n_iter_no_change=2,
                  random_state=0)
    dense = BoostingClassifier(**kwargs).fit(X[:600], y[:600], X_val=X[600:], y_val=y[600:])
    ours = BoostingClassifier(**kwargs).fit(sparse.csr_matrix(X[:600]), y[:600],
                                            X_val=sparse.csc_matrix(X[600:]), y_val=y[600:])
    assert ours.n_estimators_ == dense.n_estimators_
    np.testing.assert_array_equal(ours.predict_proba(sparse.csr_matrix(X)), dense.predict_proba(X))


def test_bad_x_is_refused_clearly():
    frame, X, y = frame_and_codes(200, 3)
    with pytest.raises(ValueError, match="non-numeric columns.*categorical_features='from_dtype'"):
        BoostingClassifier(n_estimators=2).fit(frame, y)
    with pytest.raises(ValueError, match="non-numeric columns.*does not treat as categorical"):
        BoostingClassifier(learner=HistTreeRegressor(), n_estimators=2).fit(frame, y)
    with pytest.raises(TypeError, match="Sparse data"):
        BoostingRegressor(learner=Ridge(), step="line_search",
                          n_estimators=2).fit(sparse.csr_matrix(X[:, [1]]), y)
    model = BoostingClassifier(learner=HistTreeRegressor(categorical_features="from_dtype"),
                               n_estimators=2).fit(frame, y)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame[["c", "x"]].rename(columns={"c": "a", "x": "b"}))
    with pytest.raises(ValueError, match="missing:\n- c"):
        model.predict(frame[["x"]])
    with pytest.raises(ValueError, match="X has 1 features, but BoostingClassifier is "
                       "expecting 2"), pytest.warns(UserWarning, match="valid feature names"):
        model.predict(X[:, :1])
    inf = frame.copy()
    inf.loc[0, "x"] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.predict(inf)
    with pytest.raises(ValueError, match="X_val"):
        BoostingClassifier(learner=HistTreeRegressor(categorical_features="from_dtype"),
                           n_estimators=2, n_iter_no_change=1).fit(
            frame, y, X_val=frame[["x"]], y_val=y)


def test_a_numeric_dataframe_is_the_array_fit():
    rng = np.random.RandomState(4)
    X = rng.randn(300, 3)
    y = X[:, 0] + rng.randn(300)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    for learner in (HistTreeRegressor(), DecisionTreeRegressor(max_depth=3)):
        ours = BoostingRegressor(learner=learner, n_estimators=10, random_state=0).fit(frame, y)
        plain = BoostingRegressor(learner=learner, n_estimators=10, random_state=0).fit(X, y)
        assert ours.feature_names_in_.tolist() == ["a", "b", "c"]
        np.testing.assert_array_equal(ours.predict(frame), plain.predict(X))


def test_nan_in_a_sparse_x_reaches_hist_trees_but_not_scikit_learns():
    """scikit-learn's trees take NaN in a dense X only; HistTreeRegressor in either."""
    rng = np.random.RandomState(6)
    X = rng.randn(200, 3)
    X[rng.rand(200, 3) < 0.5] = 0.0
    X[:10, 0] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.randn(200)
    ours = BoostingRegressor(learner=HistTreeRegressor(), n_estimators=5, random_state=0)
    dense = BoostingRegressor(learner=HistTreeRegressor(), n_estimators=5, random_state=0)
    np.testing.assert_array_equal(ours.fit(sparse.csr_matrix(X), y).predict(X),
                                  dense.fit(X, y).predict(X))
    BoostingRegressor(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        BoostingRegressor(n_estimators=2).fit(sparse.csr_matrix(X), y)
