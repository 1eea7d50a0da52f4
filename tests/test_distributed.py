"""boostlib's losses and directions on XGBoost and Dask (boostlib.distributed, chapter 9).

One LocalCluster per test process (2 worker processes, 1 thread each), started by a
module-scoped fixture and closed at its end; the fixture then asserts that no
worker process is left. Features are integers with fewer distinct values than
histogram bins, so XGBoost's bins hold one value each and its histogram splits
are the exact splits of boostlib's scikit-learn trees.
"""

import json
import logging
import os
import pickle
import time

import numpy as np
import pytest

pytest.importorskip("xgboost")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
import psutil  # noqa: E402
import xgboost as xgb  # noqa: E402
from distributed import Client, LocalCluster, futures_of, wait  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.tree import DecisionTreeRegressor  # noqa: E402

from boostlib import BoostingClassifier, BoostingRegressor  # noqa: E402
from boostlib.directions import DIRECTIONS  # noqa: E402
from boostlib.distributed import (  # noqa: E402
    RANK_LINE,
    DaskBoostingClassifier,
    DaskBoostingRegressor,
    HideRankLines,
    _scatter_rows,
    local_client,
    xgboost_objective,
)
from boostlib.losses import LOSSES  # noqa: E402

STAGES = 20
PARAMETERS = ["loss", "direction", "n_estimators", "learning_rate", "max_depth",
              "l2_regularization", "min_child_weight", "max_bins", "client"]


@pytest.fixture(scope="module")
def client():
    """A 2-worker LocalCluster (processes, 1 thread each); no worker outlives it."""
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           silence_logs=logging.ERROR, dashboard_address=":0")
    # not the default client: the test of client=None must find none
    client = Client(cluster, set_as_default=False)
    client.register_plugin(HideRankLines())
    workers = set(client.run(os.getpid).values())
    assert len(workers) == 2
    yield client
    client.close()
    cluster.close()
    deadline = time.monotonic() + 30
    while any(psutil.pid_exists(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [pid for pid in workers if psutil.pid_exists(pid)
             and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"worker processes left behind: {alive}"
    # what may remain is multiprocessing's resource tracker, which lives as long as we do
    others = [" ".join(p.cmdline()) for p in psutil.Process().children(recursive=True)]
    assert all("resource_tracker" in cmd for cmd in others), others


def integer_data(n=600, d=5, classes=2, seed=0):
    """Integer features 0 … 11 and labels from a noisy linear score."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 12, size=(n, d)).astype(float)
    score = X @ np.linspace(1.0, -0.6, d) + 3.0 * rng.normal(size=n)
    if classes is None:
        return X, score
    edges = np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1])
    return X, np.digitize(score, edges)


def boostlib_loop(estimator, loss, direction, depth, **kwargs):
    """boostlib's loop as XGBoost runs it: newton-style leaves, ρ = 1, depth-limited trees."""
    return estimator(loss=loss, direction=direction, step="constant", init="constant",
                     learner=DecisionTreeRegressor(max_depth=depth), n_estimators=STAGES,
                     learning_rate=0.1, random_state=0, **kwargs)


def trees(booster):
    """Every tree of a booster: structure (exact) and numbers (to compare with a tolerance)."""
    model = json.loads(booster.save_raw("json"))["learner"]["gradient_booster"]["model"]
    return [({key: tree[key] for key in ("split_indices", "left_children", "right_children")},
             {key: np.asarray(tree[key], float) for key in ("split_conditions", "base_weights")})
            for tree in model["trees"]]


# -- the objective, without a cluster ----------------------------------------------------

def objective_cases():
    for name, cls in sorted(LOSSES.items()):
        loss = cls()
        for direction in DIRECTIONS:
            try:
                xgboost_objective(loss, direction)
            except ValueError:
                continue
            yield pytest.param(name, direction, id=f"{name}-{direction}")


@pytest.mark.parametrize("name, direction", list(objective_cases()))
def test_objective_is_minus_w_z_and_w(name, direction):
    """grad = −ω w z and hess = ω w for every loss and direction, in XGBoost's shapes."""
    loss = LOSSES[name]()
    rng = np.random.default_rng(1)
    n, K = 50, 3
    if loss.vector and loss.labels:  # softmax: XGBoost's class indices
        codes = rng.integers(0, K, n)
        label, y, F = codes.astype(float), np.eye(K)[codes], rng.normal(size=(n, K))
    elif loss.vector:
        label = y = rng.normal(size=(n, K)).astype(np.float32)  # a DMatrix keeps float32
        F = rng.normal(size=(n, K))
    elif loss.labels:  # XGBoost's {0, 1}; the ±1 losses map 0 to −1
        label = rng.integers(0, 2, n).astype(float)
        y = np.where(label == 1, loss.labels[1], loss.labels[0]).astype(float)
        F = rng.normal(size=n)
    else:
        label = y = rng.normal(size=n).astype(np.float32)
        F = rng.normal(size=n)
    omega = rng.uniform(0.5, 2.0, n).astype(np.float32)
    dtrain = xgb.DMatrix(np.zeros((n, 1)), label=label, weight=omega)
    grad, hess = xgboost_objective(name, direction)(F.astype(np.float32), dtrain)
    z, w = DIRECTIONS[direction](loss, np.asarray(y, float), F.astype(np.float32).astype(float))
    w = omega * w
    if loss.vector:
        w = np.broadcast_to(w[:, None], (n, K))
    assert grad.shape == hess.shape == F.shape
    np.testing.assert_allclose(grad, -w * z, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hess, w, rtol=1e-12)
    # and XGBoost's leaf −Σgrad/Σhess is the weighted mean of z
    np.testing.assert_allclose(-grad.sum(axis=0) / hess.sum(axis=0),
                               (w * z).sum(axis=0) / w.sum(axis=0), rtol=1e-10)


def test_objective_pickles_and_names_itself():
    objective = xgboost_objective("log_loss", "gradient")
    assert "direction='gradient'" in repr(objective)
    copy = pickle.loads(pickle.dumps(objective))
    dtrain = xgb.DMatrix(np.zeros((4, 1)), label=[0, 1, 1, 0])
    F = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
    for a, b in zip(copy(F, dtrain), objective(F, dtrain), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_single_machine_xgboost_with_the_objective_is_boostlibs_loop(direction, depth):
    """Every direction of the log loss: xgboost.train (exact, one process) = boostlib's loop."""
    X, y = integer_data()
    ours = boostlib_loop(BoostingClassifier, "log_loss", direction, depth).fit(X, y)
    dtrain = xgb.DMatrix(X, label=y, base_margin=np.full(len(y), ours.init_.constant_.item()))
    params = {"tree_method": "exact", "max_depth": depth, "eta": 0.1, "reg_lambda": 0.0,
              "min_child_weight": 0.0, "nthread": 1, "verbosity": 0}
    booster = xgb.train(params, dtrain, STAGES, obj=xgboost_objective("log_loss", direction))
    np.testing.assert_allclose(booster.predict(dtrain, output_margin=True),
                               ours.decision_function(X), rtol=0, atol=1e-5)


def test_objective_refuses_steps_and_unsupported_directions():
    for step in ("line_search", "leaf_newton"):
        with pytest.raises(ValueError, match="is a step, not a direction, and cannot be distr"):
            xgboost_objective("log_loss", step)
    with pytest.raises(ValueError, match="is a step, not a direction: ρ = 1 is the step every"):
        xgboost_objective("log_loss", "constant")
    with pytest.raises(ValueError, match="direction='gradient' is TreeBoost here"):
        xgboost_objective("squared_error", "leaf_newton")
    with pytest.raises(ValueError, match=r"'newton_unweighted'\]\.$"):  # not for the log loss
        xgboost_objective("log_loss", "leaf_newton")
    with pytest.raises(ValueError, match="line search minimises Σ L"):
        xgboost_objective("squared_error", "line_search")
    with pytest.raises(ValueError, match="absolute error and Huber.s loss, the minimiser of the"):
        xgboost_objective("absolute_error", "leaf_newton")
    with pytest.raises(ValueError, match="positive Hessian"):
        xgboost_objective("absolute_error", "newton")
    with pytest.raises(ValueError, match="positive Hessian"):
        xgboost_objective("huber", "newton_unweighted")
    with pytest.raises(ValueError, match="scalar losses only"):
        xgboost_objective("softmax", "newton_raphson")
    with pytest.raises(ValueError, match="not one of"):
        xgboost_objective("log_loss", "sideways")


def test_local_client_is_quiet_and_takes_its_workers_with_it(capfd):
    """A fit on local_client's cluster writes nothing to stderr; close() ends the workers."""
    X, y = integer_data(n=200)
    client = local_client(n_workers=1)
    try:
        workers = set(client.run(os.getpid).values())
        assert len(workers) == 1 and sum(client.nthreads().values()) == 1
        DaskBoostingClassifier(n_estimators=2, client=client).fit(X, y)
    finally:
        client.close()
    deadline = time.monotonic() + 30
    while any(psutil.pid_exists(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if psutil.pid_exists(pid)
                and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    assert capfd.readouterr().err == ""


def test_rank_lines_are_dropped_and_everything_else_kept():
    read_in, write_in = os.pipe()
    read_out, write_out = os.pipe()
    lines = [b"[16:18:33] Task [xgboost.dask-1]:tcp://127.0.0.1:38979 got rank 1\n",
             b"a real warning\n", b"[16:18:33] Task T got rank 0\n", b"Task got rank\n"]
    with os.fdopen(write_in, "wb") as sink:
        sink.writelines(lines)
    HideRankLines._pump(read_in, write_out)
    with os.fdopen(read_out, "rb") as source:
        assert source.read() == b"a real warning\nTask got rank\n"
    assert RANK_LINE.match(lines[0]) and not RANK_LINE.match(lines[1])


# -- on the cluster ----------------------------------------------------------------------

CLASSIFIER_CASES = [
    *[("log_loss", direction, 2, 2) for direction in sorted(DIRECTIONS)],
    ("binomial_deviance", "newton", 3, 2),  # labels ±1
    ("exponential", "gradient", 2, 2),
    ("log_loss", "newton", 2, 3),  # softmax, one multi-output tree per stage
]


@pytest.mark.parametrize("loss, direction, depth, classes", CLASSIFIER_CASES,
                         ids=[f"{c[0]}-{c[1]}-depth{c[2]}-{c[3]}classes" for c in CLASSIFIER_CASES])
def test_classifier_on_two_workers_is_boostlibs_loop(client, loss, direction, depth, classes):
    X, y = integer_data(classes=classes)
    labels = np.array(["low", "mid", "high"])[y] if classes == 3 else y
    # multi-class: XGBoost's multi-output tree is boostlib's joint scheme, not per class
    joint = {"multiclass": "joint"} if classes > 2 else {}
    ours = boostlib_loop(BoostingClassifier, loss, direction, depth, **joint).fit(X, labels)
    theirs = DaskBoostingClassifier(loss=loss, direction=direction, max_depth=depth,
                                    n_estimators=STAGES, client=client).fit(X, labels)
    np.testing.assert_array_equal(theirs.classes_, ours.classes_)
    assert theirs.loss_.name == ours.loss_.name
    # the start, computed on the cluster, is boostlib's optimal constant
    np.testing.assert_allclose(theirs.init_, ours.init_.constant_.ravel(), rtol=1e-12)
    np.testing.assert_allclose(theirs.decision_function(X), ours.decision_function(X),
                               rtol=0, atol=1e-5)
    np.testing.assert_allclose(theirs.predict_proba(X), ours.predict_proba(X), atol=1e-5)
    np.testing.assert_array_equal(theirs.predict(X), ours.predict(X))


REGRESSOR_CASES = [("squared_error", "newton"), ("huber", "gradient"), ("quadratic", "newton")]


@pytest.mark.parametrize("loss, direction", REGRESSOR_CASES,
                         ids=[f"{loss}-{direction}" for loss, direction in REGRESSOR_CASES])
def test_regressor_on_two_workers_is_boostlibs_loop(client, loss, direction):
    X, y = integer_data(classes=None)
    if loss == "quadratic":
        y = np.column_stack([y, np.sin(y)])
    ours = boostlib_loop(BoostingRegressor, loss, direction, 2).fit(X, y)
    theirs = DaskBoostingRegressor(loss=loss, direction=direction, max_depth=2,
                                   n_estimators=STAGES, client=client).fit(X, y)
    np.testing.assert_allclose(theirs.init_, ours.init_.constant_.ravel(), rtol=1e-9)
    np.testing.assert_allclose(theirs.predict(X), ours.predict(X), rtol=0, atol=1e-5)


def test_numpy_input_is_spread_over_both_workers(client):
    """One block of rows per worker, each block's labels on the same worker."""
    X, y = integer_data(n=101)
    X_blocks, y_blocks = client.persist(_scatter_rows(client, [X, y]))
    with client.as_current():
        placement = [[client.who_has(future)[future.key] for future in
                      sorted(wait(futures_of(blocks)).done, key=lambda f: f.key[1:])]
                     for blocks in (X_blocks, y_blocks)]
    assert placement[0] == placement[1] and len({workers[0] for workers in placement[0]}) == 2
    np.testing.assert_array_equal(client.compute(X_blocks).result(), X)
    np.testing.assert_array_equal(client.compute(y_blocks).result(), y)


@pytest.mark.parametrize("classes", [2, 3])
def test_xgboost_reads_blocks_already_held_where_their_rows_are(client, classes, monkeypatch):
    """X, the labels and the start F_0 reach XGBoost computed, block i of each on X's worker.

    XGBoost gathers block i's pieces on one worker; were any still to be computed, a busy
    worker's block could be gathered on the other one, the workers would hold other rows
    from run to run, and so would their quantile sketches (the bins, then the trees).
    """
    import xgboost.dask as dxgb

    seen = []

    class Spy(dxgb.DaskQuantileDMatrix):
        def __init__(self, client, data, label=None, *, base_margin=None, **kwargs):
            seen.append([data, label, base_margin])
            super().__init__(client, data, label, base_margin=base_margin, **kwargs)

    monkeypatch.setattr(dxgb, "DaskQuantileDMatrix", Spy)
    X, y = integer_data(n=301, classes=classes)
    X = X + np.random.default_rng(1).normal(scale=0.1, size=X.shape)  # continuous
    DaskBoostingClassifier(n_estimators=2, client=client).fit(X, y)
    [arrays] = seen
    places = []
    for array in arrays:
        blocks = sorted(futures_of(array), key=lambda future: future.key[1:])
        assert len(blocks) == 2 and all(future.status == "finished" for future in blocks)
        places.append([client.who_has(future)[future.key] for future in blocks])
    assert places[0] == places[1] == places[2] and len({p[0] for p in places[0]}) == 2


@pytest.mark.parametrize("classes", [2, 3])
def test_dask_training_is_single_machine_xgboost_with_the_same_objective(client, classes):
    """The same trees, split for split: the workers' histograms add up to one machine's."""
    X, y = integer_data(classes=classes)
    model = DaskBoostingClassifier(max_depth=3, n_estimators=STAGES, client=client).fit(X, y)
    params = {"tree_method": "hist", "max_depth": 3, "eta": 0.1, "reg_lambda": 0.0,
              "min_child_weight": 1e-3, "max_bin": 256, "nthread": 1, "verbosity": 0}
    margin = np.broadcast_to(model.init_, (len(y), classes) if classes > 2 else (len(y),))
    if classes > 2:
        params.update(num_class=classes, multi_strategy="multi_output_tree")
    dtrain = xgb.QuantileDMatrix(X, label=y, base_margin=np.ascontiguousarray(margin),
                                 max_bin=256)
    single = xgb.train(params, dtrain, STAGES, obj=xgboost_objective(model.loss_, "newton"))
    dask_trees, single_trees = trees(model.booster_), trees(single)
    assert len(dask_trees) == len(single_trees) == STAGES
    for (shape_a, numbers_a), (shape_b, numbers_b) in zip(dask_trees, single_trees,
                                                          strict=True):
        assert shape_a == shape_b
        for key in numbers_a:
            np.testing.assert_allclose(numbers_a[key], numbers_b[key], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.decision_function(X),
                               single.predict(dtrain, output_margin=True), atol=1e-6)


def test_dask_arrays_frames_and_numpy_give_one_model(client):
    X, y = integer_data(n=400, classes=3)
    names = np.array(["a", "b", "c"])[y]
    kwargs = dict(n_estimators=10, max_depth=2, client=client)
    on_numpy = DaskBoostingClassifier(**kwargs).fit(X, names)
    X_dask, y_dask = da.from_array(X, chunks=150), da.from_array(names, chunks=150)
    on_dask = DaskBoostingClassifier(**kwargs).fit(X_dask, y_dask)
    frame = dd.from_pandas(pd.DataFrame(X, columns=list("pqrst")), npartitions=3)
    series = dd.from_pandas(pd.Series(names), npartitions=3)
    on_frame = DaskBoostingClassifier(**kwargs).fit(frame, series)
    assert list(on_frame.feature_names_in_) == list("pqrst")
    assert not hasattr(on_numpy, "feature_names_in_")
    reference = on_numpy.decision_function(X)
    assert isinstance(reference, np.ndarray) and reference.shape == (400, 3)
    for model in (on_numpy, on_dask, on_frame):
        np.testing.assert_array_equal(model.classes_, ["a", "b", "c"])
        np.testing.assert_allclose(model.decision_function(X), reference, atol=1e-6)
    with client.as_current():
        for data in (X_dask, frame):
            for method in ("decision_function", "predict_proba", "predict"):
                result = getattr(on_frame, method)(data)
                assert isinstance(result, da.Array), (method, type(result))
                np.testing.assert_array_equal(result.compute(), getattr(on_frame, method)(X))
    proba = on_dask.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(on_dask.predict(X), on_dask.classes_[proba.argmax(axis=1)])


def test_parquet_frames_fit_as_numpy_does(client, tmp_path):
    # chapter 9's "On a real cluster" pattern: one column of a parquet frame is read from
    # fewer partitions than the whole frame (dask merges small files when it reads less)
    X, y = integer_data(n=400)
    table = pd.DataFrame(X, columns=list("pqrst")).assign(label=y)
    for part in range(4):
        table.iloc[100 * part:100 * (part + 1)].to_parquet(tmp_path / f"part{part}.parquet")
    frame = dd.read_parquet(str(tmp_path / "*.parquet"))
    kwargs = dict(n_estimators=5, max_depth=2, client=client)
    on_frame = DaskBoostingClassifier(**kwargs).fit(frame.drop(columns="label"), frame["label"])
    on_numpy = DaskBoostingClassifier(**kwargs).fit(X, y)
    np.testing.assert_allclose(on_frame.decision_function(X), on_numpy.decision_function(X),
                               atol=1e-6)
    with client.as_current():
        predicted = on_frame.predict(frame.drop(columns="label")).compute()
    np.testing.assert_array_equal(predicted, on_numpy.predict(X))


def test_binary_dask_outputs_have_the_shapes_of_numpy_outputs(client):
    X, y = integer_data(n=300)
    model = DaskBoostingClassifier(loss="exponential", n_estimators=5, client=client).fit(X, y)
    X_dask = da.from_array(X, chunks=100)
    assert model.decision_function(X_dask).shape == (300,)
    assert model.predict_proba(X_dask).compute().shape == (300, 2)
    np.testing.assert_array_equal(model.predict(X_dask).compute(), model.predict(X))
    regressor = DaskBoostingRegressor(n_estimators=5, client=client).fit(X_dask, y * 1.5)
    assert isinstance(regressor.predict(X_dask), da.Array)
    np.testing.assert_allclose(regressor.predict(X_dask).compute(), regressor.predict(X))


def test_the_default_client_is_used_when_client_is_none(client):
    X, y = integer_data(n=200)
    with client.as_current():
        model = DaskBoostingClassifier(n_estimators=3).fit(X, y)
    assert model.n_estimators_ == 3


def test_a_fitted_model_pickles_without_its_client(client):
    X, y = integer_data(n=200)
    model = DaskBoostingClassifier(n_estimators=5, client=client).fit(X, y)
    assert model.get_params()["client"] is client
    copy = pickle.loads(pickle.dumps(model))
    assert copy.client is None and model.client is client
    np.testing.assert_array_equal(copy.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(copy.classes_, model.classes_)


@pytest.mark.parametrize("estimator", [DaskBoostingClassifier, DaskBoostingRegressor])
def test_scikit_learn_conventions(estimator):
    model = estimator(max_depth=2)
    assert sorted(model.get_params()) == sorted(PARAMETERS)
    assert model.get_params()["direction"] == "newton"
    assert model.get_params()["min_child_weight"] == 1e-3
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(NotFittedError):
        model.predict(np.zeros((2, 3)))


# -- errors --------------------------------------------------------------------------------

def test_no_client_says_how_to_start_one():
    X, y = integer_data(n=50)
    with pytest.raises(ValueError, match=r"(?s)no Client was given.*LocalCluster") as error:
        DaskBoostingClassifier(n_estimators=2).fit(X, y)
    assert "Client('tcp://scheduler:8786')" in str(error.value)


@pytest.mark.parametrize("estimator, kwargs, match", [
    (DaskBoostingRegressor, {"direction": "line_search"}, "cannot be distributed this way"),
    (DaskBoostingClassifier, {"direction": "leaf_newton"}, "cannot be distributed this way"),
    (DaskBoostingRegressor, {"loss": "absolute_error", "direction": "gradient"},
     "median of y"),
    (DaskBoostingRegressor, {"loss": "absolute_error", "direction": "gradient"},
     r"no hook after the tree.*objective='reg:absoluteerror'"),
    (DaskBoostingRegressor, {"loss": "absolute_error", "direction": "gradient"},
     r"loss='huber' with direction='gradient'.*or loss='squared_error'"),
    (DaskBoostingRegressor, {"loss": "huber"}, "positive Hessian"),
    (DaskBoostingRegressor, {"loss": "log_loss"}, "classification loss"),
    (DaskBoostingClassifier, {"loss": "squared_error"}, "regression loss"),
    (DaskBoostingClassifier, {"n_estimators": 0}, "n_estimators"),
    (DaskBoostingClassifier, {"learning_rate": -1}, "learning_rate"),
    (DaskBoostingClassifier, {"max_depth": 0}, "max_depth"),
    (DaskBoostingClassifier, {"l2_regularization": -0.5}, "l2_regularization"),
    (DaskBoostingClassifier, {"min_child_weight": np.nan}, "min_child_weight"),
    (DaskBoostingClassifier, {"max_bins": 1}, "max_bins"),
])
def test_bad_settings_are_refused_before_any_work(estimator, kwargs, match):
    """Refused without a cluster: parameters are checked before the client is looked up."""
    X, y = integer_data(n=50)
    with pytest.raises(ValueError, match=match):
        estimator(**kwargs).fit(X, y)


def test_bad_data_is_refused(client):
    X, y = integer_data(n=60, classes=3)
    with pytest.raises(ValueError, match="only one class"):
        DaskBoostingClassifier(client=client).fit(X, np.zeros(60))
    with pytest.raises(ValueError, match="binary only, but y has 3 classes"):
        DaskBoostingClassifier(loss="exponential", client=client).fit(X, y)
    with pytest.raises(ValueError, match="scalar losses only"):
        DaskBoostingClassifier(direction="newton_raphson", client=client).fit(X, y)
    with pytest.raises(ValueError, match="different numbers of rows"):
        DaskBoostingClassifier(client=client).fit(X, y[:-1])
    with pytest.raises(ValueError, match="continuous"):
        DaskBoostingClassifier(client=client).fit(X, X[:, 0] + 0.5)
    with pytest.raises(ValueError, match="use loss='quadratic'"):
        DaskBoostingRegressor(client=client).fit(X, np.column_stack([y, y]))
    model = DaskBoostingClassifier(n_estimators=2, client=client).fit(X, y)
    with pytest.raises(ValueError, match="X has 4 features"):
        model.predict(X[:, :4])
