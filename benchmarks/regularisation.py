"""Shrinkage and subsampling on ESL's simulated example (10.2): Friedman 2002; ESL §10.12.

Log-loss boosting (Friedman's TreeBoost: gradient direction, one Newton value
per leaf) with six-leaf trees, 1000 stages, for four settings: no shrinkage
(ν = 1), shrinkage (ν = 0.1), subsampling (half the rows per stage, ν = 1)
and both. Under the protocol of ``harness.py``: on each split
``load_split("hastie", seed)``, seed in ``harness.SPLITS``, the model is fitted
on the training rows minus a validation part and the stage is chosen on the
validation deviance.

``regularisation.csv`` holds the curves, one row per seed, setting and metric
(validation deviance, test deviance ``-2 mean log-likelihood``, test error),
one column per stage. ``regularisation_runs.csv`` holds one row per seed and
setting: the chosen stage and the test deviance and error there, and what a
blown-up run looks like at the last stage (the largest ``|F|`` on the test
points, the share of the test deviance that its ten worst points carry, and
the number of late stages at which the test error still changes).
Friedman's finding to reproduce: shrinkage plus subsampling reaches the
lowest test deviance.
"""

from __future__ import annotations

import harness
import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeRegressor

from boostlib import BoostingClassifier
from boostlib.datasets import load_split
from boostlib.evaluation import staged_scores
from boostlib.plotting import staged_loss

NAME = "regularisation"
STAGES = 1000
SETTINGS = {  # name: (learning_rate, subsample)
    "no shrinkage": (1.0, 1.0),
    "shrinkage 0.1": (0.1, 1.0),
    "subsample 0.5": (1.0, 0.5),
    "shrinkage 0.1, subsample 0.5": (0.1, 0.5),
}
BLOWN_UP = 1e3  # a test score |F| above this (p within e^-1000 of 0 or 1) has blown up


def regularised_model(setting, seed, n_estimators=STAGES):
    """TreeBoost with six-leaf trees and one of the four settings."""
    learning_rate, subsample = SETTINGS[setting]
    return BoostingClassifier(loss="log_loss", learner=DecisionTreeRegressor(max_leaf_nodes=6),
                              n_estimators=n_estimators, learning_rate=learning_rate,
                              subsample=subsample, random_state=seed)


def staged_test_curves(model, X, y):
    """Test deviance (twice the mean log loss) and test error (1 − accuracy) after every stage."""
    return {"test deviance": 2 * staged_loss(model, X, y),
            "test error": 1.0 - staged_scores(model, X, y)}


def blow_up(model, X, y, error_curve, worst=10):
    """What the last stage looks like: the largest |F|, and who carries the test deviance.

    The per-point loss ``log(1 + e^{−yF})`` (y in ±1) is computed exactly, also
    where ``|F|`` is far beyond what a probability can show. A point has blown
    up when its ``|F| > BLOWN_UP``.
    """
    F = model.decision_function(X)
    margin = np.where(y == model.classes_[1], 1.0, -1.0) * F
    per_point = np.logaddexp(0, -margin)
    top = np.sort(per_point)[::-1][:worst]
    blown = np.abs(F) > BLOWN_UP
    largest = np.array([np.abs(F_m).max() for F_m in model.staged_decision_function(X)])
    first = np.flatnonzero(largest > BLOWN_UP)
    return {"max_abs_F": float(np.abs(F).max()),
            "points_blown_up": int(blown.sum()),
            "blown_up_wrong": int(np.sum(blown & (margin < 0))),
            "blown_up_share": float(per_point[blown].sum() / per_point.sum()),
            "worst10_share": float(top.sum() / per_point.sum()),
            "first_blown_up_stage": int(first[0]) + 1 if first.size else 0,
            "error_changes_after": (int(np.count_nonzero(np.diff(error_curve[first[0]:])))
                                    if first.size else 0),
            "stages_after": int(len(error_curve) - first[0] - 1) if first.size else 0}


def run(quick=False):
    seeds = harness.SPLITS[:1] if quick else harness.SPLITS
    stages = 200 if quick else STAGES
    curves, runs = [], []
    for seed in seeds:
        done = harness.resumed(NAME, f"{seed}_{stages}")
        if done is not None:
            curves += done[0]
            runs += done[1]
            continue
        first_curve, first_run = len(curves), len(runs)
        data = load_split("hastie", random_state=seed)
        X_fit, X_val, y_fit, y_val = harness.validation_split(data.X_train, data.y_train, seed,
                                                              stratify=True)
        for setting in SETTINGS:
            model = regularised_model(setting, seed, stages).fit(X_fit, y_fit)
            metrics = {"validation deviance": 2 * staged_loss(model, X_val, y_val),
                       **staged_test_curves(model, data.X_test, data.y_test)}
            for metric, values in metrics.items():
                curves.append({"seed": seed, "setting": setting, "metric": metric,
                               **{str(m): v for m, v in enumerate(values, start=1)}})
            stage = harness.chosen_stage(metrics["validation deviance"])
            test_deviance, test_error = metrics["test deviance"], metrics["test error"]
            runs.append({
                "seed": seed, "setting": setting, "chosen_stage": stage,
                "budget_decides": stage == stages,
                "test_deviance": test_deviance[stage - 1], "test_error": test_error[stage - 1],
                "test_deviance_last": test_deviance[-1], "test_error_last": test_error[-1],
                "diverged": harness.diverged(model.train_loss_),
                **blow_up(model, data.X_test, data.y_test, test_error)})
        harness.resumed(NAME, f"{seed}_{stages}", (curves[first_curve:], runs[first_run:]))
        print(f"[regularisation] seed {seed} done", flush=True)
    protocol = ("load_split('hastie', seed); fitted on the training rows minus"
                f" {harness.VALIDATION_FRACTION:.0%} (validation_split, stratified, seed);"
                " log_loss, gradient, leaf_newton, max_leaf_nodes=6")
    harness.write_csv(f"{NAME}_runs", runs, notes=[
        protocol + "; chosen_stage = argmin of the validation deviance; test_* at it, *_last"
        f" after stage {stages}; blow-up: |F| > {BLOWN_UP:g} on a test point;"
        " blown_up_share / worst10_share = share of the summed test log loss carried by the"
        " blown-up points / by the 10 largest terms; blown_up_wrong = blown-up and misclassified;"
        " error_changes_after = stages after the first blow-up at which the test error changed"])
    return harness.write_csv(NAME, curves, notes=[protocol + "; columns 1..M: the metric after"
                                                  " each stage"])


def summary(frame):
    runs = harness.read_csv(f"{NAME}_runs")
    if runs is None or "chosen_stage" not in runs:
        return "Shrinkage and subsampling: run benchmarks/regularisation.py.\n\n| - |\n|---|\n| - |"
    table = runs.groupby("setting", sort=False).agg(
        test_deviance=("test_deviance", "mean"), test_deviance_se=("test_deviance", "sem"),
        test_error=("test_error", "mean"), test_error_se=("test_error", "sem"),
        chosen_stage_min=("chosen_stage", "min"), chosen_stage_max=("chosen_stage", "max"),
        worst_last_deviance=("test_deviance_last", "max")).reset_index()
    return (f"Shrinkage and subsampling over {runs['seed'].nunique()} splits: test deviance and"
            " error at the stage chosen on validation (mean, standard error), the range of the"
            " chosen stages, and the worst test deviance after the last stage. Without"
            " shrinkage, subsampling can make the test deviance blow up on a split: a leaf"
            " whose in-bag points are all confidently classified has a Hessian sum near 0, so"
            " its Newton value can be huge, and with ν = 1 nothing damps it.\n\n"
            + harness.markdown_table(pd.DataFrame(table)))
