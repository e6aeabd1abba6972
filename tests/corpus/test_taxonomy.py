"""Taxonomies from dotted names and from ``parent<TAB>child`` files: the tree, inheritance of
labels, and every error naming the file and the line."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from hbnlab.corpus import make_hierarchical_corpus
from hbnlab.corpus.taxonomy import (
    ROOT,
    Taxonomy,
    TaxonomyError,
    TopicLabels,
    read_taxonomy,
    taxonomy_for_categories,
)

NEWS = ["comp.sys.mac", "comp.sys.ibm", "comp.graphics", "sci.med", "misc"]


def test_dotted_names_give_every_prefix_as_an_ancestor():
    tax = Taxonomy.from_names(NEWS)
    assert tax.nodes == ("comp", "misc", "sci", "comp.graphics", "comp.sys", "sci.med", "comp.sys.ibm",
                         "comp.sys.mac")
    assert tax.children(ROOT) == ("comp", "misc", "sci")
    assert tax.children("comp.sys") == ("comp.sys.ibm", "comp.sys.mac")
    assert tax.path("comp.sys.mac") == ("comp", "comp.sys", "comp.sys.mac")
    assert tax.depth("comp.sys.mac") == 3 and tax.depth(ROOT) == 0
    assert tax.internal_nodes == (ROOT, "comp", "sci", "comp.sys")
    assert set(tax.descendants("comp")) == {"comp", "comp.graphics", "comp.sys", "comp.sys.ibm", "comp.sys.mac"}
    assert not tax.is_flat and Taxonomy.from_names(["a", "b"]).is_flat
    assert Taxonomy.from_dict(tax.to_dict()).parents == tax.parents


def test_labels_are_inherited_by_every_ancestor():
    tax = Taxonomy.from_names(NEWS)
    topics = TopicLabels.from_label_sets(tax, [{"comp.sys.mac"}, {"sci.med", "misc"}, set(), {"not-in-tree"}])
    expected = {  # document -> nodes it belongs to
        0: {"comp", "comp.sys", "comp.sys.mac"}, 1: {"sci", "sci.med", "misc"}, 2: set(), 3: set()}
    for i, nodes in expected.items():
        assert {n for n in tax.nodes if topics.column(n)[i]} == nodes
    assert topics.column(ROOT).all()
    sub = topics.rows(np.array([True, False, True, False]))
    assert sub.n_documents == 2 and sub.column("comp").tolist() == [True, False]
    with pytest.raises(ValueError, match="read-only"):
        topics.Y[0, 0] = False


def test_taxonomy_and_labels_survive_pickling_for_worker_processes():
    topics = TopicLabels.from_label_sets(Taxonomy.from_names(NEWS), [{"comp.sys.mac"}, {"sci.med"}])
    back = pickle.loads(pickle.dumps(topics))
    assert back.taxonomy.parents == topics.taxonomy.parents and back.taxonomy.path("comp.sys.mac")[0] == "comp"
    assert np.array_equal(back.Y, topics.Y) and not back.Y.flags.writeable


@pytest.mark.parametrize("name", ["a..b", ".a", "a."])
def test_dotted_names_with_an_empty_part_are_refused(name):
    with pytest.raises(TaxonomyError, match=f"category {name!r}: a dotted name needs a non-empty part"):
        Taxonomy.from_names([name])


def test_constructor_refuses_cycles_and_unknown_parents():
    with pytest.raises(TaxonomyError, match="'a' is its own ancestor"):
        Taxonomy({"a": "b", "b": "a"})
    with pytest.raises(TaxonomyError, match="the parent 'z' of 'a' is not a node"):
        Taxonomy({"a": "z"})


def _write(tmp_path, text):
    p = tmp_path / "tax.tsv"
    p.write_text(text, encoding="utf-8")
    return p


def test_file_with_comments_blank_lines_and_implicit_top_level(tmp_path):
    p = _write(tmp_path, "# news\n\ncomp\tcomp.sys\ncomp.sys\tmac\ncomp\tgraphics\ncomp\tgraphics\n")
    tax = read_taxonomy(p)
    assert tax.path("mac") == ("comp", "comp.sys", "mac")
    assert tax.children(ROOT) == ("comp",)
    # the corpus's categories the file does not mention hang from the root
    tax2 = read_taxonomy(p, categories=["mac", "graphics", "other"])
    assert tax2.children(ROOT) == ("comp", "other")


@pytest.mark.parametrize("text, message", [
    ("a\tb\nc\td\te\n", r"line 2 of .*tax.tsv: expected 'parent<TAB>child', got 3 tab-separated fields"),
    ("a b\n", r"line 1 of .*: expected 'parent<TAB>child', got 1 tab-separated field$"),
    ("a\tb\n\t c\n", r"line 2 of .*: empty parent name"),
    ("a\tb\nx\tb\n", r"line 2 of .*: 'b' already has parent 'a' \(line 1\); a taxonomy is a tree"),
    ("a\ta\n", r"line 1 of .*: 'a' is its own parent \(a cycle\)"),
    ("r\ta\na\tb\nb\ta\n", r"line \d of .*: '[ab]' already has parent"),
    ("a\tb\nb\tc\nc\ta\n", r"line \d of .*: '[abc]' is its own ancestor \(a cycle\)"),
])
def test_file_errors_name_the_file_and_the_line(tmp_path, text, message):
    with pytest.raises(TaxonomyError, match=message):
        read_taxonomy(_write(tmp_path, text))


def test_a_leaf_that_is_no_category_is_refused_with_its_line(tmp_path):
    p = _write(tmp_path, "comp\tmac\ncomp\tibm\n")
    with pytest.raises(TaxonomyError, match=r"line 2 of .*: leaf 'ibm' is not a category of the corpus"):
        read_taxonomy(p, categories=["mac"])


def test_unreadable_file(tmp_path):
    with pytest.raises(TaxonomyError, match="cannot read the taxonomy file"):
        read_taxonomy(tmp_path / "missing.tsv")
    p = tmp_path / "bin.tsv"
    p.write_bytes(b"\xff\xfe\x00a")
    with pytest.raises(TaxonomyError, match="cannot read the taxonomy file"):
        read_taxonomy(p)


def test_an_experiment_has_a_taxonomy_only_with_dots_or_a_file():
    assert taxonomy_for_categories(["acq", "earn"]) is None
    assert taxonomy_for_categories(["u.s.", "uk"]) is None  # dots that name no parent: no hierarchy, no error
    assert taxonomy_for_categories(["a.x", "a.y"]).path("a.x") == ("a", "a.x")
    given = Taxonomy({"g": ROOT, "acq": "g"})
    assert taxonomy_for_categories(["acq", "earn"], given).children(ROOT) == ("earn", "g")


def test_hierarchical_generator_is_seeded_and_dotted():
    a = make_hierarchical_corpus(n_documents=200, random_state=4)
    b = make_hierarchical_corpus(n_documents=200, random_state=4)
    assert a.fingerprint() == b.fingerprint()
    assert a.fingerprint() != make_hierarchical_corpus(n_documents=200, random_state=5).fingerprint()
    assert len(a.categories(min_train=1, min_test=1)) == 9
    tax = Taxonomy.from_names(a.categories())
    assert tax.internal_nodes == (ROOT, "alpha", "bravo", "charlie")
    planted = a.meta["planted"]
    assert planted["taxonomy"] == {**{t: ROOT for t in ("alpha", "bravo", "charlie")},
                                   **{n: n.split(".")[0] for n in a.categories()}}
    # siblings share their topic's words; the leaf words tell them apart
    red = [d for d in a.train if d.labels == {"alpha.red"}]
    words = set(" ".join(d.text for d in red).split())
    assert set(planted["topic_words"]["alpha"]) & words and set(planted["leaf_words"]["alpha.red"]) & words
    with pytest.raises(ValueError, match="n_subtopics must be <= 10"):
        make_hierarchical_corpus(n_subtopics=11)
    with pytest.raises(ValueError, match="every leaf needs one of each"):
        make_hierarchical_corpus(n_documents=20, test_fraction=0.1)
