"""The benchmark harness and the learners the benchmarks define (fast; no benchmark is run)."""

import importlib
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import direction_step  # noqa: E402
import distributed_fit  # noqa: E402
import esl_10_2  # noqa: E402
import harness  # noqa: E402
import hist_trees  # noqa: E402
import regularisation  # noqa: E402
import seed000  # noqa: E402

with pytest.MonkeyPatch.context() as _env:  # run_all pins the thread variables on import
    for _name in harness.THREAD_VARIABLES:  # recorded, so they are restored afterwards
        _env.setenv(_name, "1")
    import run_all  # noqa: E402

RESULT_FILES = sorted(harness.RESULTS.glob("*.csv"))


def test_alternating_runs_competitors_in_turn():
    order = []
    runs = harness.alternating({"A": lambda: order.append("A"), "B": lambda: order.append("B")},
                               repeat=3)
    assert order == ["A", "B"] * 3
    assert all(len(r["seconds"]) == 3 and len(r["wall"]) == 3 for r in runs.values())


def test_result_files_record_versions_and_cpu_count(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "RESULTS", tmp_path)
    frame = pd.DataFrame({"a": [1, 2], "b": [0.5, 0.25]})
    harness.write_csv("example", frame, notes=["a note"])
    header = harness.read_header("example")
    assert "cpu_count=" in header[0] and "scikit-learn=" in header[0] and "boostlib=" in header[0]
    assert header[1] == "a note"
    pd.testing.assert_frame_equal(harness.read_csv("example"), frame)


def brute_force_error(X, y, w):
    """The least weighted misclassification over every single-feature threshold and sign."""
    best = np.inf
    for j in range(X.shape[1]):
        for threshold in np.concatenate([[-np.inf], X[:, j]]):
            for sign in (1.0, -1.0):
                predicted = np.where(X[:, j] > threshold, sign, -sign)
                best = min(best, w[predicted != y].sum() / w.sum())
    return best


@pytest.mark.parametrize("seed", range(5))
def test_misclassification_stump_finds_the_least_weighted_error(seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(40, 3)), 1)  # rounding makes ties between values
    y = np.where(rng.normal(size=40) > 0, 1.0, -1.0)
    w = rng.random(40)
    stump = esl_10_2.MisclassificationStump().fit(X, y, sample_weight=w)
    achieved = w[stump.predict(X) != y].sum() / w.sum()
    assert achieved == pytest.approx(brute_force_error(X, y, w), abs=1e-12)
    assert stump.error_ == pytest.approx(achieved, abs=1e-12)
    # a signed target carries its size as weight: z = 3y with unit weights is the same problem
    assert esl_10_2.MisclassificationStump().fit(X, 3 * y).error_ == pytest.approx(
        brute_force_error(X, y, np.ones(40)), abs=1e-12)


def test_timed_tree_is_a_plain_tree_with_a_stopwatch():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 4)), rng.normal(size=200)
    before = dict(seed000.STOPWATCH)
    timed = seed000.TimedTree(max_depth=3, random_state=0).fit(X, y)
    plain = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(timed.predict(X), plain.predict(X))
    assert seed000.STOPWATCH["learner_fit"] > before["learner_fit"]
    assert seed000.STOPWATCH["learner_predict"] > before["learner_predict"]


def test_stages_to_reach_a_target_loss():
    losses = np.array([1.0, 0.8, 0.6, 0.5, 0.55])
    assert direction_step.stages_to_reach(losses, 0.6) == 2
    assert np.isnan(direction_step.stages_to_reach(losses, 0.1))


def table_rows(text, after):
    """The rows, as {column: cell}, of the first pipe table after the text ``after``."""
    lines = text[text.index(after):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))

    def cells(line):
        return [cell.strip() for cell in line.strip("|").split("|")]

    rows = []
    for line in lines[start + 2:]:  # the header, then the |---| line
        if not line.startswith("|"):
            break
        rows.append(dict(zip(cells(lines[start]), cells(line), strict=True)))
    return rows


@pytest.mark.parametrize("name", list(run_all.BENCHMARKS))
def test_every_benchmark_module_imports_and_has_run_and_summary(name):
    module = importlib.import_module(name)
    assert callable(module.run) and callable(module.summary)


@pytest.mark.parametrize("name", list(run_all.BENCHMARKS))
def test_every_summary_runs_on_its_committed_csv(name):
    frame = harness.read_csv(name)
    if frame is None:
        pytest.skip(f"results/{name}.csv has not been written")
    text = importlib.import_module(name).summary(frame)
    assert text.strip() and table_rows(text, "|")


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda path: path.name)
def test_every_result_file_starts_with_the_versions_and_cpu_count(path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# ")
    for key in ("cpu_count", "python", "numpy", "scipy", "scikit-learn", "xgboost",
                "lightgbm", "boostlib"):
        assert re.search(rf"(^|\s){re.escape(key)}=\S+", first[2:]), key


def test_markdown_table_shows_small_non_zero_values():
    frame = pd.DataFrame({"x": [1.1546319456101628e-14, 0.0, 0.123456, 12345.678, -2.5e-4],
                          "n": [1, 2, 3, 4, 5]})
    cells = [row["x"] for row in table_rows(harness.markdown_table(frame), "| x")]
    assert cells == ["1.15e-14", "0.0", "0.1235", "1.235e+04", "-0.00025"]


def test_sklearn_ratio_summary_shows_the_decision_function_difference():
    frame = harness.read_csv("sklearn_ratio")
    if frame is None:
        pytest.skip("results/sklearn_ratio.csv has not been written")
    import sklearn_ratio

    rows = table_rows(sklearn_ratio.summary(frame), "| n_samples")
    shown = [float(row["max_abs_F_difference"]) for row in rows]
    np.testing.assert_allclose(shown, frame["max_abs_F_difference"], rtol=1e-2)


def direction_step_frame():
    """Two datasets with the same loss, one refusal each on two splits: the refusals must not
    merge across datasets, and must count once per combination, not once per split."""
    base = {"loss": "softmax", "direction": "newton_raphson", "test_score": np.nan,
            "test_loss": np.nan, "chosen_stage": np.nan}
    rows = []
    for split in (0, 1):
        rows += [
            {**base, "split": split, "dataset": "wine", "step": "line_search",
             "status": "refused: no"},
            {**base, "split": split, "dataset": "digits", "step": "line_search",
             "status": "refused: no"},
            {**base, "split": split, "dataset": "wine", "direction": "gradient", "step": "newton",
             "status": "ok" if split else "step cap (3/300)", "test_score": 0.9 + split / 100,
             "test_loss": 0.3, "chosen_stage": 40 + split},
        ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("source", ["synthetic", "committed"])
def test_direction_step_summary_counts_every_refused_run(source):
    frame = direction_step_frame() if source == "synthetic" else harness.read_csv(
        direction_step.NAME)
    if frame is None:
        pytest.skip("results/direction_step.csv has not been written")
    text = direction_step.summary(frame)
    count = int(re.search(r"Refused by boostlib \(ValueError\), (\d+) runs", text).group(1))
    rows = table_rows(text, "Refused by boostlib")
    refused = frame.loc[frame["status"].str.startswith("refused"),
                        ["dataset", "loss", "direction", "step"]]
    assert count == len(rows) == len(refused.drop_duplicates())
    assert len({tuple(row.values()) for row in rows}) == len(rows)
    if source == "synthetic":
        (cells,) = table_rows(text, "| dataset")
        assert float(cells["test_score"]) == pytest.approx(0.905)
        assert float(cells["test_score_se"]) == pytest.approx(0.005)
        assert cells["not_ok"] == "1"


def regularisation_runs():
    """Three seeds of two settings; seed 2 blows up without shrinkage."""
    rows = []
    for seed, last in [(0, 0.5), (1, 0.7), (2, 1e40)]:
        for setting in ("no shrinkage", "shrinkage 0.1"):
            rows.append({"seed": seed, "setting": setting, "chosen_stage": 100 + 10 * seed,
                         "test_deviance": 0.4 + 0.1 * seed, "test_error": 0.1,
                         "test_deviance_last": last if setting == "no shrinkage" else 0.5})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("source", ["synthetic", "committed"])
def test_regularisation_summary_reports_the_mean_the_stages_and_the_worst_seed(
        source, tmp_path, monkeypatch):
    if source == "synthetic":
        monkeypatch.setattr(harness, "RESULTS", tmp_path)
        harness.write_csv(f"{regularisation.NAME}_runs", regularisation_runs())
    runs = harness.read_csv(f"{regularisation.NAME}_runs")
    if runs is None:
        pytest.skip("results/regularisation_runs.csv has not been written")
    text = regularisation.summary(harness.read_csv(regularisation.NAME))
    for cells in table_rows(text, "| setting"):
        group = runs[runs["setting"] == cells["setting"]]
        assert float(cells["test_deviance"]) == pytest.approx(group["test_deviance"].mean(),
                                                              rel=1e-3)
        assert int(cells["chosen_stage_min"]) == group["chosen_stage"].min()
        assert int(cells["chosen_stage_max"]) == group["chosen_stage"].max()
        assert float(cells["worst_last_deviance"]) == pytest.approx(
            group["test_deviance_last"].max(), rel=1e-3)
    if source == "synthetic":
        assert "| no shrinkage | 0.5 | 0.0577 | 0.1 | 0.0 | 100 | 120 | 1e+40 |" in text


def seed000_frame(line_search_share, newton_share):
    return pd.DataFrame([
        {"seed_variant": "gbm", "direction": "gradient", "step": step, "cpu_s": 0.4,
         "outside_learner_share": share}
        for step, share in [("line_search", line_search_share), ("newton", newton_share)]])


def test_seed000_summary_gives_the_line_search_verdict_and_the_newton_share():
    text = seed000.summary(seed000_frame(0.094, 0.152))
    first = text.splitlines()[0]
    assert "line search" in first and "9.4%" in first and "meets the target" in first
    assert "step=newton the worst is 15.2% (misses it)" in first
    assert "quoted, not measured" in first
    assert "misses the target" in seed000.summary(seed000_frame(0.2, 0.05)).splitlines()[0]


def test_staged_test_error_is_one_minus_the_staged_accuracy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=120) > 0, 1.0, -1.0)
    for model in esl_10_2.esl_models(0, n_estimators=5).values():
        model.fit(X[:80], y[:80])
        expected = [np.mean(prediction != y[80:]) for prediction in model.staged_predict(X[80:])]
        np.testing.assert_allclose(esl_10_2.staged_test_error(model, X[80:], y[80:]), expected,
                                   rtol=0, atol=1e-15)
    model = regularisation.regularised_model("subsample 0.5", seed=0, n_estimators=5)
    model.fit(X[:80], y[:80])
    curves = regularisation.staged_test_curves(model, X[80:], y[80:])
    np.testing.assert_allclose(curves["test error"],
                               esl_10_2.staged_test_error(model, X[80:], y[80:]))


def test_hist_trees_ratios_are_against_histgradientboosting_at_the_same_size():
    frame = pd.DataFrame({
        "n_train": [10, 10, 20, 20], "fit_cpu_s": [3.0, 2.0, 10.0, 4.0],
        "library": ["boostlib HistTree", "sklearn HistGradientBoosting"] * 2,
        "peak_extra_mb": [1.0, 2.0, 3.0, 4.0], "x_mb": [2.0, 2.0, 4.0, 4.0],
        "test_log_loss": [0.33, 0.3, 0.2, 0.25],
    })
    out = hist_trees.ratios(frame)
    np.testing.assert_allclose(out.cpu_vs_hgb, [1.5, 1.0, 2.5, 1.0])
    np.testing.assert_allclose(out.memory_vs_X, [0.5, 1.0, 0.75, 1.0])
    np.testing.assert_allclose(out.log_loss_vs_hgb, [0.1, 0.0, -0.2, 0.0], atol=1e-12)


def test_hist_trees_pool_gives_every_size_the_same_test_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(hist_trees, "DATA", tmp_path)
    monkeypatch.setattr(hist_trees, "N_TEST", 50)
    hist_trees.make_pool(200)
    small, large = hist_trees.load(100), hist_trees.load(200)
    np.testing.assert_array_equal(small[2], large[2])  # the same test rows
    np.testing.assert_array_equal(small[0], large[0][:100])
    assert small[0].shape == (100, hist_trees.N_FEATURES) and set(small[1]) == {0, 1}


def test_distributed_fit_puts_the_same_rows_on_the_same_worker_for_every_library():
    """Chunk i of K on worker floor(iW/K): contiguous, equal blocks; the held-out chunks apart."""
    for n in (1000, 1_000_000, 10_000_000, 10_000_001):
        sizes = distributed_fit.chunk_sizes(n)
        assert sum(sizes) == n and len(sizes) >= distributed_fit.MIN_CHUNKS
        assert max(sizes) <= distributed_fit.CHUNK_ROWS
        for workers in (1, 2):
            plan = distributed_fit.chunk_plan(n, workers)
            positions = [position for _, _, position in plan]
            assert positions == sorted(positions) and set(positions) == set(range(workers))
            assert [index for index, _, _ in plan] == list(range(len(sizes)))
    for n in (1_000_000, 10_000_000):  # the sizes the chapter quotes: half the rows each
        plan = distributed_fit.chunk_plan(n, 2)
        assert sum(rows for _, rows, position in plan if position == 0) == n // 2
    test_plan = distributed_fit.chunk_plan(distributed_fit.N_TEST, 2,
                                           distributed_fit.TEST_CHUNKS_FROM)
    assert min(index for index, _, _ in test_plan) > len(distributed_fit.chunk_sizes(10_000_000))


def test_distributed_fit_rows_are_the_chunks_and_the_rounded_rows_have_256_values():
    X, y = distributed_fit.in_memory(2000)
    chunks = [distributed_fit.make_chunk(index, n) for index, n, _ in
              distributed_fit.chunk_plan(2000, 1)]
    np.testing.assert_array_equal(X, np.vstack([c[0] for c in chunks]))
    np.testing.assert_array_equal(y, np.concatenate([c[1] for c in chunks]))
    assert X.dtype == np.float32 and set(np.unique(y)) == {0.0, 1.0}
    assert not np.array_equal(X[:250], X[250:500])  # every chunk its own seed
    X_rounded, y_rounded = distributed_fit.in_memory(2000, rounded=True)
    np.testing.assert_array_equal(y_rounded, y)  # the same labels
    assert max(len(np.unique(column)) for column in X_rounded.T) <= 256
    assert np.abs(X_rounded - X)[np.abs(X) < 5].max() <= 0.5 / distributed_fit.LEVELS + 1e-6


# --- the protocol every comparison follows (harness.py; chapter 7) ---

def test_chosen_stage_is_the_first_minimiser_of_the_validation_curve():
    assert harness.chosen_stage([0.9, 0.5, 0.4, 0.4, 0.6]) == 3
    assert harness.chosen_stage([np.nan, np.inf, 0.7, 0.8]) == 3  # a non-finite value never wins
    rng = np.random.default_rng(0)
    curve = rng.random(50)
    assert curve[harness.chosen_stage(curve) - 1] == curve.min()


def test_validation_split_comes_from_the_training_rows_only():
    from boostlib.datasets import load_split

    split = load_split("breast_cancer", random_state=3)
    X_fit, X_val, y_fit, y_val = harness.validation_split(split.X_train, split.y_train, 3,
                                                          stratify=True)
    assert len(X_val) == round(harness.VALIDATION_FRACTION * len(split.X_train))
    assert len(X_fit) + len(X_val) == len(split.X_train)
    training = {row.tobytes() for row in split.X_train}
    assert all(row.tobytes() in training for row in np.vstack([X_fit, X_val]))
    assert not {row.tobytes() for row in X_val} & {row.tobytes() for row in X_fit}
    assert abs(y_val.mean() - split.y_train.mean()) < 0.02  # stratified


def test_spread_is_the_mean_standard_error_and_range():
    from scipy.stats import sem

    values = [0.91, 0.88, 0.93, 0.90, 0.87]
    out = harness.spread(values)
    assert out["mean"] == pytest.approx(np.mean(values))
    assert out["se"] == pytest.approx(sem(values))
    assert (out["min"], out["max"], out["n"]) == (0.87, 0.93, 5)
    frame = pd.DataFrame({"g": ["a", "a", "b", "b"], "v": [1.0, 3.0, 2.0, 2.0]})
    table = harness.spread_table(frame, "g", "v")
    assert table.loc["a", "mean"] == 2.0 and table.loc["a", "se"] == pytest.approx(1.0)
    assert table.loc["b", "se"] == 0.0


def test_diverged_means_worse_than_the_start_or_not_finite():
    assert not harness.diverged([0.69, 0.5, 0.3])
    assert harness.diverged([0.69, 0.5, 6.8e3])
    assert harness.diverged([0.69, np.inf, 0.3])


def separable_and_noisy(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 2))
    separable = (X[:, 0] > 0).astype(int)
    noisy = ((X[:, 0] + rng.normal(size=200)) > 0).astype(int)
    return X, separable, noisy


def test_cap_watch_counts_the_caps_and_leaves_the_model_unchanged():
    from boostlib import BoostingClassifier
    from boostlib.steps import RHO_MAX

    X, separable, noisy = separable_and_noisy()
    for step in ("line_search", "newton"):
        watch = harness.CapWatch(step)
        model = BoostingClassifier(step=watch, n_estimators=5, random_state=0).fit(X, separable)
        plain = BoostingClassifier(step=step, n_estimators=5, random_state=0).fit(X, separable)
        np.testing.assert_array_equal(model.steps_, plain.steps_)
        assert watch.calls == 5
        # no finite minimiser: the line search stops on the underflowed floor of the
        # loss (stage 1) or at the cap; Newton on ρ walks on by about two per iteration
        # until its iteration cap (stage 1), then jumps to the cap
        assert watch.step_cap + watch.iteration_cap == 5
        assert (np.abs(model.steps_[1:]) == RHO_MAX).all() and abs(model.steps_[0]) < RHO_MAX
        assert watch.iteration_cap == (1 if step == "newton" else 0)
        watch = harness.CapWatch(step)
        BoostingClassifier(step=watch, n_estimators=5, random_state=0).fit(X, noisy)
        assert watch.counts() == {"step_calls": 5, "step_cap": 0, "iteration_cap": 0}
    # the caps by stage: with the chosen stage, only those up to it count
    watch = harness.CapWatch("line_search")
    BoostingClassifier(step=watch, n_estimators=5, random_state=0).fit(X, separable)
    assert watch.step_caps == [0, 1, 2, 3, 4]
    for chosen in (1, 3, 5):
        counts = watch.counts(stages=5, chosen_stage=chosen)
        assert counts["step_cap"] == chosen and counts["step_cap_all"] == 5
        assert counts["first_cap_stage"] == 1 and counts["step_calls"] == 5
    watch.step_caps = [3, 4]  # caps only after the chosen stage decide nothing read there
    assert harness.run_status({"diverged": False, **watch.counts(5, 3)}) == "ok"
    assert watch.counts(5, 4)["first_cap_stage"] == 4
    # K calls per stage: call c is stage c // K + 1
    watch.calls, watch.step_caps = 15, [5, 14]
    counts = watch.counts(stages=5, chosen_stage=2)
    assert (counts["step_cap"], counts["first_cap_stage"]) == (1, 2)
    # absolute error: the line search ends on a kink, where φ″ = 0, and that is no cap
    from boostlib import BoostingRegressor

    watch = harness.CapWatch("line_search")
    BoostingRegressor(loss="absolute_error", step=watch, n_estimators=5,
                      random_state=0).fit(X, X[:, 0] + noisy)
    assert watch.counts() == {"step_calls": 5, "step_cap": 0, "iteration_cap": 0}


def test_held_out_run_chooses_the_stage_on_validation_and_scores_the_test_rows_there():
    from boostlib import BoostingClassifier
    from boostlib.datasets import Split
    from boostlib.plotting import staged_loss

    X, _, y = separable_and_noisy(1)
    split = Split(X[:150], X[150:], y[:150], y[150:])
    model = BoostingClassifier(n_estimators=30, learning_rate=0.5, random_state=0)
    row = harness.held_out_run(model, split, random_state=0, stratify=True)
    X_fit, X_val, y_fit, y_val = harness.validation_split(split.X_train, split.y_train, 0,
                                                          stratify=True)
    assert len(model.train_loss_) == 31  # fitted on the training rows minus validation
    validation = staged_loss(model, X_val, y_val)
    assert row["chosen_stage"] == np.argmin(validation) + 1
    test_loss = staged_loss(model, split.X_test, split.y_test)
    assert row["test_loss"] == test_loss[row["chosen_stage"] - 1]
    assert row["test_loss_last"] == test_loss[-1]
    accuracy = np.mean(list(model.staged_predict(split.X_test))[row["chosen_stage"] - 1]
                       == split.y_test)
    assert row["test_score"] == accuracy
    assert row["budget_decides"] == (row["chosen_stage"] == 30) and not row["diverged"]
    assert not row["F0_preferred"]  # the classes are separable: boosting helps
    F0 = np.full(len(split.y_test), model.init_step_ * model.init_.predict(X[:1])[0])
    assert row["test_loss_F0"] == pytest.approx(model.loss_.mean(split.y_test, F0))


def test_held_out_run_says_when_no_stage_beats_F0_on_validation():
    from boostlib import BoostingRegressor
    from boostlib.datasets import Split

    rng = np.random.RandomState(0)
    X, y = rng.randn(200, 3), rng.randn(200)  # pure noise: deep trees at rate 1 overfit
    split = Split(X[:150], X[150:], y[:150], y[150:])
    model = BoostingRegressor(n_estimators=3, learning_rate=1.0, random_state=0,
                              learner=DecisionTreeRegressor(max_depth=None, random_state=0))
    row = harness.held_out_run(model, split, random_state=0)
    X_fit, X_val, y_fit, y_val = harness.validation_split(split.X_train, split.y_train, 0)
    F0 = np.mean(y_fit)
    assert row["F0_preferred"]
    assert harness.initial_loss(model, X_val, y_val) == pytest.approx(
        np.mean((y_val - F0) ** 2) / 2)
    assert row["test_loss_F0"] == pytest.approx(np.mean((split.y_test - F0) ** 2) / 2)
    assert harness.run_status(row) == "F_0 preferred"


def test_run_status_names_what_decided_the_run():
    ok = {"diverged": False, "step_cap": 0, "iteration_cap": 0, "step_calls": 100,
          "budget_decides": False}
    assert harness.run_status(ok) == "ok"
    assert harness.run_status({**ok, "budget_decides": True}) == "stage budget"
    assert harness.run_status({**ok, "iteration_cap": 7}) == "iteration cap (7/100)"
    assert harness.run_status({**ok, "step_cap": 99, "iteration_cap": 7}) == "step cap (99/100)"
    assert harness.run_status({**ok, "diverged": True, "step_cap": 99}) == "diverged"
    assert harness.run_status({**ok, "F0_preferred": True, "budget_decides": True}) \
        == "F_0 preferred"
    assert harness.run_status({**ok, "F0_preferred": True, "step_cap": 3}) == "step cap (3/100)"


# --- stale results: a CSV older than the boostlib code it measures fails here ---

def git_history_available():
    return harness._git("rev-parse", "HEAD").returncode == 0


def test_every_boostlib_module_is_measured_by_a_benchmark_or_listed_as_not():
    root = harness.ROOT
    covered = {p for paths in harness.MEASURES.values() for p in paths}
    covered |= set(harness.MEASURED_BY_NONE)
    for path in sorted((root / "boostlib").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        assert any(relative == c or relative.startswith(c + "/") for c in covered), relative
    # every benchmark but make_targets (written by `make timings`) is one of run_all.py's
    assert set(harness.MEASURES) - {"make_targets"} == set(run_all.BENCHMARKS)


def test_the_loop_watched_is_every_boostlib_module_the_boosting_loop_imports(tmp_path,
                                                                              monkeypatch):
    assert set(harness.LOOP) == harness.imported_modules("boostlib/boosting.py")
    # and each benchmark watches every boostlib module its script imports by name
    for benchmark, paths in harness.MEASURES.items():
        script = f"benchmarks/{benchmark}.py"
        for module in harness.imported_modules(script) - {script}:
            assert any(module == p or module.startswith(p + "/") for p in paths), (benchmark,
                                                                                   module)
    # the closure follows relative, package-relative and absolute imports, and stops at
    # modules outside boostlib
    monkeypatch.setattr(harness, "ROOT", tmp_path)
    (tmp_path / "boostlib" / "trees").mkdir(parents=True)
    files = {"boostlib/loop.py": "import numpy as np\nfrom .steps import rho\n"
                                 "from .trees import leaves\n",
             "boostlib/steps.py": "from boostlib.losses import g\nrho = g\n",
             "boostlib/losses.py": "g = 1\n",
             "boostlib/trees/leaves.py": "from ..losses import g\n",
             "boostlib/unused.py": "x = 1\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert harness.imported_modules("boostlib/loop.py") == {
        "boostlib/loop.py", "boostlib/steps.py", "boostlib/losses.py", "boostlib/trees/leaves.py"}


def test_stale_modules_compares_the_recorded_commit_with_the_modules_history(tmp_path,
                                                                             monkeypatch):
    if not git_history_available():
        pytest.skip("not a git checkout")
    monkeypatch.setattr(harness, "RESULTS", tmp_path)
    first = harness._git("rev-list", "--max-parents=0", "HEAD").stdout.split()[0]
    head = harness._git("rev-parse", "HEAD").stdout.strip()
    for commit, expected in [(head, []), (first, list(harness.MEASURES["peers"])),
                             (head + "+dirty", list(harness.MEASURES["peers"])),
                             ("0" * 40, list(harness.MEASURES["peers"]))]:
        (tmp_path / "peers.csv").write_text(f"# boostlib_commit={commit} cpu_count=2\na\n1\n")
        assert harness.stale_modules("peers") == expected, commit
    assert harness.benchmark_of("hist_trees_compile") == "hist_trees"
    assert harness.benchmark_of("direction_step_curves") == "direction_step"


def test_code_of_drops_docstrings_and_comments_and_nothing_else():
    source = textwrap.dedent('''
        """Module."""
        import numpy as np


        class A:
            """A class."""

            def f(self, x):
                """f."""
                return np.exp(x)  # e^x


        def g():
            """Only a docstring."""
        ''')
    same = (source.replace('"""f."""', '"""f, reworded: e^x."""').replace("# e^x", "# other")
            .replace('"""Module."""', ""))
    assert harness.code_of(same) == harness.code_of(source)
    for changed in (source.replace("np.exp(x)", "np.exp(-x)"),
                    source.replace("def f(self, x)", "def f(self, y)"),
                    source.replace('"""Only a docstring."""',
                                   '"""Only a docstring."""\n    return 1'),
                    source.replace("return np.exp(x)", "return np.exp(x), 'a message'")):
        assert harness.code_of(changed) != harness.code_of(source)


def test_a_result_goes_stale_when_the_code_it_measures_changes_not_its_docstrings(
        tmp_path, monkeypatch):
    """A repository of its own: one module measured by ``peers``; the CSV records the
    commit it was computed on; docstring and comment edits keep it current, code does not
    (and neither does a new file in a measured folder)."""
    def git(*args):
        subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
                       cwd=tmp_path, check=True, capture_output=True)

    monkeypatch.setattr(harness, "ROOT", tmp_path)
    monkeypatch.setattr(harness, "RESULTS", tmp_path / "benchmarks" / "results")
    monkeypatch.setitem(harness.MEASURES, "peers", ("boostlib/loop.py", "boostlib/trees"))
    (tmp_path / "boostlib" / "trees").mkdir(parents=True)
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    module, tree = tmp_path / "boostlib" / "loop.py", tmp_path / "boostlib" / "trees" / "t.py"
    module.write_text('def step(x):\n    """rho."""\n    return 2 * x\n')
    tree.write_text("LEAVES = 8\n")
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "computed here")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True,
                            text=True).stdout.strip()
    (tmp_path / "benchmarks" / "results" / "peers.csv").write_text(
        f"# boostlib_commit={commit} cpu_count=2\na\n1\n")
    assert harness.stale_modules("peers") == []
    module.write_text('def step(x):\n    """The step rho, reworded."""\n    return 2 * x  # why\n')
    assert harness.stale_modules("peers") == []          # uncommitted docstring edit
    git("commit", "-qam", "docstring")
    assert harness.stale_modules("peers") == []          # committed docstring edit
    module.write_text('def step(x):\n    """rho."""\n    return 3 * x\n')
    assert harness.stale_modules("peers") == ["boostlib/loop.py"]
    module.write_text('def step(x):\n    """rho."""\n    return 2 * x\n')
    (tree.parent / "new.py").write_text("X = 1\n")
    assert harness.stale_modules("peers") == ["boostlib/trees"]


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda path: path.name)
def test_no_result_file_is_older_than_the_boostlib_code_it_measures(path):
    if not git_history_available():
        pytest.skip("not a git checkout")
    stale = harness.stale_modules(path.stem)
    commit, script = harness.recorded_commit(path.stem), harness.benchmark_of(path.stem)
    if path.stem in harness.KNOWN_STALE:  # listed to be re-run; once re-run, unlist it
        assert stale, f"{path.name} is current: remove it from harness.KNOWN_STALE"
        return
    assert not stale, (f"{path.name} was computed on boostlib {commit}; changed since: {stale}."
                       f" Re-run benchmarks/{script}.py")


def test_mean_step_and_the_matched_learning_rate():
    from boostlib import BoostingClassifier

    X, _, y = separable_and_noisy(2)
    model = BoostingClassifier(n_estimators=6, random_state=0).fit(X, y)
    staged = list(model.staged_decision_function(X))
    pairs = zip(staged[:-1], staged[1:], strict=True)
    expected = np.mean([np.mean(np.abs(b - a)) for a, b in pairs])
    assert direction_step.mean_step(model, X) == pytest.approx(expected)
    # a rule matched to itself keeps its learning rate
    assert direction_step.matched_learning_rate(
        "log_loss", X, y, reference=("gradient", "line_search"), stages=5) == pytest.approx(0.1)


def test_post_threshold_accuracy_uses_the_f1_threshold_of_the_fit_rows():
    from boostlib.datasets import load_split
    from boostlib.evaluation import f1_optimal_threshold

    data = load_split("hastie", random_state=0)
    model = direction_step.study_model("binomial_deviance", "gradient", "leaf_newton",
                                       n_estimators=5)
    X_fit, _, y_fit, _ = harness.validation_split(data.X_train, data.y_train, 0, stratify=True)
    model.fit(X_fit, y_fit)
    threshold, accuracy = direction_step.post_threshold_accuracy(model, data, 3, 0)
    F_fit = list(model.staged_decision_function(X_fit))[2]
    assert threshold == f1_optimal_threshold(y_fit, F_fit)[0]
    F_test = list(model.staged_decision_function(data.X_test))[2]
    assert accuracy == np.mean(np.where(F_test >= threshold, 1, -1) == data.y_test)


def test_blow_up_measures_the_exact_per_point_loss():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=300) > 0, 1, -1)
    for setting in ("shrinkage 0.1", "subsample 0.5"):
        model = regularisation.regularised_model(setting, seed=0, n_estimators=30)
        model.fit(X[:200], y[:200])
        errors = regularisation.staged_test_curves(model, X[200:], y[200:])["test error"]
        out = regularisation.blow_up(model, X[200:], y[200:], errors)
        F = model.decision_function(X[200:])
        assert out["max_abs_F"] == np.abs(F).max()
        assert out["points_blown_up"] == np.sum(np.abs(F) > regularisation.BLOWN_UP)
        if setting == "shrinkage 0.1":  # moderate scores: the textbook formula is exact
            per_point = np.log1p(np.exp(-y[200:] * F))
            assert out["worst10_share"] == pytest.approx(np.sort(per_point)[-10:].sum()
                                                         / per_point.sum())
            assert out["first_blown_up_stage"] == 0
        else:  # ν = 1 with half-samples on separable-ish data: some scores run away
            assert out["points_blown_up"] > 0 and out["first_blown_up_stage"] > 0
            margin = np.where(y[200:] > 0, 1.0, -1.0) * F
            per_point = np.logaddexp(0, -margin)
            blown = np.abs(F) > regularisation.BLOWN_UP
            assert out["blown_up_share"] == pytest.approx(per_point[blown].sum()
                                                          / per_point.sum())
            assert out["blown_up_wrong"] == np.sum(blown & (margin < 0))
            changes = np.count_nonzero(np.diff(errors[out["first_blown_up_stage"] - 1:]))
            assert out["error_changes_after"] == changes


def test_resumed_parts_are_keyed_by_the_boostlib_commit(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "RESULTS", tmp_path / "benchmarks" / "results")
    monkeypatch.setattr(harness, "boostlib_commit", lambda: "abc1234")
    assert harness.resumed("study", "part") is None
    harness.resumed("study", "part", {"rows": [1, 2]})
    assert harness.resumed("study", "part") == {"rows": [1, 2]}
    assert (tmp_path / ".cache" / "study" / "part.pkl").exists()
    monkeypatch.setattr(harness, "boostlib_commit", lambda: "def5678")
    assert harness.resumed("study", "part") is None  # computed on other code
    monkeypatch.setattr(harness, "boostlib_commit", lambda: "def5678+dirty")
    harness.resumed("study", "part", {"rows": [3]})
    assert harness.resumed("study", "part") is None  # uncommitted code is never reused
