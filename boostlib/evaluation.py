r"""What the *Newton Boosting* post computes after training: a threshold, a confusion table,
scores (chapter 4).

Its R code (``nbm_v0``) turns the raw score ``F`` into a class with a threshold
``t`` chosen on the training data, and reports accuracy and the scores of its
``binaryEvalMetric`` on train and test (here precision, recall and F1), the test
score accumulated tree by tree. Its
helpers ``F1score`` and ``binaryEvalMetric`` are not in the text; these are
they, with scikit-learn's metrics underneath.

**The threshold rule.** The R code predicts ``ifelse(F < t, -1, 1)``, so a score
*at* the threshold is positive:

.. math::

   \hat y = \text{positive} \iff F \ge \texttt{t} .

Every function here keeps that convention (:func:`predict_with_threshold`).
With ``t = 0`` it is a classifier's own ``predict``, which calls ``F ≥ 0``
positive, as scikit-learn's gradient boosting does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.metrics import (
    accuracy_score,
    confusion_matrix,
    f1_score,
    precision_score,
    recall_score,
)

__all__ = [
    "SEED_THRESHOLDS",
    "binary_report",
    "f1_optimal_threshold",
    "predict_with_threshold",
    "staged_scores",
    "staged_threshold_scores",
]

# The post's grid of thresholds: ``seq(from=-0.9, to=0.5, length.out=150)``. (The name
# is kept for the code that imports it; "seed" was this project's word for the post.)
SEED_THRESHOLDS = np.linspace(-0.9, 0.5, 150)


def predict_with_threshold(F, threshold, classes=(-1, 1)):
    """Classes from scores: ``classes[1]`` where ``F ≥ threshold``, else ``classes[0]``.

    The *Newton Boosting* post's rule ``ifelse(F < t, -1, 1)``; ``classes`` is
    ``(negative, positive)`` (for a fitted classifier, its ``classes_``).
    """
    negative, positive = classes
    return np.where(np.asarray(F) >= threshold, positive, negative)


def f1_optimal_threshold(y, F, thresholds=SEED_THRESHOLDS, pos_label=1):
    """The threshold ``t`` on the grid that maximises the F1 score of the rule ``F ≥ t``.

    The *Newton Boosting* post evaluates ``F1score(t, y, F)`` on 150 thresholds in
    ``[−0.9, 0.5]`` on the training data and keeps the first maximiser
    (R's ``which.max``); so does this. The F1 score is that of the class
    ``pos_label`` (scikit-learn's :func:`~sklearn.metrics.f1_score`), and it is
    0 when no sample is predicted positive.

    Parameters
    ----------
    y : array of shape (N,), the true labels
    F : array of shape (N,), raw scores; large means ``pos_label``
    thresholds : array of shape (n_thresholds,), the grid of candidate ``t``
    pos_label : the label of the positive class

    Returns
    -------
    threshold : float, the first grid value with the largest F1
    f1 : ndarray of shape (n_thresholds,), the F1 score at every grid value
    """
    y = np.asarray(y)
    F = np.asarray(F, dtype=float)
    thresholds = np.asarray(thresholds, dtype=float)
    if y.shape != F.shape or y.ndim != 1:
        raise ValueError(f"y and F must be 1-d of the same length, got {y.shape} and {F.shape}")
    if thresholds.ndim != 1 or thresholds.size == 0:
        raise ValueError("thresholds must be a non-empty 1-d array")
    # One column per threshold: scikit-learn scores every column of a multilabel
    # indicator matrix in one call, with the same formula as the binary f1_score.
    # A single column would be read as a binary target, hence the spare column.
    k = thresholds.size
    positive = np.repeat((y == pos_label)[:, None], k + 1, axis=1)
    predicted = F[:, None] >= np.append(thresholds, np.inf)[None, :]
    f1 = f1_score(positive, predicted, average=None, zero_division=0.0)[:k]
    return float(thresholds[np.argmax(f1)]), f1


def binary_report(y_true, y_pred, pos_label=1):
    """The post's ``binaryEvalMetric`` and its ``table``: scores and the confusion table.

    Returns
    -------
    dict with
        ``precision``, ``recall``, ``f1`` (of the class ``pos_label``) and
        ``accuracy``, as floats from scikit-learn's metrics, and
        ``confusion``, a :class:`pandas.DataFrame` of counts whose rows are
        the actual and whose columns the predicted labels (index name
        ``"actual"``, columns name ``"predicted"``), like R's
        ``table(y, pred)``. Every label in either array gets a row and a column.
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    labels = np.union1d(y_true, y_pred)
    table = pd.DataFrame(
        confusion_matrix(y_true, y_pred, labels=labels),
        index=pd.Index(labels, name="actual"),
        columns=pd.Index(labels, name="predicted"),
    )
    kwargs = {"pos_label": pos_label, "zero_division": 0.0}
    return {
        "precision": float(precision_score(y_true, y_pred, **kwargs)),
        "recall": float(recall_score(y_true, y_pred, **kwargs)),
        "f1": float(f1_score(y_true, y_pred, **kwargs)),
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "confusion": table,
    }


def staged_scores(estimator, X, y, metric=accuracy_score):
    """``metric(y, ŷ_m)`` after every stage ``m = 1 … M``, from ``estimator.staged_predict``.

    The last value is the score of the final model. For a classifier the
    prediction is its own (binary: ``F ≥ 0``); see
    :func:`staged_threshold_scores` for another threshold.

    Returns
    -------
    ndarray of shape (n_estimators_,)
    """
    return np.array([metric(y, pred) for pred in estimator.staged_predict(X)])


def staged_threshold_scores(estimator, X, y, threshold, metric=accuracy_score):
    """``metric(y, ŷ_m)`` after every stage with ``ŷ_m = classes_[1]`` where ``F_m ≥ threshold``.

    The *Newton Boosting* post's test evaluation: the scores of the trees accumulated one by one
    (``staged_decision_function``) and cut at the training F1 threshold.
    Binary classifiers only.

    Returns
    -------
    ndarray of shape (n_estimators_,)
    """
    classes = estimator.classes_
    if len(classes) != 2:
        raise ValueError(
            f"staged_threshold_scores needs a binary classifier, got classes {classes}"
        )
    return np.array([
        metric(y, predict_with_threshold(F, threshold, classes))
        for F in estimator.staged_decision_function(X)
    ])
