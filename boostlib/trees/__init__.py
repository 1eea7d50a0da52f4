"""Second-order histogram trees: boostlib's own fast learner (chapter 8).

One module per idea. In the order a tree is made: :mod:`.binning` (quantile
bins, a NaN bin; :mod:`.sparse` for sparse ``X``), :mod:`.histograms` (Σwz, Σw,
count per bin; subtraction), :mod:`.splitting` (XGBoost's gain, the
missing-value direction), :mod:`.grower` (depth-wise or best-first),
:mod:`.predictor` (flat nodes), and :mod:`.hist_tree`, the scikit-learn
estimator around them. The options: :mod:`.categorical` (categorical splits),
:mod:`.monotone` (monotone constraints), :mod:`.column_subsampling` (features
per node) and :mod:`.threads` (how many cores, and why the model does not
depend on it). The kernels
are compiled by numba on first use and cached on disk (``cache=True``).
"""

from .binning import BinnedX, Binner
from .hist_tree import HistTreeRegressor

__all__ = ["BinnedX", "Binner", "HistTreeRegressor"]
