"""Shared fixtures: sample targets and scores for every loss; the OpenMP wait policy."""

import os

# numba's OpenMP threading layer keeps idle threads spinning (libgomp's default active wait).
# Under make test's two pytest workers, each with numba's pool of one thread per core, the
# spinning threads take the cores from the working ones, and every parallel kernel costs
# up to hundreds of milliseconds instead of one. Passive waiting changes no result (the
# number of threads stays what the tests set). Set before numba starts its pool; the
# kernels that test_exercises and test_threads start inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from boostlib.losses import LOSSES  # noqa: E402


def sample(loss, n=40, seed=0, scale=2.0):
    """Targets ``y`` in the loss's convention and scores ``F`` of matching shape."""
    rng = np.random.default_rng(seed)
    if loss.vector:
        K = 3
        y = np.eye(K)[rng.integers(0, K, n)] if loss.labels else rng.normal(size=(n, K))
        return y, scale * rng.normal(size=(n, K))
    if loss.labels is None:
        return rng.normal(size=n), scale * rng.normal(size=n)
    return np.array(loss.labels, float)[rng.integers(0, 2, n)], scale * rng.normal(size=n)


@pytest.fixture(params=sorted(LOSSES), ids=sorted(LOSSES))
def loss(request):
    return LOSSES[request.param]()


@pytest.fixture
def stage_memories(monkeypatch):
    """Every ``_StageMemory`` that a fit makes while the test runs, in order."""
    from boostlib import boosting

    memories = []
    init = boosting._StageMemory.__init__

    def remember(memory, *args):
        init(memory, *args)
        memories.append(memory)

    monkeypatch.setattr(boosting._StageMemory, "__init__", remember)
    return memories
