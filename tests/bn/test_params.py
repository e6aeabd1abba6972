"""TreeParameters: table shapes per direction, the configuration index, JSON round trip and the
validator that names the bad node."""
import json

import numpy as np
import pytest

from hbnlab._validation import HbnlabError
from hbnlab.bn.params import ParameterError, TreeParameters, config_index, cpt_shape
from hbnlab.bn.structure import TreeStructure


def _tree(direction="hbn"):
    # class <- {hidden1 <- {F0, F1, F2}, F3}
    return TreeStructure.from_nested([[0, 1, 2], 3], direction=direction)


def test_shapes_hbn_and_hnb():
    t = _tree("hbn")
    h = t.names.index("hidden1")
    assert cpt_shape(t, 0) == (4, 2)            # 2 nodes below the class
    assert cpt_shape(t, h) == (8, 2)            # 3 features below hidden1
    assert all(cpt_shape(t, i) == (2,) for i in t.feature_nodes())
    u = t.with_direction("hnb")
    assert cpt_shape(u, 0) == (2,)
    assert all(cpt_shape(u, i) == (2, 2) for i in range(1, u.n_nodes))


def test_config_index_bit_j_is_jth_child():
    assert config_index([0, 0, 0]) == 0
    assert config_index([1, 0, 0]) == 1
    assert config_index([0, 1, 0]) == 2
    assert config_index([1, 0, 1]) == 5
    assert config_index(np.array([[1, 1], [0, 1]])).tolist() == [3, 2]


def test_uniform_round_trip_through_json():
    rng = np.random.default_rng(0)
    for direction in ("hbn", "hnb"):
        t = _tree(direction)
        tables = []
        for i in range(t.n_nodes):
            shape = cpt_shape(t, i)
            tables.append(rng.dirichlet([1, 1], size=int(np.prod(shape[:-1]))).reshape(shape))
        p = TreeParameters(t, tables)
        d = json.loads(json.dumps(p.to_dict()))
        q = TreeParameters.from_dict(d)
        assert q.tree == t
        for a, b in zip(p.cpts, q.cpts):
            np.testing.assert_array_equal(a, b)
        # tables are read-only copies
        assert not p.cpt(0).flags.writeable
    u = TreeParameters.uniform(_tree())
    assert all(np.all(c == 0.5) for c in u.cpts)
    assert u.n_free_parameters() == 4 + 8 + 4 * 1


def test_replace_and_from_dict_with_tree_override():
    t = _tree()
    p = TreeParameters.uniform(t)
    q = p.replace(0, [[0.9, 0.1]] * 4)
    assert q.cpt(0)[0].tolist() == [0.9, 0.1] and p.cpt(0)[0].tolist() == [0.5, 0.5]
    r = TreeParameters.from_dict({"cpts": q.to_dict()["cpts"]}, tree=t)
    np.testing.assert_array_equal(r.cpt(0), q.cpt(0))


@pytest.mark.parametrize(
    "node, table, message",
    [
        (0, np.full((3, 2), 0.5), r"node 0 \('class'\): table has shape \(3, 2\), expected \(4, 2\)"),
        (0, [[0.5, 0.5], [0.5, 0.5], [0.7, 0.7], [0.5, 0.5]], "node 0 .* row 2 sums to 1.4"),
        (0, [[1.5, -0.5]] * 4, "negative probability -0.5"),
        (0, [[np.nan, 0.5]] * 4, "non-finite"),
        (2, "abc", "not a numeric array"),
    ],
)
def test_validator_names_the_node(node, table, message):
    t = _tree()
    tables = list(TreeParameters.uniform(t).cpts)
    tables[node] = table
    with pytest.raises(ParameterError, match=message):
        TreeParameters(t, tables)


def test_validator_rejects_wrong_count_and_direction():
    assert issubclass(ParameterError, HbnlabError) and issubclass(ParameterError, ValueError)
    t = _tree()
    with pytest.raises(ParameterError, match="got 2 tables for a tree of 6 nodes"):
        TreeParameters(t, [np.full((4, 2), 0.5), np.full(2, 0.5)])
    d = TreeParameters.uniform(t).to_dict()
    d["direction"] = "hnb"
    with pytest.raises(ParameterError, match="direction 'hnb'"):
        TreeParameters.from_dict(d)
    with pytest.raises(ParameterError, match="missing field 'cpts'"):
        TreeParameters.from_dict({"tree": t.to_dict()})
    with pytest.raises(ParameterError, match="must be a TreeStructure"):
        TreeParameters("not a tree", [])
