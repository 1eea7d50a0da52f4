"""Direction × step study (chapter 7): every combination on seven dataset/loss pairs.

Every run: 100 stages of depth-3 trees (boostlib's default learner), learning
rate 0.1, ``init="constant"``, ``random_state=0``, on ``load_split(name, 0)``.
For each direction (gradient, newton, newton_unweighted, newton_raphson) and
step (line_search, newton, leaf_newton, constant) it records the test loss and
score, the training-loss curve, the number of stages needed to reach a target
training loss — the loss that the reference (gradient + leaf_newton, Friedman's
TreeBoost) reaches after ``TARGET_STAGE`` stages — and the fit time (median of
alternating repeats). A combination that boostlib refuses (it raises
``ValueError``) is recorded with the reason, not run.
"""

from __future__ import annotations

from functools import partial

import harness
import numpy as np

from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.boosting import loss_targets
from boostlib.datasets import load_split

NAME = "direction_step"
DIRECTIONS = ("gradient", "newton", "newton_unweighted", "newton_raphson")
STEPS = ("line_search", "newton", "leaf_newton", "constant")
REFERENCE = ("gradient", "leaf_newton")
TARGET_STAGE = 50
# (dataset, loss): the loss is what boostlib is told; log_loss on a 3- or 10-class
# problem is the softmax loss
PROBLEMS = (
    ("hastie", "binomial_deviance"),     # seed 000's data and loss
    ("breast_cancer", "log_loss"),
    ("friedman1", "squared_error"),
    ("diabetes", "squared_error"),
    ("diabetes", "absolute_error"),
    ("wine", "softmax"),
    ("digits", "softmax"),
)
CLASSIFICATION = {"binomial_deviance", "log_loss", "softmax", "exponential"}


def study_model(loss, direction, step, random_state=0):
    """One cell of the study: boostlib with everything but direction and step fixed."""
    estimator = BoostingClassifier if loss in CLASSIFICATION else BoostingRegressor
    return estimator(loss=loss, direction=direction, step=step, n_estimators=100,
                     learning_rate=0.1, random_state=random_state)


def refusal(model, data):
    """boostlib's ValueError message if it refuses this combination, else None."""
    probe = model.set_params(n_estimators=1)
    try:
        probe.fit(data.X_train[:50], data.y_train[:50])
    except ValueError as error:
        return str(error)
    finally:
        model.set_params(n_estimators=100)
    return None


def stages_to_reach(train_loss, target):
    """The first stage whose training loss is at most ``target`` (NaN if none)."""
    hits = np.flatnonzero(train_loss <= target * (1 + 1e-12))
    return int(hits[0]) if hits.size else np.nan


def test_loss(model, X, y):
    """Mean test loss of the final model, in the loss it was trained on."""
    F = model.decision_function(X) if isinstance(model, BoostingClassifier) else model.predict(X)
    return model.loss_.mean(loss_targets(model, y), F)


def run(quick=False):
    problems = PROBLEMS[:2] if quick else PROBLEMS
    repeat = 1 if quick else 3
    rows, curves = [], []
    for dataset, loss in problems:
        data = load_split(dataset, random_state=0)
        models, refused = {}, {}
        for direction in DIRECTIONS:
            for step in STEPS:
                model = study_model(loss, direction, step)
                reason = refusal(model, data)
                if reason is None:
                    models[direction, step] = model
                else:
                    refused[direction, step] = reason
        runs = harness.alternating(
            {key: partial(m.fit, data.X_train, data.y_train) for key, m in models.items()},
            repeat=repeat)
        target = runs[REFERENCE]["result"].train_loss_[TARGET_STAGE]
        for direction in DIRECTIONS:
            for step in STEPS:
                row = {"dataset": dataset, "loss": loss, "direction": direction, "step": step}
                if (direction, step) in refused:
                    rows.append({**row, "status": "refused: " + refused[direction, step]})
                    continue
                model = runs[direction, step]["result"]
                rows.append({
                    **row, "status": "ok",
                    "test_loss": test_loss(model, data.X_test, data.y_test),
                    "test_score": model.score(data.X_test, data.y_test),
                    "final_train_loss": model.train_loss_[-1],
                    "target_train_loss": target,
                    "stages_to_target": stages_to_reach(model.train_loss_, target),
                    "fit_s": harness.median(runs[direction, step]["seconds"]),
                    "repeats": repeat,
                })
                curves.append({**row, **{str(m): v for m, v in enumerate(model.train_loss_)}})
    harness.write_csv(f"{NAME}_curves", curves,
                      notes=["mean training loss after F_0 (column 0) and after stages 1..100"])
    return harness.write_csv(NAME, rows, notes=[
        "100 depth-3 trees, lr 0.1, init constant, random_state 0, load_split(dataset, 0);"
        " test_score = accuracy (classifiers) or R^2 (regressors); target_train_loss = training"
        f" loss of gradient+leaf_newton after {TARGET_STAGE} stages; fit_s = CPU seconds"
        " (time.process_time), median over alternating repeats",
    ])


def summary(frame):
    ok = frame[frame["status"] == "ok"]
    table = ok.pivot_table(index=["dataset", "loss", "direction"], columns="step",
                           values="test_score", sort=False).reset_index()
    # one row per refused run, so the count in the text is the number of rows below
    refused = frame.loc[frame["status"] != "ok", ["dataset", "loss", "direction", "step"]]
    return ("Test score (accuracy or R^2) for every direction x step; 100 stages, lr 0.1.\n\n"
            + harness.markdown_table(table)
            + f"\n\nRefused by boostlib (ValueError), {len(refused)} runs:\n\n"
            + harness.markdown_table(refused))
