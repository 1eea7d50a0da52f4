r"""Beyond one machine: boostlib's losses and directions on XGBoost and Dask (chapter 9).

A direction turns the loss's derivatives into a target ``z`` and a weight
``w`` (:mod:`boostlib.directions`). XGBoost grows each tree from per-sample
numbers ``grad`` and ``hess``: a leaf ``R_j`` gets the value
``−Σ grad / (Σ hess + λ)`` over its rows and a split the gain
``(Σ_L grad)²/(Σ_L hess + λ) + (Σ_R grad)²/(Σ_R hess + λ) − (Σ grad)²/(Σ hess + λ)``
(Chen & Guestrin 2016; chapter 4, "XGBoost"; these are the sums ``G``, ``H`` of
``g`` and ``h`` only where ``grad = g`` and ``hess = h``, the ``newton`` direction). With

.. math:: \text{grad} = -w z, \qquad \text{hess} = w

the leaf value is ``Σ_{R_j} wz / (Σ_{R_j} w + λ)``, and with ``λ = 0`` it is the
weighted mean of the targets and the gain is the drop in weighted squared error
``Σ w (z − u)²`` (with ``λ > 0``, in the penalised one): over its bins, the tree
XGBoost grows is the weighted least-squares tree of ``(z, w)`` (chapter 9, eq.
``objective-identity``), taken with the step ``ρ = 1`` (``step="constant"``). It is
the tree boostlib's loop fits only when every feature value has a bin of its own,
``min_child_weight`` never binds, no best split gains 1e-6 or less and no tie is
broken differently (chapter 9). So every
direction a loss admits is an XGBoost objective (:func:`xgboost_objective`), and through
``xgboost.dask`` it trains on a Dask cluster (:class:`DaskBoostingClassifier`,
:class:`DaskBoostingRegressor`: every loss but the absolute error, whose start, the
median of ``y``, is not a one-pass sum; each tree taken with ``ρ = 1``).

**Why it distributes.** ``grad`` and ``hess`` of a sample depend only on that
sample's label and score, so every worker computes them for its own rows.
The split search needs, per node, feature and histogram bin, the sums of
``grad`` and ``hess``; sums over rows add across workers, so the workers
build histograms of their rows and only those are added up (an allreduce):
rows never travel during training, only ``2 × bins × features`` numbers per node.

**What it cannot take.** A step chosen after the tree is grown: the line
search (``argmin_ρ Σ L(y, F + ρu)``), the Newton step on ``ρ``, TreeBoost's
leaf values on a tree fitted to ``−g`` (``direction="gradient"`` with
``step="leaf_newton"``, boostlib's default and scikit-learn's algorithm:
``direction="newton"`` gives leaves of the same form ``−G_j/(H_j + λ)``, but
on the trees of the weighted fit, another model) and the absolute error's
leaf medians. The line search and the Newton step are sums over rows as well (one
pass per trial ``ρ``; for Newton, one for the loss at ``ρ = 0``, then two per
iterate, its two sums and the loss at the new ``ρ``, and one per halving), and
XGBoost's own objectives
``reg:absoluteerror`` and ``reg:quantileerror`` do reset every leaf after its
tree, on a cluster too, where each leaf takes the unweighted mean of the
quantiles of the workers that hold rows of it. What is missing is a hook: a
custom objective hands XGBoost ``grad`` and ``hess`` before each tree and is
not called after it, so every tree is taken as grown, ``ρ = 1``. Such settings are refused with a
``ValueError`` that says why and what to use instead.

:func:`local_client` starts a quiet cluster of worker processes on this
machine, the stand-in for several machines that chapter 9 uses.
"""

from __future__ import annotations

import logging
import os
import re
import threading

import dask
import dask.array as da
import numpy as np
from distributed import Client, WorkerPlugin, default_client, wait
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted

from .boosting import _is_int, _is_real
from .directions import DIRECTIONS, _require_curvature, get_direction
from .losses import (
    AbsoluteError,
    LogLoss,
    Loss,
    Quadratic,
    Softmax,
    SquaredError,
    _HalfLogOdds,
    get_loss,
)
from .steps import STEPS

__all__ = [
    "DaskBoostingClassifier",
    "DaskBoostingRegressor",
    "HideRankLines",
    "XGBoostObjective",
    "local_client",
    "xgboost_objective",
]

#: Why each step that is set after the tree cannot be given to XGBoost with a custom
#: objective, as the ``ValueError`` says it. The objective is called before each tree, never
#: after it, so every tree is taken as grown (ρ = 1).
GLOBAL_STEPS = {
    "line_search": (
        "the line search minimises Σ L(y, F + ρu) over ρ after the tree is grown. Each trial ρ "
        "is a sum over the rows, which the workers could add up, but a custom XGBoost "
        "objective only supplies grad and hess before each tree and has no hook after it, so "
        "XGBoost takes every tree with ρ = 1 (leaf values −Σgrad/(Σhess + λ), times the "
        "learning rate)"
    ),
    "leaf_newton": (
        "step='leaf_newton' with direction='gradient' is TreeBoost (boostlib's default and "
        "scikit-learn's algorithm): the tree is grown by least squares on the pseudo-response −g, "
        "and then each leaf is set to −Σg/Σh over its rows (with one tree per class of "
        "softmax, Friedman's (K − 1)/K times that; for the absolute error and Huber's loss, "
        "the minimiser of the loss over the leaf), after the tree is grown, which a custom "
        "XGBoost objective has no hook for. direction='newton' gives leaves of the same form, "
        "−Σgrad/(Σhess + λ), but on trees split by the Newton gain, in general other trees; "
        "direction='gradient' keeps the gradient tree's least-squares leaves, ρ = 1 (for the "
        "absolute error, XGBoost's built-in objective='reg:absoluteerror' sets the leaves after "
        "the tree)"
    ),
}
#: Losses whose optimal constant depends on ``y`` only through its (column) mean, in the
#: loss's label convention: the cluster sends back one row of means.
CONSTANT_FROM_MEAN = (SquaredError, Quadratic, LogLoss, _HalfLogOdds, Softmax)
NO_CLIENT = (
    "{name} trains on a dask.distributed cluster, and no Client was given (client=None) "
    "and none is running. Start one, for instance on this machine:\n"
    "    from dask.distributed import Client, LocalCluster\n"
    "    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))\n"
    "or connect to a running scheduler with Client('tcp://scheduler:8786'); then fit again "
    "(or pass client=client)."
)


def _check_direction(loss, direction):
    """``ValueError`` for a direction that cannot be an objective, saying why."""
    if isinstance(direction, str) and direction in STEPS and direction not in DIRECTIONS:
        choose = f"Choose a direction from {sorted(DIRECTIONS)}."
        if direction not in GLOBAL_STEPS:  # 'constant'
            raise ValueError(
                f"direction={direction!r} is a step, not a direction: ρ = 1 is the step every "
                f"tree already takes here, as in XGBoost. {choose}"
            )
        if direction == "leaf_newton" and isinstance(loss, SquaredError):
            choose += (" For the squared error h = 1, so TreeBoost's −Σg/Σh is the mean "
                       "residual, the least-squares leaf the gradient tree already has: "
                       "direction='gradient' is TreeBoost here.")
        raise ValueError(
            f"direction={direction!r} is a step, not a direction, and cannot be distributed "
            f"this way: {GLOBAL_STEPS[direction]}. {choose}"
        )
    if isinstance(direction, str) and direction in ("newton", "newton_unweighted"):
        _require_curvature(loss, direction)
    if direction == "newton_raphson" and loss.vector:
        raise ValueError("direction='newton_raphson' is defined for scalar losses only")
    return get_direction(direction)


def _loss_labels(loss, label, shape):
    """The labels of a DMatrix in ``loss``'s convention, for scores of ``shape``.

    Vector classification losses take XGBoost's class indices ``0 … K−1`` (or
    one-hot rows); losses with labels ``(−1, +1)`` also take ``{0, 1}``.
    """
    label = np.asarray(label, dtype=float)
    if len(shape) == 2:
        if label.size == shape[0] and loss.labels is not None:
            return np.eye(shape[1])[label.astype(int)]
        return label.reshape(shape)
    if loss.labels == (-1, 1):
        return np.where(label == 0, -1.0, label)
    return label


class XGBoostObjective:
    r"""A boostlib loss and direction as XGBoost's ``obj(predt, dtrain) → (grad, hess)``.

    With the direction's target ``z`` and weight ``w`` at ``F = predt``,
    ``grad = −s w z`` and ``hess = s w``, where ``s`` are the DMatrix's sample
    weights (1 if it has none): XGBoost's leaf ``Σ s w z / (Σ s w + λ)`` is then,
    with ``λ = 0``, the leaf of the weighted least-squares tree of boostlib's loop (chapter 9,
    eq. ``objective-identity``). For a vector loss ``predt``, ``grad`` and
    ``hess`` have XGBoost's multi-output shape ``(n, K)``; column ``k`` of
    ``grad`` is ``−s w z_k``, and every column of ``hess`` is the sample's one
    weight ``s w`` (for ``direction="newton"`` the curvature along ``z``,
    ``w = zᵀHz / zᵀz``: :func:`~boostlib.directions.vector_newton`).

    Labels are in the loss's convention (:attr:`~boostlib.losses.Loss.labels`),
    except that ``{0, 1}`` is accepted for ``(−1, +1)`` losses and class
    indices ``0 … K−1`` (XGBoost's ``num_class`` convention) for softmax.
    Instances pickle, so Dask can ship them to its workers.
    """

    def __init__(self, loss, direction="newton"):
        self.loss = get_loss(loss)
        self.direction = direction
        self._direction = _check_direction(self.loss, direction)

    def __call__(self, predt, dtrain):
        F = np.asarray(predt, dtype=float)
        y = _loss_labels(self.loss, dtrain.get_label(), F.shape)
        z, w = self._direction(self.loss, y, F)
        sample_weight = np.asarray(dtrain.get_weight(), dtype=float)
        if sample_weight.size:
            w = sample_weight * w
        if F.ndim == 2:
            w = np.broadcast_to(np.reshape(w, (-1, 1)), F.shape)
        return -w * z, np.array(w, dtype=float)

    def __repr__(self):
        return f"xgboost_objective({self.loss!r}, direction={self.direction!r})"


def xgboost_objective(loss, direction="newton"):
    """The objective ``(predt, dtrain) → (grad, hess)`` of ``xgboost.train`` and its Dask twin.

    ``grad = −w z`` and ``hess = w`` from boostlib's ``direction`` (a name in
    ``boostlib.directions.DIRECTIONS`` or a function ``(loss, y, F) → (z, w)``
    of per-sample values) of ``loss`` (a name or a :class:`~boostlib.losses.Loss`).
    See :class:`XGBoostObjective`. ``ValueError`` for a step name (a step set
    after the tree has no hook in a custom objective, see ``GLOBAL_STEPS`` in its
    source; ``"constant"``, ρ = 1, is the step every tree takes) or a direction the
    loss does not support.
    """
    return XGBoostObjective(loss, direction)


#: The line XGBoost's collective layer writes to a worker's stderr at every fit.
RANK_LINE = re.compile(rb"^\[[0-9:]+\] Task \S+ got rank \d+\s*$")


class HideRankLines(WorkerPlugin):
    """A Dask worker plugin that drops XGBoost's "Task … got rank r" lines from the worker's stderr.

    XGBoost's collective layer announces each worker's rank on the worker
    process's standard error at every fit; in a notebook the line shows up as a
    warning. Every other line reaches stderr unchanged. Register it once per
    client: ``client.register_plugin(HideRankLines())``.
    """

    name = "boostlib-hide-rank-lines"
    idempotent = True

    def setup(self, worker=None):
        """Point the worker's fd 2 at a pipe whose lines a thread filters into the old stderr."""
        read, write = os.pipe()
        self._stderr = os.dup(2)
        os.dup2(write, 2)
        os.close(write)
        threading.Thread(target=self._pump, args=(read, os.dup(self._stderr)),
                         daemon=True, name=self.name).start()

    @staticmethod
    def _pump(read, stderr):
        with os.fdopen(read, "rb") as lines, os.fdopen(stderr, "wb", buffering=0) as out:
            for line in lines:
                if not RANK_LINE.match(line):
                    out.write(line)

    def teardown(self, worker=None):
        """Give the worker its stderr back; the filtering thread then ends."""
        os.dup2(self._stderr, 2)  # closes the pipe's last writer: the pump thread ends
        os.close(self._stderr)


def local_client(n_workers=2, threads_per_worker=1):
    """A ``Client`` of a new ``LocalCluster``: ``n_workers`` worker processes on this machine.

    The stand-in for a cluster of ``n_workers`` machines (chapter 9), each
    worker with ``threads_per_worker`` threads. ``client.close()`` shuts the
    workers down too. Nothing reaches the error stream in normal use: Dask
    logs errors only, its dashboard takes any free port (another cluster may
    hold the default one), and :class:`HideRankLines` drops the line XGBoost
    writes at every fit.
    """
    client = Client(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                    silence_logs=logging.ERROR, dashboard_address=":0")
    client.register_plugin(HideRankLines())
    return client


def _client(client, name):
    """``client``, or the default client; ``ValueError`` telling how to start one."""
    if client is not None:
        return client
    try:
        return default_client()
    except ValueError:
        raise ValueError(NO_CLIENT.format(name=name)) from None


def _is_dask(data):
    return dask.is_dask_collection(data)


def _dask_frame_to_array(data):
    """A dask DataFrame or Series as a dask array with known chunk sizes.

    Optimised first: a frame read from files may be read in fewer partitions
    once dask sees that only some columns are needed (parquet files merged),
    and the chunk sizes must be counted on the partitions the array is made of.
    """
    import pandas as pd

    if isinstance(getattr(data, "dtype", None), pd.api.extensions.ExtensionDtype):
        data = data.astype(object)  # pandas' string labels: dask arrays take object
    return data.optimize().to_dask_array(lengths=True)


def _scatter_rows(client, arrays):
    """numpy arrays with the same rows, split into one block per worker and sent there.

    Block ``i`` of every array goes to worker ``i``, so every worker holds rows
    (and their labels) and trains (a plain ``da.from_array`` leaves the
    placement to the scheduler, and embeds the whole array in the task graph).
    """
    workers = sorted(client.scheduler_info()["workers"]) or [None]
    pieces = max(1, min(len(workers), len(arrays[0])))
    bounds = np.linspace(0, len(arrays[0]), pieces + 1).astype(int)
    result = []
    for array in arrays:
        blocks = []
        for a, b, worker in zip(bounds[:-1], bounds[1:], workers, strict=False):
            # hash=False: new keys every fit, never a key that an earlier fit is releasing
            future = client.scatter(array[a:b], workers=worker and [worker], hash=False)
            blocks.append(da.from_delayed(future, shape=array[a:b].shape, dtype=array.dtype))
        result.append(da.concatenate(blocks))
    return result


class _DaskBoosting(BaseEstimator):
    """What :class:`DaskBoostingRegressor` and :class:`DaskBoostingClassifier` share."""

    def __init__(self, loss, direction="newton", n_estimators=100, learning_rate=0.1,
                 max_depth=3, l2_regularization=0.0, min_child_weight=1e-3, max_bins=256,
                 client=None):
        self.loss = loss
        self.direction = direction
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.l2_regularization = l2_regularization
        self.min_child_weight = min_child_weight
        self.max_bins = max_bins
        self.client = client

    def __getstate__(self):
        # a Client holds sockets and threads: a pickled model keeps everything but it
        state = dict(super().__getstate__())  # a copy: the model itself keeps its client
        if state.get("client") is not None:
            state["client"] = None
        return state

    # -- parameters -------------------------------------------------------
    def _check_params(self, loss):
        if not _is_int(self.n_estimators) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if not _is_real(self.learning_rate) or not 0 < self.learning_rate < np.inf:
            raise ValueError(f"learning_rate must be a positive number, got {self.learning_rate!r}")
        if not _is_int(self.max_depth) or self.max_depth < 1:
            raise ValueError(f"max_depth must be an integer >= 1, got {self.max_depth!r}")
        if not _is_real(self.l2_regularization) or not 0 <= self.l2_regularization < np.inf:
            raise ValueError(
                f"l2_regularization must be a number >= 0, got {self.l2_regularization!r}")
        if not _is_real(self.min_child_weight) or not 0 <= self.min_child_weight < np.inf:
            raise ValueError(
                f"min_child_weight must be a number >= 0, got {self.min_child_weight!r}")
        if not _is_int(self.max_bins) or self.max_bins < 2:
            raise ValueError(f"max_bins must be an integer >= 2, got {self.max_bins!r}")
        if isinstance(loss, AbsoluteError):
            raise ValueError(
                "loss='absolute_error' is not distributed this way. Its boosting as "
                "TreeBoost (LAD_TreeBoost, step='leaf_newton') starts from the median of y "
                "and gives each leaf the median residual of its rows, a value set after the "
                "tree is grown, and a custom XGBoost objective has no hook after the tree; "
                "direction='newton' and 'newton_unweighted' are undefined (the Hessian is "
                "zero). direction='gradient' with ρ = 1, each leaf the mean of the signs of "
                "its residuals (or 'newton_raphson', whose target is the residual), could be "
                "trained by a custom objective, but its start, the median of y, is not a "
                "one-pass sum, and these estimators do not offer it: fit it in one process "
                "with BoostingRegressor(loss='absolute_error', direction='gradient', "
                "step='constant'). XGBoost's built-in objective "
                "has a hook after the tree: "
                "xgboost.dask.DaskXGBRegressor(objective='reg:absoluteerror') gives "
                "each leaf the mean of the median residuals of the workers that hold rows of "
                "it (the exact median on one worker). Or use loss='huber' with "
                "direction='gradient' (the default direction='newton' refuses Huber's loss, "
                "whose Hessian is zero beyond δ), or loss='squared_error'."
            )
        return XGBoostObjective(loss, self.direction)

    def _xgboost_params(self, n_outputs):
        params = {
            "tree_method": "hist",
            "max_depth": self.max_depth,
            "eta": self.learning_rate,
            "reg_lambda": self.l2_regularization,
            "min_child_weight": self.min_child_weight,
            "max_bin": self.max_bins,
            "verbosity": 0,
        }
        if n_outputs > 1:
            # one tree with a vector in each leaf per stage, as BoostingClassifier(multiclass=
            # "joint") fits one multi-output tree; its gain Σ_k G_k²/(H + λ) is the multi-output
            # squared error
            params["multi_strategy"] = "multi_output_tree"
            if self._is_classifier():
                params["num_class"] = n_outputs
        return params

    def _is_classifier(self):
        return isinstance(self, ClassifierMixin)

    # -- data -------------------------------------------------------------
    def _validate_X(self, X, reset):
        """``X`` as a dask array (chunked by rows) or a numpy array; records the feature count."""
        names = None
        if _is_dask(X) and hasattr(X, "columns"):  # a dask DataFrame
            names = np.asarray(X.columns, dtype=object)
            X = _dask_frame_to_array(X) if reset else X.to_dask_array()
        elif _is_dask(X):
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got a dask array of shape {X.shape}")
            if not np.issubdtype(X.dtype, np.number) and X.dtype != bool:
                raise ValueError(f"X must be numeric, got dtype {X.dtype}")
        else:
            if hasattr(X, "columns"):
                names = np.asarray(X.columns, dtype=object)
            X = check_array(X, dtype=[np.float32, np.float64], ensure_all_finite="allow-nan")
        if reset:
            self.n_features_in_ = X.shape[1]
            if names is not None and all(isinstance(n, str) for n in names):
                self.feature_names_in_ = names
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} was "
                             f"fitted with {self.n_features_in_}")
        if _is_dask(X) and X.numblocks[1] > 1:
            X = X.rechunk({1: -1})  # XGBoost and the predictions take whole rows
        return X

    def _fit_data(self, X, y, client):
        """``(X, y)`` as dask arrays on the cluster, rows aligned, ``y`` persisted."""
        X = self._validate_X(X, reset=True)
        if _is_dask(y) and not hasattr(y, "chunks"):
            y = _dask_frame_to_array(y)
        if not _is_dask(y):
            y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1 and not getattr(self.loss_, "vector", False):
            y = y[:, 0]
        if not _is_dask(X):
            X, y = _scatter_rows(client, [X, y]) if not _is_dask(y) else (
                _scatter_rows(client, [X])[0], y)
        if np.isnan(X.shape[0]):
            X = X.compute_chunk_sizes()
        if not _is_dask(y):
            y = da.from_array(y, chunks=(X.chunks[0],) + y.shape[1:])
        if np.isnan(y.shape[0]):
            y = y.compute_chunk_sizes()
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X and y have different numbers of rows: {X.shape[0]} and "
                             f"{y.shape[0]}")
        if X.shape[0] == 0:
            raise ValueError("X and y have no rows")
        if y.chunks[0] != X.chunks[0]:
            y = y.rechunk({0: X.chunks[0]})
        return X, y

    # -- the start --------------------------------------------------------
    def _optimal_constant(self, Y):
        """``F_0 = argmin_c Σ L(y, c)`` computed on the cluster from ``Y`` (loss convention).

        For the losses of :data:`CONSTANT_FROM_MEAN` one pass returns the
        column means (for softmax, the class frequencies); Huber's constant is
        a bounded Brent search whose every trial value is one pass.
        """
        loss = self.loss_
        if isinstance(loss, Softmax):  # Y holds class indices
            counts = da.bincount(Y.astype(int), minlength=len(self.classes_)).compute()
            return loss.optimal_constant((counts / counts.sum())[None, :])
        if isinstance(loss, CONSTANT_FROM_MEAN):
            mean = np.atleast_1d(np.asarray(Y.mean(axis=0).compute(), dtype=float))
            return loss.optimal_constant(mean[None, :] if loss.vector else mean)
        if loss.labels is None and not loss.vector:
            return self._searched_constant(Y)
        raise ValueError(f"loss={loss.name!r}: boostlib does not know how to compute its "
                         "optimal constant on a cluster")

    def _searched_constant(self, Y):
        """A scalar regression loss's constant (Huber's): scipy's bounded Brent search, as
        :meth:`~boostlib.losses.Huber.optimal_constant`, each mean loss computed on the cluster."""
        loss = self.loss_
        low, high = (float(v) for v in dask.compute(Y.min(), Y.max()))
        if low == high:
            return low
        result = minimize_scalar(
            lambda c: float(Y.map_blocks(loss, F=c, dtype=float).mean().compute()),
            bounds=(low, high), method="bounded",
            options={"xatol": 1e-10 * max(1.0, high - low)},
        )
        return float(result.x)

    # -- fit --------------------------------------------------------------
    def _fit_on_cluster(self, X, Y, client, n_outputs):
        """Train with ``xgboost.dask`` from ``F_0``, the optimal constant, as base margin."""
        import xgboost.dask as dxgb  # imports dask.dataframe: only when a model is fitted

        # Everything XGBoost reads is computed and held before it builds its matrix, each
        # block of the start F_0 made from X's block, so on X's worker: XGBoost then gathers
        # each block of rows where its rows already are. Otherwise a block can be gathered on
        # another worker while this one is busy, the workers hold other rows from run to run,
        # and so do their quantile sketches, which decide the bins.
        X, Y = client.persist([X, Y])
        wait([X, Y])
        self.init_ = self._optimal_constant(Y)
        start = np.asarray(self.init_, dtype=float)
        if n_outputs > 1:
            base_margin = X.map_blocks(_start_block, start, dtype=float,
                                       chunks=(X.chunks[0], (n_outputs,)))
        else:
            base_margin = X.map_blocks(_start_block, start, dtype=float, drop_axis=1)
        base_margin = base_margin.persist()
        wait(base_margin)
        dtrain = dxgb.DaskQuantileDMatrix(client, X, Y, base_margin=base_margin,
                                          max_bin=self.max_bins)
        output = dxgb.train(client, self._xgboost_params(n_outputs), dtrain,
                            num_boost_round=self.n_estimators, obj=self._objective)
        self.booster_ = output["booster"]
        self.n_estimators_ = self.booster_.num_boosted_rounds()
        self._n_outputs = n_outputs
        return self

    # -- prediction -------------------------------------------------------
    def _raw_predict(self, X):
        """``F_M(x) = F_0 + ν Σ_m f_m(x)``: dask array for dask input, numpy otherwise."""
        check_is_fitted(self, "booster_")
        X = self._validate_X(X, reset=False)
        if not _is_dask(X):
            return _margin(X, self.booster_, self.init_, self._n_outputs)
        if self._n_outputs > 1:
            return X.map_blocks(_margin, self.booster_, self.init_, self._n_outputs,
                                dtype=float, chunks=(X.chunks[0], (self._n_outputs,)))
        return X.map_blocks(_margin, self.booster_, self.init_, self._n_outputs,
                            dtype=float, drop_axis=1)


def _start_block(X, start):
    """``F_0`` for every row of the block ``X``: shape ``(len(X),)`` or ``(len(X), K)``."""
    return np.tile(start, (len(X), 1)) if start.ndim == 1 else np.full(len(X), float(start))


def _margin(X, booster, init, n_outputs):
    """The booster's raw score on numpy rows ``X``, from the base margin ``F_0 = init``."""
    shape = (len(X), n_outputs) if n_outputs > 1 else (len(X),)
    base = np.broadcast_to(np.asarray(init, dtype=np.float32), shape)
    if len(X) == 0:
        return np.zeros(shape)
    F = booster.inplace_predict(X, predict_type="margin", base_margin=np.ascontiguousarray(base))
    return np.asarray(F, dtype=float).reshape(shape)


class DaskBoostingRegressor(RegressorMixin, _DaskBoosting):
    """Boosting for regression on a Dask cluster: boostlib's loss and direction, XGBoost's trees.

    The model is boostlib's loop with ``step="constant"`` and a depth-limited
    tree as the learner, ``F_M = F_0 + ν Σ_m f_m``; each tree is grown by
    ``xgboost.dask`` from ``grad = −w z``, ``hess = w`` (:func:`xgboost_objective`),
    the histograms added up across the workers (chapter 9).

    Parameters
    ----------
    loss : str or Loss, default="squared_error"
        ``"squared_error"``, ``"huber"`` (with ``direction="gradient"`` or
        ``"newton_raphson"``: ``"newton"`` and ``"newton_unweighted"`` refuse it,
        its Hessian being zero beyond ``δ``) or, for a two-dimensional ``y``,
        ``"quadratic"``; or a :class:`~boostlib.losses.Loss`. ``"absolute_error"``
        is refused: LAD_TreeBoost's leaf medians are set after the tree, which a
        custom XGBoost objective cannot do, ``"newton"`` is undefined (a zero
        Hessian), and the gradient tree with ``ρ = 1`` would start from the median
        of ``y``, which is not a one-pass sum (the error says what to use instead).
    direction : str, default="newton"
        ``"gradient"``, ``"newton"``, ``"newton_unweighted"`` or
        ``"newton_raphson"`` (:mod:`boostlib.directions`), every tree taken with
        ``ρ = 1``: ``"gradient"`` is then the plain gradient tree, not
        TreeBoost (boostlib's default ``step="leaf_newton"``, which cannot be
        distributed), except for the squared error, whose least-squares leaves
        are TreeBoost's; a step name is refused.
    n_estimators : int, default=100
        Number of stages ``M``.
    learning_rate : float, default=0.1
        Shrinkage ``ν`` (XGBoost's ``eta``).
    max_depth : int, default=3
        Depth of every tree.
    l2_regularization : float, default=0.0
        XGBoost's ``λ``: leaf values ``Σwz / (Σw + λ)``; 0 gives boostlib's leaves.
    min_child_weight : float, default=1e-3
        Least ``Σ w`` (XGBoost's hessian sum; ``fit`` takes no sample weights) in a
        child of a split.
    max_bins : int, default=256
        Histogram bins per feature (XGBoost's ``max_bin``).
    client : distributed.Client or None, default=None
        Where to train; ``None`` means the current default client. Dropped when
        the model is pickled.

    Attributes
    ----------
    booster_ : xgboost.Booster
        The fitted trees.
    init_ : float or ndarray of shape (K,)
        ``F_0``, the loss's optimal constant, computed on the cluster.
    n_estimators_ : int
        The number of stages built.
    loss_ : Loss
        The :class:`~boostlib.losses.Loss` in use.
    n_features_in_ : int
        The number of features.

    Inputs may be dask arrays, dask DataFrames (and Series for ``y``) or
    numpy arrays; numpy ``X`` is split into one block per worker and scattered.
    ``predict`` returns a dask array for dask input, numpy for numpy.
    Missing values (NaN) in ``X`` go XGBoost's learned default way.
    """

    def __init__(self, loss="squared_error", direction="newton", n_estimators=100,
                 learning_rate=0.1, max_depth=3, l2_regularization=0.0, min_child_weight=1e-3,
                 max_bins=256, client=None):
        super().__init__(loss=loss, direction=direction, n_estimators=n_estimators,
                         learning_rate=learning_rate, max_depth=max_depth,
                         l2_regularization=l2_regularization, min_child_weight=min_child_weight,
                         max_bins=max_bins, client=client)

    def fit(self, X, y):
        """Fit to ``X`` of shape (N, d) and ``y`` of shape (N,) or, for ``"quadratic"``, (N, K)."""
        loss = get_loss(self.loss)
        if loss.labels is not None:
            raise ValueError(
                f"loss={loss.name!r} is a classification loss; use DaskBoostingClassifier")
        self.loss_ = loss
        self._objective = self._check_params(loss)
        client = _client(self.client, type(self).__name__)
        with client.as_current():  # every compute and persist below runs on this cluster
            return self._fit(X, y, client)

    def _fit(self, X, y, client):
        loss = self.loss_
        X, y = self._fit_data(X, y, client)
        if not np.issubdtype(y.dtype, np.number):
            raise ValueError(f"y must be numeric, got dtype {y.dtype}")
        if y.ndim == 2 and not loss.vector:
            raise ValueError(f"y has {y.shape[1]} columns; loss={loss.name!r} takes one "
                             "(use loss='quadratic')")
        Y = y.astype(float)
        self._y_2d = Y.ndim == 2
        if loss.vector and Y.ndim == 1:
            Y = Y[:, None]
        return self._fit_on_cluster(X, Y, client, Y.shape[1] if Y.ndim == 2 else 1)

    def predict(self, X):
        """``F_M(x)``: a dask array for dask ``X``, numpy for numpy ``X``."""
        F = self._raw_predict(X)
        if self.loss_.vector and not self._y_2d:
            return F[:, 0]
        return F


class DaskBoostingClassifier(ClassifierMixin, _DaskBoosting):
    """Boosting for classification on Dask: boostlib's loss and direction, XGBoost's trees.

    Parameters are those of :class:`DaskBoostingRegressor`, except

    loss : str or Loss, default="log_loss"
        ``"log_loss"`` (multi-class: ``"softmax"``), ``"binomial_deviance"``,
        ``"exponential"`` or ``"softmax"``, mapped to each loss's label
        convention as in :class:`~boostlib.boosting.BoostingClassifier`.
        Multi-class grows one tree with a vector of ``K`` values in each leaf
        per stage (XGBoost's ``multi_strategy="multi_output_tree"``), as
        ``BoostingClassifier(multiclass="joint")`` fits one multi-output tree.

    Attributes are those of :class:`DaskBoostingRegressor`, plus ``classes_``.
    ``decision_function``, ``predict_proba`` and ``predict`` return dask arrays
    for dask input and numpy arrays for numpy input.
    """

    def __init__(self, loss="log_loss", direction="newton", n_estimators=100,
                 learning_rate=0.1, max_depth=3, l2_regularization=0.0, min_child_weight=1e-3,
                 max_bins=256, client=None):
        super().__init__(loss=loss, direction=direction, n_estimators=n_estimators,
                         learning_rate=learning_rate, max_depth=max_depth,
                         l2_regularization=l2_regularization, min_child_weight=min_child_weight,
                         max_bins=max_bins, client=client)

    def fit(self, X, y):
        """Fit to ``X`` of shape (N, d) and labels ``y`` of any type (at least two classes)."""
        loss = get_loss(self.loss)
        if not isinstance(loss, Loss) or loss.labels is None:
            raise ValueError(f"loss={loss.name!r} is a regression loss; use DaskBoostingRegressor")
        self.loss_ = loss
        self._check_params(loss)
        client = _client(self.client, type(self).__name__)
        with client.as_current():  # every compute and persist below runs on this cluster
            return self._fit(X, y, client)

    def _fit(self, X, y, client):
        loss = self.loss_
        X, y = self._fit_data(X, y, client)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-dimensional labels, got shape {y.shape}")
        classes = da.unique(y).compute()
        try:
            check_classification_targets(classes)
        except ValueError as exc:
            raise ValueError(f"y: {exc}") from None
        self.classes_ = np.sort(classes)
        K = len(self.classes_)
        if K < 2:
            raise ValueError(f"y has only one class ({self.classes_.tolist()[0]!r}); "
                             "a classifier needs at least 2 classes")
        if loss.name == "log_loss" and K > 2:
            loss = Softmax()
        if K > 2 and not loss.vector:
            raise ValueError(f"loss={loss.name!r} is binary only, but y has {K} classes")
        self.loss_ = loss
        self._objective = self._check_params(loss)
        codes = y.map_blocks(_codes, self.classes_, dtype=np.intp)
        if loss.vector:
            Y = codes.astype(float)  # XGBoost's class indices; the objective one-hots them
        else:
            negative, positive = loss.labels
            Y = da.where(codes == 1, float(positive), float(negative))
        return self._fit_on_cluster(X, Y, client, K if loss.vector else 1)

    def decision_function(self, X):
        """The raw score ``F_M(x)``: shape (N,) for two classes, (N, K) for more."""
        return self._raw_predict(X)

    def predict_proba(self, X):
        """Class probabilities through the loss's link: ``σ(F)``, ``σ(2F)`` or ``softmax(F)``."""
        F = self.decision_function(X)
        if _is_dask(F):
            return F.map_blocks(_probabilities, self.loss_, dtype=float,
                                chunks=(F.chunks[0], (len(self.classes_),)),
                                **({} if F.ndim == 2 else {"new_axis": 1}))
        return _probabilities(F, self.loss_)

    def predict(self, X):
        """The most probable class (binary: ``F ≥ 0``, scikit-learn's rule at a tie)."""
        F = self.decision_function(X)
        if _is_dask(F):
            return F.map_blocks(_labels, self.classes_, dtype=self.classes_.dtype,
                                **({"drop_axis": 1} if F.ndim == 2 else {}))
        return _labels(F, self.classes_)


def _codes(labels, classes):
    """Class indices ``0 … K−1`` of ``labels`` (all in the sorted ``classes``)."""
    return np.searchsorted(classes, labels)


def _probabilities(F, loss):
    if loss.vector:
        return loss.predict_proba(F)
    p = loss.predict_proba(F)
    return np.column_stack([1 - p, p])


def _labels(F, classes):
    codes = F.argmax(axis=1) if F.ndim == 2 else (F >= 0).astype(int)
    return classes[codes]

