"""Shared fixtures: sample targets and scores for every loss."""

import numpy as np
import pytest

from boostlib.losses import LOSSES


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
