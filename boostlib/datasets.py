"""The book's data: scikit-learn's bundled loaders and generators, split once.

Every chapter that trains on data gets it here, so that the same name always
means the same rows. Nothing is downloaded: every dataset ships with
scikit-learn or is generated from a seed.

==================  ==============================  =========================
name                source                          split (train / test)
==================  ==============================  =========================
``hastie``          ``make_hastie_10_2``, y in ±1   2000 / 10000 (ESL §10.1)
``friedman1``       ``make_friedman1``, noise 1     1000 / 1000
``breast_cancer``   ``load_breast_cancer``, y 0/1   70 % / 30 %, stratified
``diabetes``        ``load_diabetes``               70 % / 30 %
``iris``            ``load_iris``, 3 classes        70 % / 30 %, stratified
``wine``            ``load_wine``, 3 classes        70 % / 30 %, stratified
``digits``          ``load_digits``, 10 classes     70 % / 30 %, stratified
==================  ==============================  =========================
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn import datasets as skdata
from sklearn.model_selection import train_test_split

__all__ = ["DATASETS", "Split", "load_split", "one_hot"]


class Split(NamedTuple):
    """A train/test split: ``X_train, X_test, y_train, y_test``."""

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray


def _generated(X, y, n_train):
    return Split(X[:n_train], X[n_train:], y[:n_train], y[n_train:])


def _hastie(random_state):
    X, y = skdata.make_hastie_10_2(n_samples=12000, random_state=random_state)
    return _generated(X, y, 2000)


def _friedman1(random_state):
    X, y = skdata.make_friedman1(n_samples=2000, noise=1.0, random_state=random_state)
    return _generated(X, y, 1000)


def _bundled(loader, stratify):
    def load(random_state):
        X, y = loader(return_X_y=True)
        return Split(*train_test_split(
            X, y, test_size=0.3, random_state=random_state, stratify=y if stratify else None
        ))
    return load


DATASETS = {
    "hastie": _hastie,
    "friedman1": _friedman1,
    "breast_cancer": _bundled(skdata.load_breast_cancer, stratify=True),
    "diabetes": _bundled(skdata.load_diabetes, stratify=False),
    "iris": _bundled(skdata.load_iris, stratify=True),
    "wine": _bundled(skdata.load_wine, stratify=True),
    "digits": _bundled(skdata.load_digits, stratify=True),
}


def load_split(name, random_state=0):
    """The train/test :class:`Split` of dataset ``name`` (see the table above).

    ``random_state`` seeds the generator (``hastie``, ``friedman1``) or the
    shuffle of the split (bundled datasets).
    """
    if name not in DATASETS:
        raise ValueError(f"name={name!r} is not one of {sorted(DATASETS)}")
    return DATASETS[name](random_state)


def one_hot(y, n_classes=None):
    """Rows of the identity: class ``k`` becomes ``e_k``.

    This is the book's encoding of the Iris targets in the chapter on
    Damião's *Boosted Neural Networks*; the report does not specify one.
    """
    y = np.asarray(y)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer) or (y.size and y.min() < 0):
        raise ValueError("y must be a 1-d array of non-negative integer class codes")
    K = int(y.max()) + 1 if n_classes is None else n_classes
    return np.eye(K)[y]
