"""Direction × step study (chapter 7): every combination on seven dataset/loss pairs.

Every run: ``STAGES`` stages of depth-3 trees (boostlib's default learner),
learning rate 0.1, ``init="constant"``, ``random_state=0``, under the protocol
of ``harness.py``: on each of the train/test splits ``harness.SPLITS``
(``load_split(name, seed)``) the model is fitted on the training rows minus a
validation part, the stage is chosen on the validation loss, and the test loss
(the loss the model minimises) and score (accuracy or R²) are read at that
stage. The line search and Newton's method on ρ run behind a
:class:`harness.CapWatch`, which counts the steps that a cap decided; a run
whose training loss ends above that of ``F_0`` is marked diverged.

Also saved per run: the number of stages needed to reach a target training
loss (the loss of the reference, gradient + leaf_newton, Friedman's TreeBoost,
after ``TARGET_STAGE`` stages on the same rows), and the training-loss curve.
On Hastie's data, the *Newton Boosting* post's problem, the test accuracy is
also read with the post's threshold: the one that maximises the F1 score on
the training rows (``boostlib.evaluation.f1_optimal_threshold``). A
combination boostlib refuses (``ValueError``) is recorded with the reason.
No timing is taken (see ``benchmarks/README.md``).

A second part (:func:`run_converged`, ``direction_step_converged.csv``) runs
the steps to convergence on the two binary problems: ``CONVERGED_STAGES``
stages, the stage chosen on validation, for Sigrist's three variants and the
line search, the latter both at ν = 0.1 and at the first-order estimate of the ν
that matches its mean step per stage to the leaf values' (:func:`matched_learning_rate`),
so that a difference between the rules is less a difference of step length (refitted
at that ν the line search still moves ``F`` further per stage: chapter 7).
"""

from __future__ import annotations

import harness
import numpy as np

from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.datasets import load_split
from boostlib.evaluation import f1_optimal_threshold, predict_with_threshold

NAME = "direction_step"
DIRECTIONS = ("gradient", "newton", "newton_unweighted", "newton_raphson")
STEPS = ("line_search", "newton", "leaf_newton", "constant")
WATCHED = ("line_search", "newton")  # the steps with a cap
REFERENCE = ("gradient", "leaf_newton")
STAGES = 100
TARGET_STAGE = 50
# Sigrist (2021)'s three variants, as rows of the grid
SIGRIST = {("gradient", "constant"): "gradient", ("newton", "constant"): "Newton",
           ("gradient", "leaf_newton"): "hybrid"}
# (dataset, loss): the loss is what boostlib is told; log_loss on a 3- or 10-class
# problem is the softmax loss
PROBLEMS = (
    ("hastie", "binomial_deviance"),     # the Newton Boosting post's loss
    ("breast_cancer", "log_loss"),
    ("friedman1", "squared_error"),
    ("diabetes", "squared_error"),
    ("diabetes", "absolute_error"),
    ("wine", "softmax"),
    ("digits", "softmax"),
)
CLASSIFICATION = {"binomial_deviance", "log_loss", "softmax", "exponential"}
POST = ("hastie", "binomial_deviance")


def study_model(loss, direction, step, random_state=0, n_estimators=STAGES):
    """One cell of the study: boostlib with everything but direction and step fixed."""
    estimator = BoostingClassifier if loss in CLASSIFICATION else BoostingRegressor
    return estimator(loss=loss, direction=direction, step=step, n_estimators=n_estimators,
                     learning_rate=0.1, random_state=random_state)


def refusal(loss, direction, step, data):
    """boostlib's ValueError message if it refuses this combination, else None."""
    try:
        study_model(loss, direction, step, n_estimators=1).fit(data.X_train[:50],
                                                              data.y_train[:50])
    except ValueError as error:
        return str(error)
    return None


def stages_to_reach(train_loss, target):
    """The first stage whose training loss is at most ``target`` (NaN if none)."""
    hits = np.flatnonzero(np.asarray(train_loss) <= target * (1 + 1e-12))
    return int(hits[0]) if hits.size else np.nan


def post_threshold_accuracy(model, data, stage, random_state):
    """Test accuracy at ``stage`` with the post's rule: the F1-optimal threshold on the fit rows."""
    X_fit, _, y_fit, _ = harness.validation_split(data.X_train, data.y_train, random_state,
                                                  stratify=True)
    F_fit = next(F for m, F in enumerate(model.staged_decision_function(X_fit), 1) if m == stage)
    F_test = next(F for m, F in enumerate(model.staged_decision_function(data.X_test), 1)
                  if m == stage)
    threshold, _ = f1_optimal_threshold(y_fit, F_fit, pos_label=model.classes_[1])
    predicted = predict_with_threshold(F_test, threshold, model.classes_)
    return threshold, float(np.mean(predicted == data.y_test))


def watch_counts(watch, model, row):
    """The caps that acted up to the chosen stage (they decide the result read there) and
    over all stages (:meth:`harness.CapWatch.counts`); all 0 for a step without a cap."""
    if watch is None:
        return {"step_calls": int(np.size(model.steps_)), "step_cap": 0, "iteration_cap": 0,
                "step_cap_all": 0, "iteration_cap_all": 0, "first_cap_stage": 0}
    return watch.counts(stages=model.n_estimators_, chosen_stage=row["chosen_stage"])


def one_run(dataset, loss, direction, step, seed, data):
    """The protocol's row for one cell on one split, and the training-loss curve."""
    watch = harness.CapWatch(step) if step in WATCHED else None
    model = study_model(loss, direction, watch or step)
    row = harness.held_out_run(model, data, random_state=seed,
                               stratify=loss in CLASSIFICATION)
    row.update(watch_counts(watch, model, row))
    if (dataset, loss) == POST:
        row["f1_threshold"], row["test_score_f1_threshold"] = post_threshold_accuracy(
            model, data, row["chosen_stage"], seed)
    return row, model.train_loss_


def run(quick=False, splits=None, problems=None):
    splits = (harness.SPLITS[:1] if quick else harness.SPLITS) if splits is None else splits
    problems = (PROBLEMS[:2] if quick else PROBLEMS) if problems is None else problems
    rows, curves = [], []
    for dataset, loss in problems:
        for seed in splits:
            done = harness.resumed(NAME, f"{dataset}_{loss}_{seed}")
            if done is not None:
                rows += done["rows"]
                curves += done["curves"]
                continue
            data = load_split(dataset, random_state=seed)
            runs, new_rows, new_curves = {}, [], []
            for direction in DIRECTIONS:
                for step in STEPS:
                    key = {"dataset": dataset, "loss": loss, "split": seed,
                           "direction": direction, "step": step,
                           "sigrist": SIGRIST.get((direction, step), "")}
                    reason = refusal(loss, direction, step, data)
                    if reason is not None:
                        new_rows.append({**key, "status": "refused: " + reason})
                        continue
                    row, train_loss = one_run(dataset, loss, direction, step, seed, data)
                    runs[direction, step] = (key, row, train_loss)
            target = runs[REFERENCE][2][TARGET_STAGE]
            for key, row, train_loss in runs.values():
                row["target_train_loss"] = target
                row["stages_to_target"] = stages_to_reach(train_loss, target)
                new_rows.append({**key, "status": harness.run_status(row), **row})
                new_curves.append({**key, **{str(m): v for m, v in enumerate(train_loss)}})
            harness.resumed(NAME, f"{dataset}_{loss}_{seed}",
                            {"rows": new_rows, "curves": new_curves})
            rows += new_rows
            curves += new_curves
            print(f"[direction_step] {dataset}/{loss} split {seed} done", flush=True)
    protocol = (f"{STAGES} depth-3 trees, lr 0.1, init constant, random_state 0;"
                f" load_split(dataset, split) for split in {tuple(splits)}; fitted on the"
                f" training rows minus {harness.VALIDATION_FRACTION:.0%} (validation_split,"
                " seed = split), stage chosen on the validation loss")
    if problems == (PROBLEMS[:2] if quick else PROBLEMS):  # the whole study: part two too
        run_converged(quick)
    harness.write_csv(f"{NAME}_curves", curves, notes=[
        protocol, "mean training loss (fit rows) after F_0 (column 0) and after stages 1.."
        f"{STAGES}"])
    return harness.write_csv(NAME, rows, notes=[
        protocol + "; test_loss / test_score (accuracy or R^2) at the chosen stage, *_last after"
        f" stage {STAGES}; step_cap / iteration_cap = steps up to the chosen stage decided by the"
        " cap on rho / Newton's iteration cap (harness.CapWatch), *_all over every stage, out of"
        " step_calls; first_cap_stage = the first stage a cap acted at (0: none);"
        " status = harness.run_status;"
        f" target_train_loss = gradient+leaf_newton's training loss after {TARGET_STAGE} stages;"
        " test_score_f1_threshold (hastie): accuracy with the F1-optimal threshold on the fit"
        " rows, the post's rule"])


CONVERGED_PROBLEMS = (("hastie", "binomial_deviance"), ("breast_cancer", "log_loss"))
CONVERGED_STAGES = 2000
CONVERGED_RUNS = {  # name: (direction, step, learning rate or None for the matched one)
    "gradient (Sigrist)": ("gradient", "constant", 0.1),
    "Newton (Sigrist)": ("newton", "constant", 0.1),
    "hybrid (Sigrist), TreeBoost": ("gradient", "leaf_newton", 0.1),
    "gradient + line search": ("gradient", "line_search", 0.1),
    "gradient + line search, matched nu": ("gradient", "line_search", None),
}


def mean_step(model, X):
    """The mean size ``|F_m(x) − F_{m−1}(x)|`` of a stage, over the rows ``X`` and stages 2 … M."""
    staged = np.array(list(model.staged_decision_function(X)))
    return float(np.mean(np.abs(np.diff(staged, axis=0))))


def matched_learning_rate(loss, X, y, reference=("gradient", "leaf_newton"), rule="line_search",
                          learning_rate=0.1, stages=STAGES):
    """A first-order estimate of the ν at which ``rule``'s mean step per stage equals
    ``reference``'s at ``learning_rate``.

    Both are fitted for ``stages`` stages at ``learning_rate`` on ``(X, y)``; a
    stage moves ``F`` by ``ν ρ u``, so if the steps scaled with ν the matched
    value would be ``learning_rate × (mean step of reference) / (mean step of rule)``,
    which is what this returns. A smaller ν changes the path of ``F`` and the later
    trees and steps with it, so refitted at it ``rule`` need not match exactly.
    (Chapter 5 instead ran the line search at fixed smaller learning rates beside the
    single Newton step.)
    """
    fitted = {}
    for name, (direction, step) in {"reference": reference, "rule": ("gradient", rule)}.items():
        model = study_model(loss, direction, step, n_estimators=stages)
        fitted[name] = mean_step(model.set_params(learning_rate=learning_rate).fit(X, y), X)
    return learning_rate * fitted["reference"] / fitted["rule"]


def run_converged(quick=False):
    """Sigrist's three variants and the line search to convergence, stage chosen on validation."""
    splits = harness.SPLITS[:1] if quick else harness.SPLITS
    stages = 200 if quick else CONVERGED_STAGES
    rows = []
    for dataset, loss in CONVERGED_PROBLEMS:
        for seed in splits:
            done = harness.resumed(f"{NAME}_converged", f"{dataset}_{seed}_{stages}")
            if done is not None:
                rows += done
                continue
            first = len(rows)
            data = load_split(dataset, random_state=seed)
            X_fit, _, y_fit, _ = harness.validation_split(data.X_train, data.y_train, seed,
                                                          stratify=True)
            matched = matched_learning_rate(loss, X_fit, y_fit)
            for name, (direction, step, learning_rate) in CONVERGED_RUNS.items():
                nu = matched if learning_rate is None else learning_rate
                watch = harness.CapWatch(step) if step in WATCHED else None
                model = study_model(loss, direction, watch or step, n_estimators=stages)
                row = harness.held_out_run(model.set_params(learning_rate=nu), data,
                                           random_state=seed, stratify=True)
                row.update(watch_counts(watch, model, row))
                rows.append({"dataset": dataset, "loss": loss, "split": seed, "run": name,
                             "direction": direction, "step": step, "learning_rate": nu,
                             "status": harness.run_status(row), **row})
            harness.resumed(f"{NAME}_converged", f"{dataset}_{seed}_{stages}", rows[first:])
            print(f"[direction_step converged] {dataset} split {seed} done", flush=True)
    return harness.write_csv(f"{NAME}_converged", rows, notes=[
        f"up to {stages} depth-3 trees, init constant, random_state 0; load_split(dataset, split);"
        f" fitted on the training rows minus {harness.VALIDATION_FRACTION:.0%}, stage chosen on the"
        " validation loss; test_loss / test_score at that stage; learning_rate of the matched run"
        " = 0.1 x (mean stage step of gradient+leaf_newton) / (that of gradient+line_search),"
        f" both over {STAGES} stages at 0.1 on the fit rows"])


def grid(frame, value):
    """Mean and standard error of ``value`` over the splits, one row per direction × step."""
    ok = frame[~frame["status"].str.startswith("refused")]
    table = ok.groupby(["dataset", "loss", "direction", "step"], sort=False)[value]
    return table.agg(["mean", "sem", "min", "max"])


def summary(frame):
    ok = frame[~frame["status"].str.startswith("refused")]
    table = ok.groupby(["dataset", "loss", "direction", "step"], sort=False).agg(
        test_loss=("test_loss", "mean"), test_loss_se=("test_loss", "sem"),
        test_score=("test_score", "mean"), test_score_se=("test_score", "sem"),
        chosen_stage=("chosen_stage", "median"),
        not_ok=("status", lambda s: int((s != "ok").sum()))).reset_index()
    # one row per refused run, so the count in the text is the number of rows below
    refused = frame.loc[frame["status"].str.startswith("refused"),
                        ["dataset", "loss", "direction", "step"]].drop_duplicates()
    return (f"Direction x step over {frame['split'].nunique()} splits: mean and standard error"
            " of the test loss and score at the stage chosen on validation; not_ok = splits"
            " whose run diverged or was decided by a cap.\n\n"
            + harness.markdown_table(table)
            + f"\n\nRefused by boostlib (ValueError), {len(refused)} runs:\n\n"
            + harness.markdown_table(refused))
