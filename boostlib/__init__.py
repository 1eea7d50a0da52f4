"""boostlib: one boosting loop with pluggable direction, step and learner.

Every method in the book is the same stage-wise loop with three choices
plugged in: the *direction* the next learner is fitted to
(:mod:`boostlib.directions`), the *step* taken along it (:mod:`boostlib.steps`)
and the *learner* that smooths the direction into a function (any
scikit-learn regressor). :mod:`boostlib.losses` supplies the derivatives and
:mod:`boostlib.boosting` the loop and the estimators.
"""

from .boosting import BoostingClassifier, BoostingRegressor
from .losses import get_loss
from .trees import HistTreeRegressor

__all__ = ["BoostingClassifier", "BoostingRegressor", "HistTreeRegressor", "get_loss"]
__version__ = "0.1.0"
