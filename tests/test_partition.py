"""The grower's partition, tested against its contract.

``partition(source, target, start, stop, column, b, missing_left, missing_bin, n_left)``
writes ``source[start:stop]`` to ``target[start:stop]`` so that the rows going left
(bin ``≤ b``, or the NaN bin when ``missing_left``) come first, each side in its old
order; ``n_left`` is how many go left, and a wrong count is an error. Nothing outside
the slice is written, and ``source`` is not changed. The grower relies on it: a node's
children own the two halves of its slice, and each leaf's rows give the training
predictions without walking the tree.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boostlib.trees import Binner, HistTreeRegressor
from boostlib.trees.grower import grow, partition

MISSING_BIN = 6  # bins 0..5 and the NaN bin: small, so every case occurs


@st.composite
def cases(draw):
    n = draw(st.integers(1, 25))
    column = np.array(draw(st.lists(st.integers(0, MISSING_BIN), min_size=n, max_size=n)),
                      dtype=np.uint8)
    order = np.array(draw(st.permutations(range(n))), dtype=np.intp)
    start = draw(st.integers(0, n - 1))
    stop = draw(st.integers(start + 1, n))
    threshold = draw(st.integers(0, MISSING_BIN - 1))
    missing_left = draw(st.booleans())
    return column, order, start, stop, threshold, missing_left


@settings(max_examples=200, deadline=None)
@given(cases())
def test_partition_keeps_each_side_in_order_and_nan_where_the_split_says(case):
    column, rows, start, stop, threshold, missing_left = case
    before = rows.copy()
    target = np.full(len(rows), -7, dtype=np.intp)  # garbage: only what is written counts
    inside = before[start:stop]
    goes_left = [(missing_left if column[r] == MISSING_BIN else column[r] <= threshold)
                 for r in inside]
    left = [r for r, g in zip(inside, goes_left, strict=True) if g]
    right = [r for r, g in zip(inside, goes_left, strict=True) if not g]
    n_left = partition(rows, target, start, stop, column, threshold, missing_left, MISSING_BIN,
                       len(left))
    assert n_left == len(left)
    np.testing.assert_array_equal(target[start:start + n_left], left)
    np.testing.assert_array_equal(target[start + n_left:stop], right)
    assert (target[:start] == -7).all() and (target[stop:] == -7).all()
    np.testing.assert_array_equal(rows, before)
    for wrong in (len(left) - 1, len(left) + 1, -1, -2, stop - start + 1):
        written = np.full(len(rows), -7, dtype=np.intp)
        with pytest.raises(RuntimeError, match=f"^the split sends {wrong} rows left, "):
            partition(rows, written, start, stop, column, threshold, missing_left,
                      MISSING_BIN, wrong)
        assert (written[:start] == -7).all() and (written[stop:] == -7).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_every_leaf_owns_its_rows_in_their_first_order(seed, weighted):
    """After growing, a leaf's slice of ``rows`` (of the array of its depth's parity) is
    the rows that ``apply`` puts in the leaf, ascending (the root's rows are ascending,
    and every partition is stable); rows of weight 0 are in no slice."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(60, 3))
    X[rng.uniform(size=X.shape) < 0.2] = np.nan
    y = rng.normal(size=60)
    w = rng.randint(0, 3, 60).astype(float) if weighted else np.ones(60)
    w[0] = 1.0
    binned = Binner(max_bins=8).fit(X, w).transform(X)
    nodes, rows = grow(binned, w * y, w, max_depth=3)
    tree = HistTreeRegressor(max_depth=3, max_bins=8).fit(binned, y, sample_weight=w)
    leaf_of = tree.apply(binned)
    owned = []
    for k, node in enumerate(nodes):
        if node.left == -1:
            mine = rows[node.depth % 2][node.start:node.stop]
            np.testing.assert_array_equal(mine, np.flatnonzero((leaf_of == k) & (w > 0)))
            owned.append(mine)
    np.testing.assert_array_equal(np.sort(np.concatenate(owned)), np.flatnonzero(w > 0))
