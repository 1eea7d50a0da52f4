r"""Loss curves: the mean loss after every boosting stage, and a plot of it.

Chapters 3–7 all draw the same picture: the mean loss
``(1/N) Σ_i L(y_i, F_m(x_i))`` of a fitted estimator against the stage ``m``,
on the training data (falling) and on held-out data (falling, then flat or
rising once the model overfits). :func:`staged_loss` computes the curve from
the estimator's raw scores ``F_m``; :func:`plot_staged_loss` draws it on a
matplotlib ``Axes`` the caller owns (this module imports no plotting library).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier

from .boosting import loss_targets

__all__ = ["loss_targets", "plot_staged_loss", "staged_loss"]


def staged_loss(estimator, X, y):
    """Mean loss ``(1/N) Σ_i L(y_i, F_m(x_i))`` after every stage ``m = 1 … M``.

    ``F_m`` is the raw score: ``staged_decision_function`` for a classifier,
    ``staged_predict`` for a regressor; ``L`` is the fitted ``estimator.loss_``
    with ``y`` mapped by :func:`loss_targets`, unweighted, over every row given.
    On the training data of a fit without sample weights and without a held-out
    validation split this is ``estimator.train_loss_[1:]`` (``train_loss_[0]``
    is the loss of ``F_0``); ``train_loss_`` is the weighted mean over the rows
    the fit trained on.

    Returns
    -------
    ndarray of shape (n_estimators_,)
    """
    loss = estimator.loss_
    Y = loss_targets(estimator, y)
    staged = (estimator.staged_decision_function(X) if is_classifier(estimator)
              else estimator.staged_predict(X))
    return np.array([loss.mean(Y, np.reshape(F, Y.shape)) for F in staged])


def plot_staged_loss(ax, train, test=None, *, label=None, start=1):
    """Draw loss curves against the stage ``m`` on ``ax``.

    ``train`` is drawn as a solid line; ``test``, if given, as a dashed line in
    the same colour, so several estimators can share one ``Axes``. Their first
    values belong to stage ``start``: 1 for :func:`staged_loss`, 0 for
    ``estimator.train_loss_`` (which starts with ``F_0``). The legend entries
    are ``"<label> train"`` and ``"<label> test"`` (``"train"``, ``"test"``
    without a label). Sets the axis labels; the caller adds the legend.

    Returns
    -------
    list of matplotlib Line2D, the lines drawn (one or two)
    """
    prefix = "" if label is None else f"{label} "
    train = np.asarray(train, dtype=float)
    (line,) = ax.plot(np.arange(start, start + len(train)), train, label=f"{prefix}train")
    lines = [line]
    if test is not None:
        test = np.asarray(test, dtype=float)
        lines += ax.plot(np.arange(start, start + len(test)), test, linestyle="--",
                         color=line.get_color(), label=f"{prefix}test")
    ax.set_xlabel("stage $m$")
    ax.set_ylabel("mean loss")
    return lines
