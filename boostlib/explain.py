r"""Reading a boosted model: relative influence and SHAP values (chapter 10).

**Relative influence** (Friedman 2001, §8.1): the improvement ``î_η²`` of
every split, credited to its feature, per tree over the root's weight,
averaged over the trees and normalised (:func:`relative_influence`).

**SHAP values** (Lundberg and Lee 2017; Lundberg, Erion and Lee 2018): the Shapley
value ``ϕ_ℓ(x)`` of feature ``ℓ`` in the game whose players are the ``d``
features and whose value of a coalition ``S`` is the model's expected output
when only ``x_S`` is known::

    ϕ_ℓ(x) = Σ_{S ⊆ {1…d} ∖ {ℓ}} |S|! (d − |S| − 1)! / d! · (v(S ∪ {ℓ}) − v(S)),

with the *path-dependent* ``v(S)`` of a tree, the tree's own cover-weighted
approximation of ``E[F(x) | x_S]`` (not that conditional expectation): walk down from
the root, follow ``x`` at a split on a feature in ``S``, and at any other split
take both children, weighted by their share of the training *cover* ``W_η``
(node ``η``'s ``Σ s w`` over the stage's rows: its row count without sample
weights or subsampling, ``Σ h`` for a Newton tree, as XGBoost keeps it). The
values add up, ``Σ_ℓ ϕ_ℓ(x) + E[F] = F(x)``, with
``E[F] = v(∅)``; and because ``F`` is a sum of trees, each ϕ is the sum of the
trees' ϕ. :func:`shap_values` computes them exactly with TreeSHAP (Lundberg,
Erion and Lee 2018, Algorithm 2) in ``O(J D²)`` per tree and row (``J`` leaves,
depth ``D``), instead of the ``2^d`` coalitions of the definition.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.sparse import issparse
from sklearn.dummy import DummyRegressor
from sklearn.utils.validation import check_is_fitted

__all__ = ["relative_influence", "shap_values", "tree_shap"]

# The columns of a path element (Lundberg, Erion and Lee 2018 call them d, z, o, w):
# the feature ℓ split on; ζ_ℓ, the share of the cover that goes this way (their "zero
# fraction", used when x_ℓ is unknown); o_ℓ, 1 if x goes this way and 0 if not
# (the "one fraction", used when x_ℓ is known); and ω_c, a weight per subset size c.
FEATURE, COVER_SHARE, FOLLOWS_X, WEIGHT = 0, 1, 2, 3


# -- relative influence ---------------------------------------------------------------
def _split_improvements(tree):
    """``î_η²`` of every internal node of one tree (0 at leaves).

    scikit-learn's trees store each node's mean squared error around its own
    mean (``impurity``, ``MSE_η``) and its weight ``W_η``: ``î_η² = W_η MSE_η −
    W_L MSE_L − W_R MSE_R`` (eq. split-improvement, first line). boostlib's
    :class:`~boostlib.trees.HistTreeRegressor` stores the gain ``Δ``, the same
    improvement (penalised by λ when ``l2_regularization`` > 0). Neither reads
    the leaf values, which ``step="leaf_newton"`` rewrites.
    """
    internal = tree.children_left != -1
    if not hasattr(tree, "impurity"):  # boostlib's Tree
        return np.where(internal, tree.gain, 0.0)
    left, right = tree.children_left[internal], tree.children_right[internal]
    weighted_error = tree.weighted_n_node_samples * tree.impurity  # W_η MSE_η = Σ w (z − z̄_η)²
    improvement = np.zeros(tree.node_count)
    improvement[internal] = (weighted_error[internal] - weighted_error[left]
                             - weighted_error[right])
    return improvement


def relative_influence(model):
    r"""Friedman's squared relative influence ``I_ℓ²`` of every feature, as shares summing to 1.

    ``I_ℓ²(T) = Σ_η î_η² 1(ℓ_η = ℓ)`` over the splits of tree ``T``
    (eq. influence-tree), divided by the weight of its root, averaged over the
    trees that split at all (eq. influence-model; every tree of every class),
    then normalised: what scikit-learn's gradient boosting and boostlib's
    ``feature_importances_`` report. For a :class:`~boostlib.trees.HistTreeRegressor`
    ``î_η²`` is the gain ``Δ`` and the root's weight is its ``H``. The
    improvements come from the nodes' squared errors or gains
    (``_split_improvements``), never from the leaf values, which
    ``leaf_newton`` replaces by TreeBoost's (``−Σg/Σh`` where the Hessian is
    positive, a median for absolute error; for log loss these are not the
    leaves' means of the target the tree was fitted to).
    """
    check_is_fitted(model, "estimators_")
    per_tree = []
    for learner in np.ravel(np.asarray(model.estimators_, dtype=object)):
        tree = _tree_of(learner)
        if tree.node_count == 1:  # a single leaf splits nothing: left out of the mean
            continue
        improvement = _split_improvements(tree)
        internal = tree.children_left != -1
        influence = np.bincount(tree.feature[internal], weights=improvement[internal],
                                minlength=model.n_features_in_)
        per_tree.append(influence / tree.weighted_n_node_samples[0])
    if not per_tree:
        return np.zeros(model.n_features_in_)
    mean = np.mean(per_tree, axis=0)
    return mean / mean.sum()


# -- TreeSHAP: the kernel -------------------------------------------------------------
@njit(cache=True, nogil=True)
def extend(m, n, cover_share, follows_x, feature):
    """EXTEND: add ``(feature, cover_share, follows_x)`` = ``(ℓ, ζ_ℓ, o_ℓ)`` to the path ``m[0:n]``.

    ``m`` is the path array (the code's name, not a stage) and ``m[0]`` a placeholder
    (the root has no edge into it); after the call the path holds ``|P|`` features
    (the code's ``n``) and ``m[size, WEIGHT]`` is
    ``ω_c = c! (|P| − c)! / (|P| + 1)! · e_c`` for ``c = size``, with ``e_c`` the sum
    over the subsets ``S`` of ``c`` of the path's features of
    ``Π_{ℓ ∈ S} o_ℓ Π_{ℓ ∉ S} ζ_ℓ`` (eq. path-weights). The new feature is
    either in ``S`` (the weight moves up one size, times ``o_ℓ``) or not
    (times ``ζ_ℓ``).
    """
    m[n, FEATURE] = feature
    m[n, COVER_SHARE] = cover_share
    m[n, FOLLOWS_X] = follows_x
    m[n, WEIGHT] = 1.0 if n == 0 else 0.0
    for size in range(n - 1, -1, -1):
        m[size + 1, WEIGHT] += follows_x * m[size, WEIGHT] * (size + 1) / (n + 1)
        m[size, WEIGHT] = cover_share * m[size, WEIGHT] * (n - size) / (n + 1)


@njit(cache=True, nogil=True)
def unwind(m, n, element):
    """UNWIND: take ``element`` out of the path ``m[0:n + 1]``; ``extend`` run backwards."""
    follows_x, cover_share = m[element, FOLLOWS_X], m[element, COVER_SHARE]
    next_weight = m[n, WEIGHT]
    for size in range(n - 1, -1, -1):
        if follows_x != 0:
            weight = m[size, WEIGHT]
            m[size, WEIGHT] = next_weight * (n + 1) / ((size + 1) * follows_x)
            next_weight = weight - m[size, WEIGHT] * cover_share * (n - size) / (n + 1)
        else:
            m[size, WEIGHT] = m[size, WEIGHT] * (n + 1) / (cover_share * (n - size))
    for later in range(element, n):
        m[later, FEATURE] = m[later + 1, FEATURE]
        m[later, COVER_SHARE] = m[later + 1, COVER_SHARE]
        m[later, FOLLOWS_X] = m[later + 1, FOLLOWS_X]


@njit(cache=True, nogil=True)
def unwound_sum(m, n, element):
    """``Σ_c ω_c`` of the path ``m[0:n + 1]`` without ``element``, ``m`` left as it is.

    The weights ``unwind(m, n, element)`` would leave, summed: the Shapley
    weights of the subsets of the other features on the path, each times its
    product of ``o`` and ``ζ``, the inner sum of eq. leaf-shapley.
    """
    follows_x, cover_share = m[element, FOLLOWS_X], m[element, COVER_SHARE]
    next_weight = m[n, WEIGHT]
    total = 0.0
    for size in range(n - 1, -1, -1):
        if follows_x != 0:
            weight = next_weight * (n + 1) / ((size + 1) * follows_x)
            total += weight
            next_weight = m[size, WEIGHT] - weight * cover_share * (n - size) / (n + 1)
        else:
            total += m[size, WEIGHT] * (n + 1) / (cover_share * (n - size))
    return total


@njit(cache=True, nogil=True)
def push(stack, top, node, start, n, cover_share, follows_x, feature):
    """Put a node on the stack: where its path starts, its parent's path length, its edge."""
    stack[top, 0], stack[top, 1], stack[top, 2] = node, start, n
    stack[top, 3], stack[top, 4], stack[top, 5] = cover_share, follows_x, feature
    return top + 1


@njit(cache=True, nogil=True)
def tree_shap(x, phi, tree, root, path, stack):
    """RECURSE (Lundberg, Erion and Lee 2018, Algorithm 2): add one tree's ϕ at ``x`` to ``phi``.

    ``tree`` = (children_left, children_right, feature, threshold, missing_left,
    cover, value): flat node arrays (a leaf has children −1; ``value`` (nodes, K)
    holds the leaf values ``γ_j``), the tree's root at ``root``. ``phi`` (d, K)
    receives the ϕ of the features. The recursion of the paper is written with a
    stack of the nodes still to visit, each with the edge into it, ``(feature,
    cover_share, follows_x)``, and where its path goes: a node's path is a copy
    of its parent's, ``path[start − n:start]``, at ``path[start:]``, extended by
    the edge. ``path`` and ``stack`` are scratch space.
    """
    left, right, split_feature, threshold, missing_left, cover, value = tree
    top = push(stack, 0, root, 0, 0, 1.0, 1.0, -1)
    while top > 0:
        top -= 1
        node, start, n = int(stack[top, 0]), int(stack[top, 1]), int(stack[top, 2])
        m = path[start:]
        m[:n] = path[start - n:start]
        extend(m, n, stack[top, 3], stack[top, 4], stack[top, 5])
        if left[node] == -1:  # a leaf: each feature on the path gets its share (eq. leaf-shapley)
            for element in range(1, n + 1):
                l = int(m[element, FEATURE])  # noqa: E741 (ℓ, a feature, as in the book)
                share = unwound_sum(m, n, element) * (m[element, FOLLOWS_X]
                                                      - m[element, COVER_SHARE])
                for k in range(value.shape[1]):
                    phi[l, k] += share * value[node, k]
            continue
        l = split_feature[node]  # noqa: E741
        # the child x goes to ("hot"), a missing value by the node's learned direction
        goes_left = missing_left[node] if np.isnan(x[l]) else x[l] <= threshold[node]
        hot, cold = (left[node], right[node]) if goes_left else (right[node], left[node])
        # a feature split on again higher up: undo its element, carry its fractions on
        incoming_share, incoming_follows = 1.0, 1.0
        for element in range(1, n + 1):
            if m[element, FEATURE] == l:
                incoming_share, incoming_follows = m[element, COVER_SHARE], m[element, FOLLOWS_X]
                unwind(m, n, element)
                n -= 1
                break
        # the children's paths start after this one (n + 1 elements), which stays intact
        if cover[cold] > 0:  # a child no training weight reached adds nothing below it
            top = push(stack, top, cold, start + n + 1, n + 1,
                       incoming_share * cover[cold] / cover[node], 0.0, l)
        top = push(stack, top, hot, start + n + 1, n + 1,
                   incoming_share * cover[hot] / cover[node], incoming_follows, l)


@njit(cache=True, nogil=True)
def _forest_shap(X, phi, tree, roots, depth):
    """Every row of ``X`` through every tree (roots at ``roots``): ϕ added to ``phi`` (N, d, K).

    A path holds at most ``depth + 1`` elements; the nested copies need
    ``(depth + 1)(depth + 2)/2`` rows, the stack ``depth + 1`` pending siblings and a node.
    """
    path = np.zeros(((depth + 1) * (depth + 2) // 2, 4))
    stack = np.zeros((depth + 2, 6))
    for i in range(X.shape[0]):
        for root in roots:
            tree_shap(X[i], phi[i], tree, root, path, stack)


# -- the model as flat trees ----------------------------------------------------------
def _tree_of(learner):
    tree = getattr(learner, "tree_", None)
    if tree is None:
        raise ValueError(
            f"reading the model tree by tree needs tree learners (with tree_), "
            f"not {type(learner).__name__}; use sklearn.inspection.permutation_importance "
            "or a model-agnostic explainer instead"
        )
    if np.any(getattr(tree, "is_categorical", False)):
        raise ValueError("reading the model tree by tree follows numeric thresholds, but "
                         f"{type(learner).__name__} has categorical splits (a set of "
                         "categories goes left); use sklearn.inspection.permutation_importance")
    return tree


def _stages(model):
    """``(learner, scale, column)`` for every tree of ``F``: ``scale = ν ρ_m``.

    ``column`` is the output the tree moves (class ``k`` per class), or None
    for all of them (a single-output model, or a multi-output tree).
    """
    estimators = np.asarray(model.estimators_, dtype=object)
    steps = np.asarray(model.steps_, dtype=float)
    nu = model.learning_rate
    if estimators.ndim == 2:  # per class: learner [m, k] moves the score of class k
        return [(estimators[m, k], nu * steps[m, k], k)
                for m in range(estimators.shape[0]) for k in range(estimators.shape[1])]
    return [(learner, nu * rho, None) for learner, rho in zip(estimators, steps, strict=True)]


class Forest:
    """The trees of a boosted model as one set of flat node arrays (chapter 10).

    ``tree`` is the tuple :func:`tree_shap` reads, with every leaf value
    multiplied by its stage's scale ``ν ρ_m`` (``F``'s own arithmetic: the
    values ``leaf_newton`` wrote, the steps the loop took); ``roots`` the index
    of every tree's root; ``expected`` the cover-weighted mean of ``F`` over
    the training data, ``E[F] = F_0 + Σ_m ν ρ_m Σ_leaves W_leaf/W_root · value``.
    """

    def __init__(self, model):
        check_is_fitted(model, "estimators_")
        stages = _stages(model)
        init_constant = None
        if isinstance(model.init_, DummyRegressor):  # F_0 a constant
            init_constant = model.init_step_ * np.ravel(model.init_.constant_).astype(float)
        else:  # init="learner": F_0 = ρ_0 f_0(x), one more tree
            stages.insert(0, (model.init_, model.init_step_, None))
        trees = [(_tree_of(learner), scale, column) for learner, scale, column in stages]
        estimators = np.asarray(model.estimators_, dtype=object)
        if estimators.ndim == 2:  # per class: K columns, one tree each per stage
            n_outputs = estimators.shape[1]
        else:
            n_outputs = trees[-1][0].value.shape[1]
        sizes = [tree.node_count for tree, _, _ in trees]
        self.roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        n_nodes = int(np.sum(sizes))
        left = np.full(n_nodes, -1, dtype=np.intp)
        right = np.full(n_nodes, -1, dtype=np.intp)
        feature = np.zeros(n_nodes, dtype=np.intp)
        threshold = np.zeros(n_nodes)
        missing_left = np.zeros(n_nodes, dtype=np.bool_)
        cover = np.zeros(n_nodes)
        value = np.zeros((n_nodes, n_outputs))
        self.expected = np.zeros(n_outputs) if init_constant is None else init_constant.copy()
        depth = 0
        for root, (tree, scale, column) in zip(self.roots, trees, strict=True):
            nodes = slice(root, root + tree.node_count)
            internal = tree.children_left != -1
            left[nodes] = np.where(internal, tree.children_left + root, -1)
            right[nodes] = np.where(internal, tree.children_right + root, -1)
            feature[nodes] = np.where(internal, tree.feature, 0)
            threshold[nodes] = np.where(internal, tree.threshold, 0.0)
            missing_left[nodes] = (tree.missing_left if hasattr(tree, "missing_left")
                                   else tree.missing_go_to_left.astype(bool))
            cover[nodes] = tree.weighted_n_node_samples
            leaf_values = np.where(internal[:, None], 0.0, tree.value[:, :, 0] * scale)
            columns = slice(None) if column is None else slice(column, column + 1)
            value[nodes, columns] = leaf_values
            share = tree.weighted_n_node_samples / tree.weighted_n_node_samples[0]
            self.expected[columns] += share @ leaf_values
            depth = max(depth, _depth(tree))
        self.tree = (left, right, feature, threshold, missing_left, cover, value)
        self.n_outputs = n_outputs
        self.depth = depth


def _depth(tree):
    depth = np.zeros(tree.node_count, dtype=np.intp)
    for k in range(tree.node_count):  # children come after their parent in both layouts
        if tree.children_left[k] != -1:
            depth[tree.children_left[k]] = depth[tree.children_right[k]] = depth[k] + 1
    return int(depth.max())


def _outputs_2d(model):
    """Whether the model's raw ``F`` is (n, K) rather than (n,)."""
    if hasattr(model, "classes_"):
        return bool(model.loss_.vector)
    return bool(model.loss_.vector and model._y_2d)


# -- SHAP values ----------------------------------------------------------------------
def shap_values(model, X):
    r"""SHAP values of a boosted model of trees: ``ϕ`` and the base value ``E[F]``.

    ``model`` is a fitted :class:`~boostlib.boosting.BoostingRegressor` or
    :class:`~boostlib.boosting.BoostingClassifier` whose learners are trees
    (scikit-learn's or :class:`~boostlib.trees.HistTreeRegressor`). The values
    explain the raw output ``F`` (``predict`` of a regressor,
    ``decision_function`` of a classifier: the raw score, not the probability;
    the log-odds for ``log_loss``, half of them for the exponential loss and
    the binomial deviance)
    with path-dependent TreeSHAP (Lundberg, Erion and Lee 2018), the cover of every
    node its training weight ``Σ s w``. Rows are routed as the model routes them:
    ``X`` converted as ``predict`` converts it (a sparse ``X`` is made dense,
    an absent entry a 0), a missing value by each node's
    learned direction. Local accuracy holds to rounding:
    ``ϕ.sum(axis=1) + E[F] = F(X)``.

    Returns ``(phi, expected)``: ``phi`` of shape (N, d) and ``expected`` a
    float, or, when ``F`` has ``K`` columns (several classes), ``phi`` of shape
    (N, d, K) and ``expected`` of shape (K,), as the ``shap`` package lays them out.
    """
    forest = Forest(model)
    X = model._check_X(X, reset=False)
    if issparse(X):  # the trees route a sparse row as its dense copy: an absent entry is a 0
        X = X.toarray()
    X = np.asarray(X, dtype=np.float64)
    phi = np.zeros((X.shape[0], X.shape[1], forest.n_outputs))
    _forest_shap(X, phi, forest.tree, forest.roots, forest.depth)
    if _outputs_2d(model):
        return phi, forest.expected.copy()
    return phi[:, :, 0], float(forest.expected[0])
