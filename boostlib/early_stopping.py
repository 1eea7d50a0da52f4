r"""Early stopping: when the boosting loop ends before ``M`` stages (chapter 3).

One module, one idea. The loop of Algorithm 1 (:mod:`boostlib.boosting`) asks
a *rule* after every stage whether to stop; the rule keeps whatever history it
needs. Three rules, chosen by the estimators' parameters:

* :class:`ValidationLoss` (``n_iter_no_change`` set): scikit-learn's rule on
  a held-out part of the training data, made by :func:`hold_out`;
* :class:`TrainingLossChange` (only ``tol`` set): the rule of the *Newton
  Boosting* post's R code, on the training loss;
* :func:`never` (neither): all ``M`` stages are built.

A rule is called as ``rule(learner, rho, train_loss)`` with the stage's
fitted learner ``f(x; a_m)``, its step ``ρ_m`` and the mean training loss
after the stage, and returns True to stop. The stage is kept either way.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import train_test_split

__all__ = ["SKLEARN_DEVIANCE_FACTOR", "TrainingLossChange", "ValidationLoss", "hold_out",
           "never"]

# scikit-learn compares twice these losses (the old deviances) with tol when it
# stops early; boostlib does the same, so that n_iter_no_change matches it.
SKLEARN_DEVIANCE_FACTOR = {"squared_error": 2.0, "log_loss": 2.0}


def hold_out(X, Y, sample_weight, fraction, random_state, stratify=None):
    """Split off a validation set: ``(X, Y, s)`` to fit on and ``(X_val, Y_val, s_val)``.

    scikit-learn's split for ``n_iter_no_change``: ``train_test_split`` with
    ``test_size=fraction``, the estimator's ``random_state`` and, for a
    classifier, stratified by class. Sample weights (or None) are split with
    the rows. A ``ValueError`` if every row left to fit on has weight 0.
    """
    if sample_weight is None:
        X, X_val, Y, Y_val = train_test_split(X, Y, random_state=random_state,
                                              test_size=fraction, stratify=stratify)
        return (X, Y, None), (X_val, Y_val, None)
    # the same split (the same permutation), the weights split with it
    X, X_val, Y, Y_val, s, s_val = train_test_split(
        X, Y, sample_weight, random_state=random_state, test_size=fraction, stratify=stratify)
    if not np.sum(s) > 0:
        raise ValueError("sample_weight: every sample left for training after "
                         "the validation split has weight 0")
    return (X, Y, s), (X_val, Y_val, s_val)


class ValidationLoss:
    """scikit-learn's early stopping on a validation set (``n_iter_no_change = n``).

    After stage ``m`` the model on the held-out points moves by the stage's
    update, ``F_m = F_{m−1} + ν ρ_m f(x; a_m)``, and its loss ``V_m`` (the
    weighted mean, times 2 for squared error and the two-class log loss, as
    scikit-learn measures them; softmax and the other losses not doubled) is
    compared with the last ``n`` values kept. The fit goes on while
    ``V_m + tol`` is below at least one of them, that is below the largest;
    it stops at the first stage where ``V_m + tol`` is not below even
    the largest of the last ``n``. The first ``n`` stages are compared with
    ``+∞`` and never stop.

    Parameters
    ----------
    loss : Loss
    y, F : arrays
        The held-out targets and ``F_0`` there.
    sample_weight : array or None
        The held-out sample weights.
    stage_update : callable
        ``stage_update(learner, rho)``: the stage's update ``ν ρ_m f(x; a_m)``
        on the held-out points.
    n_iter_no_change : int
    tol : float
    """

    def __init__(self, loss, y, F, sample_weight, stage_update, n_iter_no_change, tol):
        self.loss, self.y, self.F, self.sample_weight = loss, y, F, sample_weight
        self.stage_update = stage_update
        self.scale = SKLEARN_DEVIANCE_FACTOR.get(loss.name, 1.0)
        self.last = np.full(n_iter_no_change, np.inf)  # the last n values, a ring
        self.tol = tol
        self.m = 0

    def __call__(self, learner, rho, train_loss):
        self.F = self.F + self.stage_update(learner, rho)
        value = self.scale * self.loss.mean(self.y, self.F, self.sample_weight)
        if np.any(value + self.tol < self.last):  # beats the worst of the last n: go on
            self.last[self.m % len(self.last)] = value
            self.m += 1
            return False
        return True


class TrainingLossChange:
    """The R code's rule: stop once the training loss changes by less than ``tol``.

    The *Newton Boosting* post stops when the summed training loss changes by
    less than ``1e-3`` from one stage to the next; with the mean loss that is
    ``tol = 1e-3 / N``. ``train_loss`` is the loss of ``F_0`` to start from.
    """

    def __init__(self, tol, train_loss):
        self.tol, self.previous = tol, train_loss

    def __call__(self, learner, rho, train_loss):
        stop = abs(train_loss - self.previous) < self.tol
        self.previous = train_loss
        return stop


def never(learner, rho, train_loss):
    """No early stopping: every one of the ``M`` stages is built."""
    return False
