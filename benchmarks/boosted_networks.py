"""Boosted networks against one wide network and boosted trees, at equal budgets (chapter 6).

Four models, every one tuned the same way on every split:

* **boosted networks**: the corrected algorithm of Damião's report (quadratic
  loss on one-hot targets, Newton direction, closed-form step, ``init="learner"``,
  ν = 1), ``NETWORKS`` networks of two ReLU units;
* **one network** with as many hidden units as the boosted ones together (32);
* **boosted trees (softmax)**: boostlib's default classifier (one depth-3 tree
  per class and stage, ``STAGES_SOFTMAX`` stages);
* **boosted trees (quadratic)**: the report's algorithm with depth-3 trees in
  place of the networks, ``NETWORKS`` trees.

**Budget.** Every network is trained by full-batch Adam (each step sees every
training row), and a network model gets ``BUDGET`` = ``NETWORKS`` × ``ADAM_STEPS``
steps in all: the boosted model ``ADAM_STEPS`` per network, the single network
all of them in one run. Each model is tuned over a grid of the same size
(``GRIDS``: four values of its learning rate), and for every grid value its
stopping point is a candidate too: the number of networks or trees (boosted
models), or a checkpoint every ``ADAM_STEPS`` Adam steps (the single network).

**Protocol** (``harness``): the model is fitted on the training rows minus a
validation part (``harness.validation_split``, stratified); the setting and the
stopping point are chosen together on the validation quadratic loss, the
report's loss ``Σ_k (y_k − F_k)²`` on one-hot targets (for the softmax trees on
their probabilities); the test error and the test quadratic loss are reported
there. Inputs are standardised with the fitted rows' means and deviations.
Iris (the report's data) on ``SPLITS["iris"]``, and digits, a larger bundled
data set with ten classes, on ``SPLITS["digits"]``.
"""

from __future__ import annotations

import warnings

import harness
import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import StandardScaler

from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.datasets import load_split, one_hot

NAME = "boosted_networks"
SPLITS = {"iris": tuple(range(20)), "digits": tuple(range(10))}
ADAM_STEPS = 300  # full-batch Adam steps per boosted network
NETWORKS = 16  # h_0 and 15 stages
BUDGET = NETWORKS * ADAM_STEPS  # Adam steps of every network model
HIDDEN = 2  # units per boosted network; the single network has NETWORKS * HIDDEN
STAGES_SOFTMAX = 100
GRIDS = {  # model: (the parameter tuned, its four values)
    "boosted networks": ("learning_rate_init", (0.003, 0.01, 0.03, 0.1)),
    "one network": ("learning_rate_init", (0.003, 0.01, 0.03, 0.1)),
    "boosted trees (softmax)": ("learning_rate", (0.03, 0.1, 0.3, 1.0)),
    "boosted trees (quadratic)": ("learning_rate", (0.1, 0.3, 0.5, 1.0)),
}


def network(hidden, learning_rate_init, max_iter, random_state, n_rows):
    """A one-hidden-layer ReLU network trained by ``max_iter`` full-batch Adam steps."""
    return MLPRegressor(hidden_layer_sizes=(hidden,), solver="adam", batch_size=n_rows,
                        shuffle=False, learning_rate_init=learning_rate_init, max_iter=max_iter,
                        n_iter_no_change=max_iter, tol=0, random_state=random_state)


def quadratic_loss(Y, F):
    """The report's loss, mean over the rows of ``Σ_k (y_k − F_k)²``."""
    return float(np.mean(np.sum((Y - F) ** 2, axis=1)))


def boosted_outputs(model, X):
    """``F_0, F_1, …, F_M`` of a fitted boosted regressor on ``X`` (``F_0 = ρ_0 f_0``)."""
    return [model.init_step_ * model.init_.predict(X), *model.staged_predict(X)]


def candidates(model_name, value, seed, X_fit, Y_fit, y_fit, X_eval, budget=BUDGET):
    """The candidate outputs of one grid value: ``[(stop, outputs on each of X_eval)]``.

    ``stop`` is the number of learners used (boosted models), or the Adam steps
    taken (the single network). A network whose weights became non-finite
    (scikit-learn raises ``ValueError``) ends the candidates: the run diverged.
    """
    if model_name == "boosted networks":
        model = BoostingRegressor(
            loss="quadratic", direction="newton", step="newton", init="learner",
            learner=network(HIDDEN, value, ADAM_STEPS, None, len(X_fit)), learning_rate=1.0,
            n_estimators=NETWORKS - 1, random_state=seed).fit(X_fit, Y_fit)
        staged = [boosted_outputs(model, X) for X in X_eval]
        return [(m + 1, [s[m] for s in staged]) for m in range(NETWORKS)]
    if model_name == "boosted trees (quadratic)":
        model = BoostingRegressor(
            loss="quadratic", direction="newton", step="newton", init="learner",
            learning_rate=value, n_estimators=NETWORKS - 1, random_state=seed).fit(X_fit, Y_fit)
        staged = [boosted_outputs(model, X) for X in X_eval]
        return [(m + 1, [s[m] for s in staged]) for m in range(NETWORKS)]
    if model_name == "boosted trees (softmax)":
        model = BoostingClassifier(learning_rate=value, n_estimators=STAGES_SOFTMAX,
                                   random_state=seed).fit(X_fit, y_fit)
        staged = [list(model.staged_predict_proba(X)) for X in X_eval]
        return [(m + 1, [s[m] for s in staged]) for m in range(STAGES_SOFTMAX)]
    # one network: BUDGET Adam steps in one run (partial_fit takes one full-batch step and
    # keeps Adam's moments), a checkpoint every ADAM_STEPS steps
    model = network(HIDDEN * NETWORKS, value, 1, seed, len(X_fit))
    out = []
    for step in range(1, budget + 1):
        model.partial_fit(X_fit, Y_fit)
        if step % ADAM_STEPS == 0:
            out.append((step, [model.predict(X) for X in X_eval]))
    return out


def run_split(dataset, seed, budget=BUDGET):
    data = load_split(dataset, random_state=seed)
    X_fit, X_val, y_fit, y_val = harness.validation_split(data.X_train, data.y_train, seed,
                                                          stratify=True)
    scaler = StandardScaler().fit(X_fit)
    X_fit, X_val, X_test = (scaler.transform(X) for X in (X_fit, X_val, data.X_test))
    K = int(data.y_train.max()) + 1
    Y_fit, Y_val, Y_test = (one_hot(y, K) for y in (y_fit, y_val, data.y_test))
    rows = []
    for model_name, (parameter, values) in GRIDS.items():
        for value in values:
            try:
                outputs = candidates(model_name, value, seed, X_fit, Y_fit, y_fit,
                                     (X_val, X_test), budget)
                diverged = False
            except ValueError:  # scikit-learn: the network's weights became non-finite
                outputs, diverged = [(0, (np.full_like(Y_val, np.nan),
                                          np.full_like(Y_test, np.nan)))], True
            val_curve = [quadratic_loss(Y_val, F_val) for _, (F_val, _) in outputs]
            best = harness.chosen_stage(val_curve) - 1
            stop, (F_val, F_test) = outputs[best]
            first_val = val_curve[0]
            rows.append({
                "dataset": dataset, "split": seed, "model": model_name, "parameter": parameter,
                "value": value, "stop": stop, "last_stop": outputs[-1][0],
                "budget_decides": best == len(outputs) - 1,
                "adam_steps": (stop * ADAM_STEPS if model_name == "boosted networks"
                               else stop if model_name == "one network" else 0),
                "validation_loss": val_curve[best], "validation_loss_first": first_val,
                "test_loss": quadratic_loss(Y_test, F_test),
                "test_error": float(np.mean(F_test.argmax(axis=1) != data.y_test)),
                "test_loss_last": quadratic_loss(Y_test, outputs[-1][1][1]),
                "test_error_last": float(np.mean(outputs[-1][1][1].argmax(axis=1)
                                                 != data.y_test)),
                "diverged": diverged or not np.all(np.isfinite(val_curve)),
                "n_fit": len(X_fit), "n_validation": len(X_val), "n_test": len(X_test),
            })
    frame = pd.DataFrame(rows)
    # the tuning: per model, the grid value with the least validation loss at its stop
    frame["chosen"] = False
    for _, group in frame.groupby("model", sort=False):
        frame.loc[group["validation_loss"].idxmin(), "chosen"] = True
    frame["status"] = [harness.run_status(row) for row in frame.to_dict("records")]
    return frame


def run(quick=False):
    splits = {name: seeds[:1] for name, seeds in SPLITS.items()} if quick else SPLITS
    budget = 2 * ADAM_STEPS if quick else BUDGET  # quick: a smoke test of the script
    with warnings.catch_warnings():
        # every network stops after its fixed number of Adam steps, by design
        warnings.simplefilter("ignore", ConvergenceWarning)
        frames = [run_split(dataset, seed, budget) for dataset, seeds in splits.items()
                  for seed in seeds]
    frame = pd.concat(frames, ignore_index=True)
    return harness.write_csv(NAME, frame, notes=[
        "protocol: load_split(dataset, split) for "
        + ", ".join(f"{d} splits {list(s)}" for d, s in splits.items()) + ";"
        f" fitted on the training rows minus a {harness.VALIDATION_FRACTION:.0%} validation part"
        " (harness.validation_split, stratified, random_state=split), inputs standardised on the"
        " fitted rows; per model the grid value and the stop (learners used, or Adam steps)"
        " chosen together on the validation quadratic loss sum_k (y_k - F_k)^2 (softmax: on the"
        " probabilities); test quadratic loss and test error there",
        f"budget: every network model {NETWORKS} x {ADAM_STEPS} = {NETWORKS * ADAM_STEPS}"
        f" full-batch Adam steps (boosted: {NETWORKS} networks of {HIDDEN} ReLU units, one"
        f" network: {NETWORKS * HIDDEN} units, a checkpoint every {ADAM_STEPS} steps); trees:"
        f" {NETWORKS} depth-3 trees (quadratic) or {STAGES_SOFTMAX} stages of one depth-3 tree"
        " per class (softmax); every model a grid of four learning rates: "
        + "; ".join(f"{m}: {p} in {list(v)}" for m, (p, v) in GRIDS.items()),
        "one row per dataset, split, model and grid value; chosen: the value the tuning kept",
    ])


def summary(frame):
    chosen = frame[frame["chosen"]]
    table = pd.DataFrame({
        (dataset, model): {
            "test error mean": group["test_error"].mean(),
            "test error se": harness.spread(group["test_error"])["se"],
            "test loss mean": group["test_loss"].mean(),
            "test loss se": harness.spread(group["test_loss"])["se"],
            "splits": len(group),
        }
        for (dataset, model), group in chosen.groupby(["dataset", "model"], sort=False)
    }).T.rename_axis(["dataset", "model"]).reset_index()
    return ("Boosted networks against one network of as many hidden units and boosted trees; every"
            " model tuned over four learning rates and its stopping point on a validation part of"
            " the training rows, the networks at the same budget of full-batch Adam steps.\n\n"
            + harness.markdown_table(table))
