"""The same ``random_state``, the same model: the binning subsample follows it.

Over ``SUBSAMPLE`` rows the histogram tree places its thresholds from a random
subsample. Alone, a :class:`HistTreeRegressor` draws it from its own
``random_state``; inside a boosting fit, from the seed
:func:`~boostlib.trees.binning.binning_seed` takes from the estimator's
``random_state`` (HistGradientBoosting's first draw, from a copy of the state),
so the bags and learners keep scikit-learn GradientBoosting's draws.
"""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.ensemble._gradient_boosting import _random_sample_mask

import boostlib.subsampling
from boostlib import BoostingClassifier, BoostingRegressor
from boostlib.trees import Binner, HistTreeRegressor, binning
from boostlib.trees.binning import binning_seed

ROOT = Path(__file__).resolve().parents[1]

# The fits of a rerun, here and in a fresh process (numpy's global state is
# seeded afresh there, as in a user's rerun). SUBSAMPLE is lowered so that 400
# rows are "more than the subsample"; everything else is the real fit.
FITS = r"""
import hashlib
import numpy as np
from boostlib.trees import binning
binning.SUBSAMPLE = 100
from boostlib import BoostingClassifier
from boostlib.trees import HistTreeRegressor

rng = np.random.RandomState(0)
X = rng.uniform(size=(400, 3))
y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0.5).astype(int)


def fingerprint(binner, F):
    digest = hashlib.sha256()
    for t in binner.thresholds_:
        digest.update(t.tobytes())
    digest.update(np.ascontiguousarray(F).tobytes())
    return digest.hexdigest()


def boosting(random_state):
    model = BoostingClassifier(direction="newton", step="constant", n_estimators=3,
                               learner=HistTreeRegressor(max_depth=3, max_bins=16),
                               random_state=random_state).fit(X, y)
    return fingerprint(model.binner_, model.decision_function(X))


def tree(random_state):
    model = HistTreeRegressor(max_depth=3, max_bins=16, random_state=random_state).fit(X, y)
    return fingerprint(model.binner_, model.predict(X))


def fingerprints():
    out = {"boosting 0": boosting(0), "boosting 1": boosting(1), "tree 0": tree(0),
           "tree 1": tree(1), "boosting None": boosting(None), "tree None": tree(None)}
    np.random.seed(7)
    out["boosting None, np.random.seed(7)"] = boosting(None)
    np.random.seed(7)
    out["tree None, np.random.seed(7)"] = tree(None)
    return out
"""


def in_a_fresh_process():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    run = subprocess.run(
        [sys.executable, "-c", FITS + "\nimport json\nprint(json.dumps(fingerprints()))"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_same_random_state_gives_the_same_model_in_two_processes(monkeypatch):
    """More rows than the subsample: with an int random_state both fits are identical,
    bit for bit, alone and through the boosting loop. With random_state=None the
    subsample comes from numpy's global state, seeded afresh in every process: the
    two models differ, unless the global state is seeded (``np.random.seed``)."""
    monkeypatch.setattr(binning, "SUBSAMPLE", 100)  # restored after the test
    namespace = {}
    exec(FITS, namespace)
    first, second = namespace["fingerprints"](), in_a_fresh_process()
    for key in ("boosting 0", "boosting 1", "tree 0", "tree 1",
                "boosting None, np.random.seed(7)", "tree None, np.random.seed(7)"):
        assert first[key] == second[key], key
    # the subsample matters, so the equality above is not vacuous
    assert first["boosting 0"] != first["boosting 1"]
    assert first["tree 0"] != first["tree 1"]
    for key in ("boosting None", "tree None"):
        assert first[key] != second[key], key


def data(n=300, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, 3))
    return X, X[:, 0] + 0.3 * rng.normal(size=n)


def test_the_boosting_bins_come_from_the_estimators_random_state(monkeypatch):
    """Binner(random_state=binning_seed(random_state)) on the rows of positive weight;
    the learner's own random_state plays no part (the estimator's replaces it)."""
    monkeypatch.setattr(binning, "SUBSAMPLE", 100)
    X, y = data()
    s = (np.arange(len(y)) % 4 > 0).astype(float)
    kwargs = dict(direction="newton", step="constant", n_estimators=2)
    model = BoostingRegressor(learner=HistTreeRegressor(max_bins=16, random_state=5),
                              random_state=3, **kwargs).fit(X, y, sample_weight=s)
    expected = Binner(16, random_state=binning_seed(3)).fit(X, s)
    for got, want in zip(model.binner_.thresholds_, expected.thresholds_, strict=True):
        np.testing.assert_array_equal(got, want)
    other = BoostingRegressor(learner=HistTreeRegressor(max_bins=16), random_state=3,
                              **kwargs).fit(X, y, sample_weight=s)
    np.testing.assert_array_equal(model.predict(X), other.predict(X))


def test_binning_takes_no_draw_from_the_loop(monkeypatch):
    """The bags are the masks scikit-learn's GradientBoosting draws from RandomState(seed),
    stage after stage, as if there were no binning; a RandomState in the same state as
    the int gives the same model, and is left as the bags alone leave it."""
    monkeypatch.setattr(binning, "SUBSAMPLE", 100)
    X, y = data()
    masks = []

    def spy(n, n_inbag, rng):
        masks.append(_random_sample_mask(n, n_inbag, rng))
        return masks[-1]

    monkeypatch.setattr(boostlib.subsampling, "_random_sample_mask", spy)
    kwargs = dict(learner=HistTreeRegressor(max_bins=16), n_estimators=4, subsample=0.5)
    model = BoostingRegressor(random_state=3, **kwargs).fit(X, y)
    rng = np.random.RandomState(3)
    expected = [_random_sample_mask(len(y), len(y) // 2, rng) for _ in range(4)]
    np.testing.assert_array_equal(masks, expected)
    state = np.random.RandomState(3)
    same = BoostingRegressor(random_state=state, **kwargs).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), same.predict(X))
    assert state.randint(2**31) == rng.randint(2**31)  # four bags drawn, nothing else


@pytest.mark.parametrize("random_state", [0, 42, "RandomState(3)"])
def test_binning_seed_is_hist_gradient_boostings_first_draw(random_state):
    """HistGradientBoosting seeds its binning with the first number it draws from its
    random_state (its ``_random_seed``); binning_seed is that number, drawn from a copy."""
    def make():
        return np.random.RandomState(3) if random_state == "RandomState(3)" else random_state

    X, y = data(n=40)
    peer = HistGradientBoostingRegressor(max_iter=1, random_state=make()).fit(X, y)
    state = make()
    assert binning_seed(state) == peer._random_seed
    assert binning_seed(state) == peer._random_seed  # the copy: state did not move


def test_binning_seed_of_none_reads_the_global_state_without_moving_it():
    np.random.seed(11)
    before = np.random.get_state()[1].copy()
    seed = binning_seed(None)
    np.testing.assert_array_equal(np.random.get_state()[1], before)
    assert seed == np.random.RandomState(11).randint(np.iinfo(np.uint32).max, dtype="u8")


def test_int_random_state_gives_the_same_classifier_twice_in_one_process(monkeypatch):
    monkeypatch.setattr(binning, "SUBSAMPLE", 100)
    X, y = data()
    y = (y > 0.5).astype(int)
    kwargs = dict(direction="newton", step="constant", n_estimators=2,
                  learner=HistTreeRegressor(max_bins=16), random_state=0)
    np.random.seed(1)
    a = BoostingClassifier(**kwargs).fit(X, y)
    np.random.seed(2)  # the global state plays no part
    b = BoostingClassifier(**kwargs).fit(X, y)
    digest = [hashlib.sha256(m.decision_function(X).tobytes()).hexdigest() for m in (a, b)]
    assert digest[0] == digest[1]
