r"""Column subsampling: each node looks for its split among a share of the features (chapter 8).

``max_features``, a share in (0, 1] (scikit-learn's name on
HistGradientBoosting, where it is also drawn per node: "proportion of randomly
chosen features in each and every node split"), draws, before each node's split
search, ``max(1, ⌈max_features · d⌉)`` of the ``d`` features without
replacement, by shuffling a mask of that many ``True`` and the rest ``False``,
as scikit-learn's splitter does. XGBoost's ``colsample_bynode`` is the same idea (its
``colsample_bytree`` draws once per tree). Like any randomisation of a tree
it is a regulariser: the trees are weaker and less alike.

The draws come from the tree's ``random_state``; inside a boosting
estimator that is the estimator's shared random state, as scikit-learn's
GradientBoosting hands it to its trees: the same ``random_state``, the same
model. The draws are made in Python before each split search, so the number
of threads does not change them.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["features_of_node", "n_features_drawn"]


def n_features_drawn(max_features, n_features):
    """``max(1, ⌈max_features · d⌉)``, scikit-learn's count."""
    return max(1, math.ceil(max_features * n_features))


def features_of_node(n_bins, max_features, rng):
    """``n_bins`` (bins per feature) with every feature left out of this node's draw set to 0.

    The split search offers a feature ``n_bins[j] − 1`` boundaries (one more
    with NaN rows on the right), so a feature passed with 0 bins offers none.
    ``max_features ≥ 1``: ``n_bins`` unchanged, and nothing drawn from ``rng``.
    """
    if max_features >= 1:
        return n_bins
    mask = np.zeros(len(n_bins), dtype=bool)
    mask[:n_features_drawn(max_features, len(n_bins))] = True
    rng.shuffle(mask)
    return np.where(mask, n_bins, 0)
