"""TreeStructure invariants: every violation is rejected with a message naming the node."""
import pytest

from hbnlab._validation import HbnlabError
from hbnlab.bn.structure import StructureError, TreeStructure, features_under


def test_from_nested_round_trip_and_queries():
    t = TreeStructure.from_nested([[0, 1], 2, [3, [4, 5]]], feature_names=list("abcdef"), B=3)
    assert t.n_features == 6
    assert t.to_nested() == [[0, 1], 2, [3, [4, 5]]]
    assert [t.names[i] for i in t.children(0)] == ["hidden1", "c", "hidden2"]
    assert features_under(t, 0) == [0, 1, 2, 3, 4, 5]
    h2 = t.names.index("hidden2")
    assert features_under(t, h2) == [3, 4, 5]
    order = t.topological_bottom_up()
    pos = {n: k for k, n in enumerate(order)}
    assert all(pos[c] < pos[i] for i in range(t.n_nodes) for c in t.children(i))
    assert TreeStructure.from_dict(t.to_dict()) == t
    # HBN: the nodes below are BN parents; HNB: the node above is the only parent
    assert t.bn_parents(0) == t.children(0)
    hnb = t.with_direction("hnb")
    assert hnb.bn_parents(0) == () and hnb.bn_parents(h2) == (0,)
    assert "->" in t.to_dot() and "hidden1" in t.to_text()


@pytest.mark.parametrize(
    "nested, B, message",
    [
        ([[0], 1], None, "has 1 nodes below it"),          # hidden node with one child
        ([0, 1, 2, 3], 3, "class node has 4"),             # class over B
        ([[0, 1, 2, 3], 4], 3, "has 4 nodes below it, B = 3"),
        ([0, 2], None, "each exactly once"),               # feature 1 missing
        ([0, 0, 1], None, "each exactly once"),            # feature 0 twice
    ],
)
def test_invariants_are_enforced(nested, B, message):
    with pytest.raises(StructureError, match=message):
        TreeStructure.from_nested(nested, B=B)


def test_cycles_bad_roots_and_bad_B_are_rejected():
    assert issubclass(StructureError, HbnlabError) and issubclass(StructureError, ValueError)
    with pytest.raises(StructureError, match="cycle"):
        TreeStructure(up=(-1, 2, 1), kind=("class", "hidden", "hidden"), feature=(-1, -1, -1),
                      names=("c", "h1", "h2"))
    with pytest.raises(StructureError, match="node 0 must be the class"):
        TreeStructure(up=(0, -1), kind=("feature", "class"), feature=(0, -1), names=("f", "c"))
    with pytest.raises(StructureError, match="B must be an integer >= 2, got 1"):
        TreeStructure.from_nested([0, 1], B=1)
    with pytest.raises(StructureError, match="has nodes below it"):
        TreeStructure(up=(-1, 0, 1), kind=("class", "feature", "feature"), feature=(-1, 0, 1),
                      names=("c", "a", "b"))
    with pytest.raises(StructureError, match="missing field 'kind'"):
        TreeStructure.from_dict({"up": [-1]})
