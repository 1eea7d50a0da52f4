"""Sparse X in HistTreeRegressor (chapter 8): binned without a dense copy, the same model."""

import numpy as np
import pytest
from scipy import sparse

from boostlib import HistTreeRegressor
from boostlib.trees import Binner, binning
from boostlib.trees.sparse import sparse_to_bins

FORMATS = [sparse.csr_matrix, sparse.csc_matrix, sparse.csr_array, sparse.coo_matrix]


def sparse_data(n=2000, d=6, density=0.1, seed=0):
    """Mostly zeros; stored values of both signs (a feature's zero bin is then inside its
    range), a few stored NaN and explicit zeros, a column with no stored value."""
    rng = np.random.RandomState(seed)
    X = sparse.random(n, d, density=density, format="csr", random_state=rng,
                      data_rvs=lambda k: np.round(rng.randn(k), rng.randint(0, 3)))
    X = X.tolil()
    X[:, d - 1] = 0  # a column of zeros only
    X[rng.randint(0, n, 20), 1] = np.nan
    X[rng.randint(0, n, 20), 2] = 0.0  # explicit zeros: stored but 0
    X = X.tocsr()
    dense = X.toarray()
    y = np.nan_to_num(dense[:, 0]) - 2 * (dense[:, 1] > 0.5) + 0.3 * rng.randn(n)
    return X, dense, y


@pytest.mark.parametrize("to_format", FORMATS)
def test_sparse_bins_are_the_dense_bins(to_format):
    X, dense, _ = sparse_data()
    binner = Binner(max_bins=16).fit(to_format(X))
    dense_binner = Binner(max_bins=16).fit(dense)
    for a, b in zip(binner.thresholds_, dense_binner.thresholds_, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(binner.transform(to_format(X)).bins,
                                  dense_binner.transform(dense).bins)


def test_a_sparse_subsample_places_the_dense_thresholds(monkeypatch):
    """Over SUBSAMPLE rows the same rows are drawn, sparse or dense; weights of 0 drop rows."""
    monkeypatch.setattr(binning, "SUBSAMPLE", 500)
    X, dense, _ = sparse_data(density=0.3)
    w = np.random.RandomState(1).rand(len(dense)) * (np.arange(len(dense)) % 3 > 0)
    a = Binner(max_bins=40, random_state=5).fit(X, w).thresholds_
    b = Binner(max_bins=40, random_state=5).fit(dense, w).thresholds_
    for ta, tb in zip(a, b, strict=True):
        np.testing.assert_array_equal(ta, tb)


@pytest.mark.parametrize("to_format", FORMATS)
@pytest.mark.parametrize("max_leaf_nodes", [None, 12])
def test_a_tree_fitted_to_sparse_X_is_the_dense_tree(to_format, max_leaf_nodes):
    X, dense, y = sparse_data(seed=2)
    w = np.random.RandomState(3).rand(len(y))
    ours = HistTreeRegressor(max_depth=5, max_leaf_nodes=max_leaf_nodes, max_bins=32)
    ours.fit(to_format(X), y, sample_weight=w)
    plain = HistTreeRegressor(max_depth=5, max_leaf_nodes=max_leaf_nodes, max_bins=32)
    plain.fit(dense, y, sample_weight=w)
    for name in ("feature", "threshold", "missing_left", "value", "gain"):
        np.testing.assert_array_equal(getattr(ours.tree_, name), getattr(plain.tree_, name))
    X_fresh, dense_fresh, _ = sparse_data(n=500, seed=4)
    for rows, dense_rows in [(X, dense), (X_fresh, dense_fresh)]:
        np.testing.assert_array_equal(ours.predict(to_format(rows)), plain.predict(dense_rows))
        np.testing.assert_array_equal(ours.apply(to_format(rows)), plain.apply(dense_rows))
    np.testing.assert_array_equal(ours.fit_predict(to_format(X), y), plain.fit_predict(dense, y))


def test_bin_takes_sparse_X_and_never_makes_it_dense(monkeypatch):
    """Neither the binner nor the tree calls ``toarray`` on the whole matrix: only single
    columns of the thresholds' subsample are made dense."""
    X, dense, y = sparse_data()
    widths = []
    original = sparse.csc_matrix.toarray

    def watched(self, *args, **kwargs):
        widths.append(self.shape[1])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(sparse.csc_matrix, "toarray", watched)
    monkeypatch.setattr(sparse.csr_matrix, "toarray", watched)
    tree = HistTreeRegressor(max_depth=3)
    binned = tree.bin(X)
    tree.fit(X, y).predict(X)
    assert set(widths) == {1}
    np.testing.assert_array_equal(binned.bins, tree.bin(dense).bins)


def test_zero_bin_is_the_count_of_negative_thresholds():
    thresholds = np.array([[-1.0, -0.5, 0.0, 2.0]])
    X = sparse.csc_matrix(np.array([[0.0], [-0.7], [0.0], [5.0], [np.nan], [-3.0]]))
    bins = sparse_to_bins(X, thresholds, np.array([4]), 255)
    # s(x) = #{θ < x}: 0 has two thresholds below it (0 itself is not below 0)
    assert bins[0].tolist() == [2, 1, 2, 4, 255, 0]


def test_sparse_X_with_inf_is_refused_naming_X():
    X, _, y = sparse_data()
    X = X.copy()
    X.data[0] = np.inf
    with pytest.raises(ValueError, match="X"):
        HistTreeRegressor().fit(X, y)
