"""ESL's simulated example, eq. (10.2) and Figure 10.2 (Hastie, Tibshirani & Friedman, §10.1).

``make_hastie_10_2``: ten standard normal features, ``y = 1`` if ``Σ x_j² > 9.34``
(the median of a χ²₁₀) and ``-1`` otherwise; 2000 training and 10 000 test
points (``boostlib.datasets.load_split("hastie", random_state=seed)``).
ESL reports the test error of a single stump (45.8 %), of a 244-node
classification tree (24.7 %) and of AdaBoost.M1 with stumps, which reaches
about 5.8 % after 400 iterations.

For every data seed this writes the single learners' test errors to
``results/esl_10_2_single.csv`` and, for every boosted model in
:func:`esl_models`, the test error after each of the 400 stages to
``results/esl_10_2.csv`` (one row per model and seed, one column per stage),
and to ``results/esl_10_2_loss.csv`` the test loss after the last stage, in the
loss each boostlib model minimises (the exponential loss or the log loss).
There is no tuned setting: ESL reads every curve at the same stages.
Chapter 7 loads the three files.
"""

from __future__ import annotations

import harness
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from boostlib import BoostingClassifier
from boostlib.boosting import loss_targets
from boostlib.datasets import load_split
from boostlib.evaluation import staged_scores

NAME = "esl_10_2"
SEEDS = tuple(range(10))
STAGES = 400
ESL = {"stump": 0.458, "tree": 0.247, "boosted stumps": 0.058}  # ESL §10.1, Figure 10.2


class MisclassificationStump(RegressorMixin, BaseEstimator):
    """AdaBoost.M1's weak learner: the stump with the least weighted misclassification.

    Fitted to targets ``z`` with sample weights ``w`` it treats ``sign(z)`` as
    the class and ``w |z|`` as the weight, searches every feature and every
    split between distinct values, and predicts ``±1``. With boostlib's
    exponential loss and ``direction="newton"`` the targets are ``z = y`` and the
    weights ``e^{-yF}``: exactly AdaBoost's reweighted training set.
    (A scikit-learn tree instead picks the split with the lowest Gini impurity,
    which is not the same stump.)
    """

    def fit(self, X, z, sample_weight=None):
        X, z = np.asarray(X, dtype=float), np.asarray(z, dtype=float)
        n, d = X.shape
        w = np.abs(z) * (1.0 if sample_weight is None else np.asarray(sample_weight, float))
        w = w / w.sum()
        order = np.argsort(X, axis=0, kind="stable")
        x_sorted = np.take_along_axis(X, order, axis=0)
        positive = np.where(z[order] > 0, w[order], 0.0)
        negative = w[order] - positive
        before = np.zeros((1, d))
        # error of "-1 for the first i sorted values, +1 after", for i = 0 … n
        error = (np.vstack([before, np.cumsum(positive, axis=0)])
                 + negative.sum(axis=0) - np.vstack([before, np.cumsum(negative, axis=0)]))
        edge = np.ones((1, d), dtype=bool)
        between_distinct = np.vstack([edge, x_sorted[1:] > x_sorted[:-1], edge])
        candidates = np.where(between_distinct, np.stack([error, 1.0 - error]), np.inf)
        flip, i, j = np.unravel_index(np.argmin(candidates), candidates.shape)
        self.feature_, self.sign_ = int(j), -1.0 if flip else 1.0
        self.error_ = float(candidates[flip, i, j])
        if i == 0:
            self.threshold_ = -np.inf
        elif i == n:
            self.threshold_ = np.inf
        else:
            self.threshold_ = 0.5 * (x_sorted[i - 1, j] + x_sorted[i, j])
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        return np.where(X[:, self.feature_] > self.threshold_, self.sign_, -self.sign_)


def single_learners(seed):
    """ESL's two reference lines: a stump and its "244-node" tree.

    A binary tree has an odd number of nodes, so "244 nodes" is read two ways:
    122 leaves (243 nodes, the nearest size), and 244 *terminal* nodes.
    """
    return {
        "stump": DecisionTreeClassifier(max_depth=1, random_state=seed),
        "tree": DecisionTreeClassifier(max_leaf_nodes=122, random_state=seed),
        "leaves244": DecisionTreeClassifier(max_leaf_nodes=244, random_state=seed),
    }


def esl_models(seed, n_estimators=STAGES):
    """The boosted stumps compared with ESL's AdaBoost.M1 curve, all without shrinkage."""
    stump = DecisionTreeRegressor(max_depth=1)

    def boosted(loss, direction, step, learner=stump, init="constant"):
        return BoostingClassifier(loss=loss, direction=direction, step=step, learner=learner,
                                  n_estimators=n_estimators, learning_rate=1.0, init=init,
                                  random_state=seed)

    return {
        # Friedman's TreeBoost: fit -g, then one Newton value per leaf
        "exponential, gradient, leaf_newton": boosted("exponential", "gradient", "leaf_newton"),
        "log_loss, gradient, leaf_newton": boosted("log_loss", "gradient", "leaf_newton"),
        # weighted least squares on y with weights e^{-yF}: Gentle AdaBoost (FHT 2000)
        "exponential, newton, leaf_newton": boosted("exponential", "newton", "leaf_newton"),
        # AdaBoost.M1: ±1 stumps on the reweighted data, exact line search for the vote
        "discrete AdaBoost (least-error stumps)": boosted(
            "exponential", "newton", "line_search", MisclassificationStump(), init="zero"),
        "discrete AdaBoost (Gini stumps)": boosted(
            "exponential", "newton", "line_search", DecisionTreeClassifier(max_depth=1),
            init="zero"),
        "sklearn AdaBoostClassifier": AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=1), n_estimators=n_estimators, learning_rate=1.0,
            random_state=seed),
    }


def test_loss(model, X, y):
    """Mean test loss of the final model, in the loss it minimises."""
    return float(model.loss_.mean(loss_targets(model, y), model.decision_function(X)))


def staged_test_error(model, X, y):
    """Test misclassification rate after every stage: 1 − staged accuracy."""
    return 1.0 - staged_scores(model, X, y)


def run(quick=False):
    seeds = SEEDS[:2] if quick else SEEDS
    singles, curves, losses = [], [], []
    for seed in seeds:
        data = load_split("hastie", random_state=seed)
        row = {"seed": seed}
        for name, tree in single_learners(seed).items():
            tree.fit(data.X_train, data.y_train)
            row[f"{name}_error"] = float(np.mean(tree.predict(data.X_test) != data.y_test))
            row[f"{name}_nodes"] = int(tree.tree_.node_count)
        singles.append(row)
        for name, model in esl_models(seed).items():
            model.fit(data.X_train, data.y_train)
            errors = staged_test_error(model, data.X_test, data.y_test)
            curves.append({"seed": seed, "model": name,
                           **{str(m): e for m, e in enumerate(errors, start=1)}})
            if isinstance(model, BoostingClassifier):
                losses.append({"seed": seed, "model": name, "loss": model.loss_.name,
                               "test_loss": test_loss(model, data.X_test, data.y_test),
                               "test_error": errors[-1]})
    notes = ["make_hastie_10_2, 2000 train / 10000 test per seed (load_split('hastie', seed));"
             f" ESL: stump {ESL['stump']}, 244-node tree {ESL['tree']},"
             f" AdaBoost.M1 stumps at 400 iterations {ESL['boosted stumps']}"]
    harness.write_csv(f"{NAME}_single", singles, notes)
    harness.write_csv(f"{NAME}_loss", losses, notes + [
        "test_loss: mean test loss after the last stage, in the loss the model minimises"])
    return harness.write_csv(NAME, curves, notes + ["test error after stages 1..400 (columns)"])


def summary(frame):
    singles = harness.read_csv(f"{NAME}_single")
    rows = [{"quantity": "single stump", "ESL": ESL["stump"],
             "mean": singles["stump_error"].mean(), "sd": singles["stump_error"].std()},
            {"quantity": f"tree, {singles['tree_nodes'].iloc[0]} nodes", "ESL": ESL["tree"],
             "mean": singles["tree_error"].mean(), "sd": singles["tree_error"].std()}]
    if "leaves244_error" in singles:
        rows.append({"quantity": f"tree, 244 leaves ({singles['leaves244_nodes'].iloc[0]} nodes)",
                     "ESL": ESL["tree"], "mean": singles["leaves244_error"].mean(),
                     "sd": singles["leaves244_error"].std()})
    final = frame.groupby("model", sort=False)[str(STAGES)]
    rows += [{"quantity": f"{name}, {STAGES} stages", "ESL": ESL["boosted stumps"],
              "mean": final.mean()[name], "sd": final.std()[name]} for name in final.groups]
    return (f"ESL Figure 10.2, test error over {singles['seed'].nunique()} data seeds.\n\n"
            + harness.markdown_table(pd.DataFrame(rows)))
