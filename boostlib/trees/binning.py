r"""Binning: each feature cut into at most ``max_bins`` intervals, plus one bin for NaN (chapter 8).

A histogram tree never looks at a feature's values again once they are
binned: every split candidate is a boundary between two bins. The thresholds
``θ_0 < θ_1 < …`` of a feature (one fewer than its bins) put ``x`` into bin

    s(x) = #{s′ : θ_{s′} < x}    (so ``x ≤ θ_s`` for ``x`` in bin ``s``),

and NaN into the bin ``MISSING_BIN = max_bins`` of its own. A split "bin ≤ s
goes left" is then the same as "``x ≤ θ_s`` goes left" on raw values.

* A feature with at most ``max_bins`` distinct values gets one bin per value
  and thresholds at the midpoints between neighbours: its split candidates
  are exactly those of an exact tree (scikit-learn's, XGBoost's ``exact``).
* Otherwise the thresholds are the quantiles of orders ``1/max_bins, …,
  (max_bins − 1)/max_bins`` of up to ``SUBSAMPLE`` rows drawn at random
  without replacement, numpy's ``midpoint`` percentiles. scikit-learn's
  HistGradientBoosting does the same in spirit, but draws with replacement
  and interpolates with ``averaged_inverted_cdf``: its bins are close to
  these, not the same. The draw follows a
  random state: a tree's own ``random_state``, or inside a boosting fit the
  seed :func:`binning_seed` takes from the estimator's ``random_state``.

Bins are ``uint8`` (so ``max_bins ≤ 255``) and stored feature by feature,
``bins[j]`` being feature ℓ (the code's ``j``) of every row: the histogram of one feature
then reads one contiguous row of bytes.
"""

from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import get_num_threads, njit, prange
from scipy import sparse
from sklearn.utils import check_random_state

from .sparse import column, sparse_to_bins
from .threads import PRANGE_ONLY

__all__ = ["N_CELLS", "SUBSAMPLE", "BinnedX", "Binner", "binning_seed", "find_thresholds",
           "map_to_bins"]

#: Rows used to place the quantile thresholds (scikit-learn's choice too).
SUBSAMPLE = 200_000


def binning_seed(random_state):
    """The seed of the binning subsample in a boosting fit with this ``random_state``.

    The first number scikit-learn's HistGradientBoosting draws from its
    ``random_state`` (its ``_random_seed``, which seeds its binning), drawn
    here from a *copy* of the state: the draws the boosting loop makes
    afterwards (each stage's subsample bag, each learner's ``random_state``)
    are left exactly those of scikit-learn's GradientBoosting. An int gives
    the same seed on every fit, so the same model; a ``RandomState`` gives the
    seed its current state would draw first; None, the seed numpy's global
    state would draw first (a different one in every fresh process unless it
    is seeded with ``np.random.seed``), and the global state is not advanced.
    """
    rng = copy.deepcopy(check_random_state(random_state))
    return int(rng.randint(np.iinfo(np.uint32).max, dtype="u8"))


def find_thresholds(values, max_bins):
    """Increasing thresholds for one feature's non-missing ``values``, one fewer than its bins.

    At most ``max_bins − 1`` of them (so at most ``max_bins`` bins besides the missing one).

    Midpoints between distinct values when there are at most ``max_bins`` of
    them, otherwise the midpoint-interpolated ``s/max_bins`` percentiles (``s = 1 … max_bins − 1``).
    """
    ordered = np.sort(values)  # sorted once: the distinct values, and a quick percentile
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    distinct = ordered[first]
    if len(distinct) <= max_bins:
        return (distinct[:-1] + distinct[1:]) * 0.5
    percentiles = np.linspace(0, 100, max_bins + 1)[1:-1]
    return np.unique(np.percentile(ordered, percentiles, method="midpoint"))


#: Equal cells per feature between its first and last threshold, for :func:`map_to_bins`:
#: with 4096, a cell holds no threshold or one nearly always (on the benchmark's 28
#: features, 1M rows: ten times faster than the binary search over all 254 thresholds alone).
N_CELLS = 4096


@njit(cache=True, nogil=True, inline="always")
def _cell(x, low, scale, n_cells):
    """The cell of ``x``, ``⌊(x − low) · scale⌋`` held within ``0 … n_cells − 1``.

    Never decreasing in ``x``, rounding included: a threshold in an earlier cell
    than ``x`` is below ``x``, one in a later cell above it.
    """
    v = (x - low) * scale
    if not v >= 1.0:  # below the first cell's end, −inf, or scale 0 times inf
        return 0
    if v >= n_cells - 1:
        return n_cells - 1
    return int(v)


@njit(cache=True, nogil=True)
def _cell_starts(thresholds, n_thresholds, n_cells):
    """Per feature: ``low``, ``scale`` and ``starts[c]``, the number of thresholds in the
    cells before ``c`` (``scale = 0``, one cell, for fewer than two thresholds)."""
    n_features = thresholds.shape[0]
    lows, scales = np.zeros(n_features), np.zeros(n_features)
    starts = np.zeros((n_features, n_cells + 1), dtype=np.int32)
    for j in range(n_features):
        n = n_thresholds[j]
        if n >= 2:
            width = thresholds[j, n - 1] - thresholds[j, 0]
            scale = n_cells / width if width > 0 else 0.0
            if scale < np.inf:
                lows[j], scales[j] = thresholds[j, 0], scale
        for k in range(n):
            starts[j, _cell(thresholds[j, k], lows[j], scales[j], n_cells) + 1] += 1
        for c in range(n_cells):
            starts[j, c + 1] += starts[j, c]
    return lows, scales, starts


@njit(cache=True, nogil=True, parallel=PRANGE_ONLY)
def map_to_bins(X, thresholds, n_thresholds, missing_bin, bins):
    """``bins[j, i] = s(x_iℓ) = #{s′ : θ_ℓs′ < x_iℓ}`` by binary search; NaN to ``missing_bin``.

    Feature ℓ is the code's ``j``.
    ``thresholds`` (n_features, max_bins − 1) holds feature ℓ's in its first
    ``n_thresholds[j]`` entries. The thresholds below ``x``'s cell (``_cell``)
    are counted by a table; the search runs over those in the cell only. ``X``
    is read row by row, as it is stored, and the rows are shared out among the
    threads (each row's bins are its own).
    """
    lows, scales, starts = _cell_starts(thresholds, n_thresholds, N_CELLS)
    n_samples, n_features = X.shape
    for i in prange(n_samples):
        for j in range(n_features):
            x = X[i, j]
            if np.isnan(x):
                bins[j, i] = missing_bin
                continue
            cell = _cell(x, lows[j], scales[j], N_CELLS)
            base = starts[j, cell]
            length = starts[j, cell + 1] - base
            if length == 0:
                bins[j, i] = base
                continue
            # the first k with x <= t_jk; branch-free halving (no mispredicted jumps)
            while length > 1:
                half = length // 2
                base += half * (thresholds[j, base + half] < x)
                length -= half
            bins[j, i] = base + (thresholds[j, base] < x)


class BinnedX:
    """``X`` binned: ``bins`` of shape (n_features, n_samples), uint8, and the :class:`Binner`.

    What a :class:`~boostlib.trees.HistTreeRegressor` is fitted to inside the
    boosting loop, so that ``X`` is binned once per boosting fit rather than
    once per stage. ``len()`` and ``shape`` are those of the ``X`` it bins.
    """

    def __init__(self, bins, binner):
        self.bins = bins
        self.binner = binner

    def __len__(self):
        return self.bins.shape[1]

    def __getitem__(self, rows):
        """The binned rows ``rows`` (a slice or index array), same binner."""
        return BinnedX(self.bins[:, rows], self.binner)

    @property
    def shape(self):
        return self.bins.shape[1], self.bins.shape[0]

    def __repr__(self):
        n, d = self.shape
        return f"BinnedX(n_samples={n}, n_features={d}, max_bins={self.binner.max_bins})"


class Binner:
    """Quantile thresholds per feature, learned once (:meth:`fit`), applied to any ``X``.

    Attributes after :meth:`fit`: ``thresholds_`` (one array per feature),
    ``n_bins_`` (non-missing bins per feature, ``len(thresholds) + 1``) and
    ``missing_bin`` (``= max_bins``, the NaN bin of every feature).
    """

    def __init__(self, max_bins=255, random_state=None):
        self.max_bins = max_bins
        self.random_state = random_state

    @property
    def missing_bin(self):
        return self.max_bins

    def fit(self, X, sample_weight=None):
        """Place the thresholds from the rows of ``X`` (n, d) that have a positive weight.

        ``X`` may be sparse (CSR or CSC): its rows are drawn as for a dense
        ``X``, then each column is made dense in turn (:mod:`~boostlib.trees.sparse`).
        """
        if sparse.issparse(X):
            X = sparse.csr_matrix(X)  # rows are drawn below
        if sample_weight is not None:
            X = X[np.asarray(sample_weight) > 0]
        if X.shape[0] > SUBSAMPLE:
            rng = check_random_state(self.random_state)
            X = X[np.sort(rng.choice(X.shape[0], SUBSAMPLE, replace=False))]
        if sparse.issparse(X):
            X = X.tocsc()  # the columns are read below

        def thresholds(j):
            values = column(X, j)
            return find_thresholds(values[~np.isnan(values)], self.max_bins)

        # one feature per task, on as many threads as the kernels use (numpy's sort
        # and partition release the GIL); each feature's thresholds are its own
        with ThreadPoolExecutor(max_workers=get_num_threads()) as pool:
            self.thresholds_ = list(pool.map(thresholds, range(X.shape[1])))
        self.n_bins_ = np.array([len(t) + 1 for t in self.thresholds_], dtype=np.intp)
        return self

    def transform(self, X):
        """:class:`BinnedX` of ``X`` (n, d): ``s(x) = #{s′ : θ_s′ < x}``, NaN to ``missing_bin``.

        A sparse ``X`` is binned without a dense copy (:mod:`~boostlib.trees.sparse`).
        """
        thresholds = np.full((len(self.thresholds_), self.max_bins - 1), np.inf)
        for j, t in enumerate(self.thresholds_):
            thresholds[j, :len(t)] = t
        if sparse.issparse(X):
            bins = sparse_to_bins(X, thresholds, self.n_bins_ - 1, self.missing_bin)
            return BinnedX(bins, self)
        X = np.ascontiguousarray(X, dtype=np.float64)
        bins = np.empty((X.shape[1], X.shape[0]), dtype=np.uint8)
        map_to_bins(X, thresholds, self.n_bins_ - 1, self.missing_bin, bins)
        return BinnedX(bins, self)

    def fit_transform(self, X, sample_weight=None):
        """:meth:`fit`, then :meth:`transform` of the same ``X``."""
        return self.fit(X, sample_weight).transform(X)
