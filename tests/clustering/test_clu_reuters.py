"""The thesis's class-``trade`` structures on Reuters-21578 (figs 4.1-4.4, Table 4.1 parameters).

Thesis sec. 4.2.3 describes them in words.  HBN-DEP's description is reproduced and checked
here.  HBN-AVG and HBN-OR are not: the thesis has every parent of the class hidden in HBN-AVG
and "trade", "tariffs" directly at the class in HBN-OR, while figs 3.6-3.10 as implemented (and
checked against slow oracles in test_clu_avg_or.py) keep "trade" alone under AVG (averaging it
with anything destroys its information) and merge it under OR with words that co-occur with
it ("semiconductors", "protectionist": their OR with "trade" is almost "trade" itself); only
validity is checked for those two (``python benchmarks/bench_clustering.py`` prints the trees).
"""
import numpy as np
import pytest

from hbnlab.bn.structure import FEATURE, HIDDEN
from hbnlab.clustering import construct_tree

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def trade(reuters_corpus):
    from hbnlab.features import score_terms
    from hbnlab.text import index_corpus

    ic = index_corpus(reuters_corpus)
    y = ic.Y_train[:, ic.categories.index("trade")].astype(np.int64)
    scores = score_terms(ic.X_train, y.astype(bool), "ig")[:, 0]
    cols = np.lexsort((np.arange(scores.size), -scores))[:30]  # 30 features by IG (sec. 4.1.2)
    names = [ic.vocabulary[c] for c in cols]
    return ic.X_train[:, cols], y, names


def _tree(trade, clustering, B, alpha):
    X, y, names = trade
    return construct_tree(X, y, B=B, clustering=clustering, alpha=alpha, feature_names=names,
                          class_name="tradeTOPIC")


def test_feature_selection_matches_the_thesis_vocabulary(trade):
    _, _, names = trade
    # the thesis names "trade" and "tariffs" as the two features of highest information gain
    assert names[:2] == ["trade", "tariffs"]


@pytest.mark.parametrize("clustering, B, alpha", [("avg", 7, 0.05), ("or", 9, 0.09), ("dep", 7, 170.0)])
def test_table_4_1_trees_are_valid(trade, clustering, B, alpha):
    tree = _tree(trade, clustering, B, alpha)
    assert tree.n_features == 30 and tree.B == B
    assert len(tree.children(0)) == B
    assert tree.names[0] == "tradeTOPIC"


def test_hbn_dep_puts_informative_features_next_to_the_class(trade):
    """Fig. 4.3: "The class variable has only one hidden variable as its parent, all the other
    its parents are feature variables.  Similarly, hidden variables have mostly features as
    their parents, and only one (hidden2 in the thesis) has two hidden variables as its
    parents."  The features at the class are the most informative ones."""
    tree = _tree(trade, "dep", 7, 170.0)
    kinds = [tree.kind[c] for c in tree.children(0)]
    assert kinds.count(HIDDEN) == 1 and kinds.count(FEATURE) == 6
    direct = sorted(tree.feature[c] for c in tree.children(0) if tree.kind[c] == FEATURE)
    assert direct == list(range(6))  # the six features of highest IG
    hidden_kids = {h: sum(tree.kind[c] == HIDDEN for c in tree.children(h)) for h in tree.hidden_nodes()}
    assert sorted(hidden_kids.values()).count(2) == 1 and max(hidden_kids.values()) == 2
    for h in tree.hidden_nodes():
        assert sum(tree.kind[c] == FEATURE for c in tree.children(h)) > hidden_kids[h]


def test_hbn_dep_alpha_zero_groups_similar_words(trade):
    """Fig. 4.4 (alpha = 0): clusters "very similar to how a human would do it"."""
    tree = _tree(trade, "dep", 7, 0.0)
    _, _, names = trade
    parent = {tree.names[i]: tree.up[i] for i in tree.feature_nodes()}
    assert parent["semiconductor"] == parent["semiconductors"]
    assert parent["shr"] == parent["vs"]  # earnings-report vocabulary
