"""map_to_bins: the table of equal cells narrows the search and never changes a bin.

A value's bin is the number of thresholds below it, ``np.searchsorted(t, x)``; the
cells only decide where the search starts. Thresholds crowded into one cell (heavy
tails), spread over 600 orders of magnitude, so far apart that their span overflows,
or too few for a table, and values on,
just beside, between and beyond the thresholds (infinities included) all bin exactly.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from boostlib.trees.binning import N_CELLS, _cell, _cell_starts, map_to_bins

MISSING = 255

scales = st.sampled_from(["normal", "lognormal", "tiny", "huge", "mixed", "overflow"])


def thresholds_of(rng, kind, n):
    draw = {"normal": lambda: rng.normal(size=n),
            "lognormal": lambda: rng.lognormal(sigma=4, size=n),  # most in the first cells
            "tiny": lambda: 1.0 + 1e-12 * rng.normal(size=n),
            "huge": lambda: rng.choice([-1, 1], n) * 10.0 ** rng.uniform(-300, 300, n),
            "mixed": lambda: np.concatenate([rng.normal(size=n - n // 2),
                                             1e6 * rng.normal(size=n // 2)]),
            # the last minus the first threshold overflows to inf: one cell, a plain search
            "overflow": lambda: np.concatenate([[-1.5e308, 1.5e308], rng.normal(size=n)])}[kind]
    return np.unique(draw())[:254]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), scales, st.integers(0, 254))
def test_every_value_gets_the_number_of_thresholds_below_it(seed, kind, n):
    rng = np.random.default_rng(seed)
    t = thresholds_of(rng, kind, n) if n else np.empty(0)
    values = [rng.normal(size=200), t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf),
              [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e308, -1e308]]
    if len(t) > 1:
        values.append((t[:-1] + t[1:]) / 2)
        k, u = rng.integers(0, len(t) - 1, 200), rng.random(200)
        values.append(t[k] * (1 - u) + t[k + 1] * u)  # inside the range, no overflow
    x = np.concatenate([np.asarray(v, dtype=float) for v in values])
    thresholds = np.full((2, 254), np.inf)
    thresholds[0, :len(t)] = t
    thresholds[1, :len(t)] = -t[::-1]  # a second feature: the mirror image
    X = np.column_stack([x, -x])
    bins = np.zeros((2, len(x)), dtype=np.uint8)
    map_to_bins(X, thresholds, np.array([len(t), len(t)]), MISSING, bins)
    for j in range(2):
        expected = np.where(np.isnan(X[:, j]), MISSING,
                            np.searchsorted(thresholds[j, :len(t)], X[:, j], side="left"))
        np.testing.assert_array_equal(bins[j], expected)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), scales, st.integers(2, 254), st.sampled_from([1, 2, 7, 64]))
def test_a_cells_start_counts_the_thresholds_in_the_cells_before_it(seed, kind, n, n_cells):
    """The table's invariant, on few cells as on many: thresholds before ``x``'s cell
    are below ``x``, thresholds after it are above."""
    rng = np.random.default_rng(seed)
    t = thresholds_of(rng, kind, n)
    thresholds = np.full((1, 254), np.inf)
    thresholds[0, :len(t)] = t
    lows, scales_, starts = _cell_starts(thresholds, np.array([len(t)]), n_cells)
    cells = np.array([_cell(v, lows[0], scales_[0], n_cells) for v in t])
    assert np.all(np.diff(cells) >= 0) and cells.min() >= 0 and cells.max() < n_cells
    np.testing.assert_array_equal(starts[0], np.searchsorted(cells, np.arange(n_cells + 1)))
    for x in rng.choice(np.concatenate([t, rng.normal(size=20)]), 20):
        cell = _cell(x, lows[0], scales_[0], n_cells)
        assert np.all(t[:starts[0, cell]] < x) and np.all(t[starts[0, cell + 1]:] > x)


def test_the_benchmarks_thresholds_spread_over_the_cells():
    """Quantile thresholds of a smooth feature: almost every cell holds at most one."""
    t = np.quantile(np.random.default_rng(0).normal(size=200_000), np.arange(1, 255) / 255)
    thresholds = t[None, :]
    _, _, starts = _cell_starts(thresholds, np.array([254]), N_CELLS)
    per_cell = np.diff(starts[0])
    assert per_cell.max() <= 3 and np.mean(per_cell <= 1) > 0.99
