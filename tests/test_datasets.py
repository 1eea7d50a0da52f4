"""boostlib.datasets: every name gives the split its table promises; unknown names fail."""

import numpy as np
import pytest

from boostlib.datasets import DATASETS, load_split, one_hot

# name: (n_train, n_test, n_features, classes or None for regression)
TABLE = {
    "hastie": (2000, 10000, 10, [-1.0, 1.0]),
    "friedman1": (1000, 1000, 10, None),
    "breast_cancer": (398, 171, 30, [0, 1]),
    "diabetes": (309, 133, 10, None),
    "iris": (105, 45, 4, [0, 1, 2]),
    "wine": (124, 54, 13, [0, 1, 2]),
    "digits": (1257, 540, 64, list(range(10))),
}


def test_the_table_names_every_dataset():
    assert sorted(TABLE) == sorted(DATASETS)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_split_sizes_and_labels(name):
    n_train, n_test, d, classes = TABLE[name]
    split = load_split(name)
    assert split.X_train.shape == (n_train, d) and split.X_test.shape == (n_test, d)
    assert split.y_train.shape == (n_train,) and split.y_test.shape == (n_test,)
    if classes is None:
        return
    np.testing.assert_array_equal(np.unique(split.y_train), classes)
    if name != "hastie":  # bundled classification sets are stratified: the same class shares
        train = np.array([np.mean(split.y_train == c) for c in classes])
        test = np.array([np.mean(split.y_test == c) for c in classes])
        np.testing.assert_allclose(train, test, atol=2.0 / n_test)


@pytest.mark.parametrize("name", ["hastie", "iris"])
def test_random_state_seeds_the_split(name):
    a, b, c = load_split(name, 0), load_split(name, 0), load_split(name, 1)
    for left, right in zip(a, b, strict=True):
        np.testing.assert_array_equal(left, right)
    assert not np.array_equal(a.X_train, c.X_train)


def test_generated_splits_are_disjoint_rows_of_one_sample():
    """hastie: the first 2000 rows train, the other 10000 test (ESL §10.1)."""
    split = load_split("hastie")
    rows = {tuple(r) for r in split.X_train}
    assert not any(tuple(r) in rows for r in split.X_test)
    np.testing.assert_array_equal(split.y_train, np.where(
        (split.X_train**2).sum(axis=1) > 9.34, 1.0, -1.0))


def test_unknown_name_is_named():
    with pytest.raises(ValueError, match=r"name='mnist' is not one of \['breast_cancer'"):
        load_split("mnist")


def test_one_hot_rows_and_bad_codes():
    np.testing.assert_array_equal(one_hot([2, 0]), [[0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(one_hot([0], n_classes=2), [[1, 0]])
    for bad in ([-1, 0], [0.5], [[0, 1]]):
        with pytest.raises(ValueError, match="class codes"):
            one_hot(bad)
