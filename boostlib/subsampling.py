r"""The stage's weights: the sample weight times the subsample (chapters 3 and 7).

One module, one idea. In Friedman's *Stochastic gradient boosting* (2002)
every stage draws a fraction of the training set without replacement, and the
direction, the learner and the step of that stage see only the drawn points.
boostlib expresses the draw as weights: the *bag* holds 1 for a drawn point
and 0 for the others, and the stage weights sample ``i``'s loss by

    ``s_i · bag_i``

(``s`` the sample weight of ``fit``), as scikit-learn's gradient boosting
combines them. Without subsampling the stage's weight is ``s``; with neither,
None (every weight 1).
"""

from __future__ import annotations

import numpy as np

# scikit-learn's own subsample mask (Knuth's selection sampling): using it makes
# subsampled runs reproduce scikit-learn's gradient boosting draw for draw.
from sklearn.ensemble._gradient_boosting import _random_sample_mask

__all__ = ["StageWeights"]


class StageWeights:
    """Draws each stage's weight ``s · bag`` from the shared random state.

    Parameters
    ----------
    sample_weight : array of shape (N,) or None
        The sample weights ``s``.
    subsample : float in (0, 1]
        The fraction drawn per stage: ``max(1, int(subsample · N))`` points.
    n_samples : int
        ``N``, the number of training points.
    rng : numpy.random.RandomState
        The random state the learners draw from too (one stream, in
        scikit-learn's order: a stage's bag is drawn before its learners).
    pass_bag : bool
        Whether the step rule takes ``bag=`` (``leaf_newton`` does): it is then
        given, when there are sample weights, which rows take part in the
        stage, rows of weight 0 in the bag included (scikit-learn's sums).
    """

    def __init__(self, sample_weight, subsample, n_samples, rng, pass_bag):
        self.s, self.subsample, self.n_samples, self.rng = sample_weight, subsample, n_samples, rng
        self.n_inbag = max(1, int(subsample * n_samples))
        self.pass_bag = pass_bag and sample_weight is not None

    def draw(self):
        """The next stage's ``(weight, step_kwargs)``: ``s · bag`` or None; ``bag=`` if due."""
        bag = None
        if self.subsample < 1.0:
            bag = _random_sample_mask(self.n_samples, self.n_inbag, self.rng).astype(float)
        weight = bag if self.s is None else (self.s if bag is None else self.s * bag)
        if not self.pass_bag:
            return weight, {}
        return weight, {"bag": np.ones(self.n_samples, dtype=bool) if bag is None else bag > 0}
