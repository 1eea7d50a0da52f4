"""One Newton step on ρ against the exact line search, over data seeds (chapter 5).

Log-loss boosting with depth-3 trees fitted to the gradient, on
``load_split("hastie", seed)`` for every seed in ``SEEDS``, three runs:

* one Newton step on ρ (``newton(..., max_iter=1)``) with shrinkage ν = 0.5, 250 stages;
* the exact line search with ν = 0.5, 250 stages;
* the exact line search with ν = 0.25, 400 stages.

Every run follows the harness protocol: it is fitted on the training rows minus
a validation part (``harness.validation_split``), its stage is chosen on the
validation log loss (``harness.held_out_run``), and the test log loss and test
error are reported there, with the number of steps a cap decided. Also saved:
the training and test loss at the fixed stage 50, and, along the trees of the
line search with ν = 0.5, the ratio of one Newton step to the line search and
the largest gap between iterated Newton and the line search. A second file,
``closed_form_step_curves.csv``, holds every run's validation and test log loss
after each stage.
"""

from __future__ import annotations

import harness
import numpy as np
import pandas as pd

from boostlib import BoostingClassifier
from boostlib.datasets import load_split
from boostlib.plotting import staged_loss
from boostlib.steps import RHO_MAX, _directional_derivatives, newton

NAME = "closed_form_step"
SEEDS = tuple(range(10))
FIXED_STAGE = 50
RUNS = {  # name: (step rule, shrinkage ν, number of stages)
    "one Newton step, ν = 0.5": ("one_step", 0.5, 250),
    "line search, ν = 0.5": ("line_search", 0.5, 250),
    "line search, ν = 0.25": ("line_search", 0.25, 400),
}
REFERENCE = "line search, ν = 0.5"  # the run along whose trees the step rules are compared


class OneStepWatch:
    """One Newton step on ρ, as boostlib computes it, counting what decided ρ.

    ``step_cap``: the Newton value was clipped to ``|ρ| = RHO_MAX``;
    ``halved``: it would have raised the training loss and was halved.
    """

    def __init__(self):
        self.calls = self.step_cap = self.halved = 0

    def __call__(self, loss, y, F, u, sample_weight=None, learner=None, X=None):
        rho, u = newton(loss, y, F, u, sample_weight, max_iter=1)
        slope, curvature = _directional_derivatives(loss, y, F, u, sample_weight)
        raw = -slope / curvature if curvature else 0.0
        self.calls += 1
        if abs(raw) > RHO_MAX:
            self.step_cap += 1
        elif abs(rho - raw) > 1e-12 * (1 + abs(raw)):
            self.halved += 1
        return rho, u

    def counts(self):
        return {"step_calls": self.calls, "step_cap": self.step_cap, "iteration_cap": 0,
                "halved": self.halved}

    def __repr__(self):
        return "OneStepWatch()"


def step_rule(kind):
    return OneStepWatch() if kind == "one_step" else harness.CapWatch(kind)


def compare_steps(model, X, y01):
    """Along a fitted model's trees, on its training rows (labels 0/1): one Newton step / ρ,
    and |iterated Newton − ρ|, at every stage."""
    loss = model.loss_
    F = model.init_step_ * model.init_.predict(X).reshape(len(X))
    ratios, gaps = [], []
    for learner, rho in zip(model.estimators_, model.steps_, strict=True):
        u = learner.predict(X)
        one, _ = newton(loss, y01, F, u, max_iter=1)
        iterated, _ = newton(loss, y01, F, u)
        ratios.append(one / rho)
        gaps.append(abs(iterated - rho))
        F = F + model.learning_rate * rho * u
    return np.array(ratios), np.array(gaps)


def run_seed(seed, stages_scale=1.0):
    data = load_split("hastie", random_state=seed)
    X_fit, X_val, y_fit, y_val = harness.validation_split(data.X_train, data.y_train, seed,
                                                          stratify=True)
    rows, curves = [], []
    for name, (kind, nu, n_stages) in RUNS.items():
        rule = step_rule(kind)
        model = BoostingClassifier(loss="log_loss", step=rule, learning_rate=nu,
                                   n_estimators=max(FIXED_STAGE + 10, int(n_stages * stages_scale)),
                                   random_state=seed)
        row = harness.held_out_run(model, data, random_state=seed, stratify=True)
        row.update(rule.counts())
        test = staged_loss(model, data.X_test, data.y_test)
        validation = staged_loss(model, X_val, y_val)
        assert harness.chosen_stage(validation) == row["chosen_stage"]
        row.update({
            "seed": seed, "run": name, "step": kind, "nu": nu,
            "test_error": 1.0 - row["test_score"],
            "validation_loss": float(validation[row["chosen_stage"] - 1]),
            f"train_loss_{FIXED_STAGE}": float(model.train_loss_[FIXED_STAGE]),
            f"test_loss_{FIXED_STAGE}": float(test[FIXED_STAGE - 1]),
        })
        if name == REFERENCE:
            ratios, gaps = compare_steps(model, X_fit, (y_fit == 1).astype(float))
            row.update({"ratio_min": ratios.min(), "ratio_median": float(np.median(ratios)),
                        "ratio_max": ratios.max(),
                        "ratio_median_first_50": float(np.median(ratios[:50])),
                        "ratio_median_last_50": float(np.median(ratios[-50:])),
                        "iterated_gap_max": gaps.max()})
        row["status"] = harness.run_status(row)
        rows.append(row)
        for metric, values in (("validation loss", validation), ("test loss", test)):
            curves.append({"seed": seed, "run": name, "metric": metric,
                           **{str(m): round(float(v), 6) for m, v in enumerate(values, 1)}})
    return rows, curves


def run(quick=False):
    seeds = SEEDS[:2] if quick else SEEDS
    rows, curves = [], []
    for seed in seeds:
        seed_rows, seed_curves = run_seed(seed, stages_scale=0.3 if quick else 1.0)
        rows += seed_rows
        curves += seed_curves
    protocol = (f"protocol: load_split('hastie', seed) for seed in {list(seeds)}; fitted on the "
                f"training rows minus a {harness.VALIDATION_FRACTION:.0%} validation part "
                "(harness.validation_split, stratified, random_state=seed); stage chosen on the "
                "validation log loss (harness.held_out_run); test log loss and test error at that "
                "stage; log_loss, gradient direction, DecisionTreeRegressor(max_depth=3)")
    harness.write_csv(f"{NAME}_curves", curves, notes=[
        protocol, "columns 1..M: the mean log loss after each stage (rounded to 1e-6)"])
    columns = ["seed", "run", "step", "nu", "stages", "chosen_stage", "budget_decides",
               "validation_loss", "test_loss", "test_error", "test_loss_last",
               f"train_loss_{FIXED_STAGE}", f"test_loss_{FIXED_STAGE}", "initial_train_loss",
               "final_train_loss", "diverged", "F0_preferred", "test_loss_F0", "step_calls",
               "step_cap", "iteration_cap", "halved", "status", "ratio_min", "ratio_median",
               "ratio_max", "ratio_median_first_50", "ratio_median_last_50", "iterated_gap_max"]
    frame = pd.DataFrame(rows).reindex(columns=columns)
    return harness.write_csv(NAME, frame, notes=[protocol])


def summary(frame):
    table = pd.DataFrame({
        run: {
            **{f"{metric} mean": group[metric].mean() for metric in
               ("test_loss", "test_error", "chosen_stage", f"test_loss_{FIXED_STAGE}")},
            "test_loss se": harness.spread(group["test_loss"])["se"],
            "statuses": ", ".join(sorted(set(group["status"]))),
        }
        for run, group in frame.groupby("run", sort=False)
    }).T.reset_index(names="run")
    return (f"One Newton step on ρ against the line search on hastie, over "
            f"{frame['seed'].nunique()} data seeds; the stage chosen on a validation part of the "
            "training rows, test log loss and error there.\n\n" + harness.markdown_table(table))
