"""``hbnlab reproduce decampos-table-1 --collection ohsumed|20newsgroups --corpus PATH`` end to end on the
tiny look-alikes of ``tests/collection_fixtures.py``."""
from __future__ import annotations

import json

import pytest
from collection_fixtures import make_20news_19997, make_20news_bydate, make_ohsumed_first20000

from hbnlab.cli import main
from hbnlab.experiments.decampos import CLASSIFIERS, MEASURES, PAPER


def _run(argv, tmp_path, capsys):
    out = tmp_path / "out.json"
    rc = main(["reproduce", *argv, "--json", str(out)])
    printed = capsys.readouterr().out
    assert rc == 0
    return json.loads(out.read_text()), printed


def _check_paper_columns(result, table, printed):
    assert [r["classifier"] for r in result["rows"]] == list(CLASSIFIERS)
    for row in result["rows"]:
        for m in MEASURES:
            assert row[f"paper_{m}"] == PAPER[table][row["classifier"]][m]
            assert 0.0 <= row[m] <= 100.0
    # the printed table shows the paper's value of this collection beside ours
    nb_micro = PAPER[table]["NBayes"]["micro"]
    assert f" / {nb_micro:.1f} (" in printed


def test_20newsgroups_19997_runs_with_a_seeded_split(tmp_path, capsys):
    top = make_20news_19997(tmp_path / "data")
    res, printed = _run(["decampos-table-1", "--collection", "20newsgroups", "--corpus", str(top),
                         "--random-state", "5"], tmp_path, capsys)
    c = res["corpus"]
    assert (c["collection"], c["collection_key"], c["corpus_path"]) == ("20 Newsgroups", "20newsgroups", str(top))
    assert c["layout"] == "20news-folder-per-group"
    assert c["split"]["kind"] == "seeded" and c["split"]["test_fraction"] == 0.4 and c["split"]["random_state"] == 5
    # 13 documents (the crosspost merged), round(13 * 0.4) = 5 of them for testing
    assert (c["n_train"], c["n_test"], c["n_categories"]) == (8, 5, 3)
    assert c["reader"]["n_files"] == 14 and c["reader"]["crossposts"] == {"sci.med/59000": ["sci.space/61000"]}
    assert c["paper_corpus"] == {"n_documents": 19997, "n_categories": 20}
    _check_paper_columns(res, 3, printed)
    assert "20 Newsgroups: 8 train / 5 test documents" in printed and "split: seeded, test_fraction 0.4" in printed


def test_20newsgroups_bydate_uses_the_folders_split_and_table_3_is_an_alias(tmp_path, capsys):
    top = make_20news_bydate(tmp_path / "data")
    res, printed = _run(["decampos-table-1", "--collection", "20newsgroups", "--corpus", str(top)], tmp_path, capsys)
    c = res["corpus"]
    assert c["layout"] == "20news-bydate" and c["split"]["kind"] == "folders"
    assert (c["n_train"], c["n_test"]) == (13, 6)
    _check_paper_columns(res, 3, printed)
    alias, _ = _run(["decampos-table-3", "--corpus", str(top)], tmp_path, capsys)
    assert [{m: r[m] for m in MEASURES} for r in alias["rows"]] == [{m: r[m] for m in MEASURES} for r in res["rows"]]
    assert alias["corpus"]["collection_key"] == "20newsgroups"


def test_ohsumed_first20000_runs(tmp_path, capsys):
    top = make_ohsumed_first20000(tmp_path / "data")
    res, printed = _run(["decampos-table-1", "--collection", "ohsumed", "--corpus", str(top)], tmp_path, capsys)
    c = res["corpus"]
    assert (c["collection"], c["collection_key"], c["layout"]) == ("Ohsumed", "ohsumed", "ohsumed-first-20000-docs")
    assert (c["n_train"], c["n_test"], c["n_categories"]) == (6, 4, 3) and c["reader"]["n_multilabel"] == 2
    assert c["split"] == {"kind": "folders", "folders": {"test": "test", "training": "train"}}
    assert c["paper_corpus"] == {"n_train": 10000, "n_test": 10000, "n_categories": 23}
    _check_paper_columns(res, 2, printed)
    alias, _ = _run(["decampos-table-2", "--corpus", str(top), "--collection", "ohsumed"], tmp_path, capsys)
    assert alias["corpus"]["fingerprint"] == c["fingerprint"]


@pytest.mark.parametrize("argv, message", [
    (["decampos-table-3", "--collection", "ohsumed", "--corpus", "x"],
     "--collection ohsumed contradicts decampos-table-3 (20 Newsgroups)"),
    (["table-4.10", "--collection", "ohsumed"], "--collection applies to decampos-table-1 only"),
    (["decampos-table-1", "--collection", "20newsgroups", "--corpus", "no/such/dir"],
     "--corpus 'no/such/dir': no such file or directory"),
    (["decampos-table-1", "--collection", "ohsumed"], "table 2 (Ohsumed) needs a corpus"),
])
def test_bad_collection_arguments_give_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hbnlab: error: ") and message in err and len(err.strip().splitlines()) == 1


def test_a_bad_message_names_its_file_and_line(tmp_path, capsys):
    top = make_20news_19997(tmp_path / "data")
    (top / "sci.med" / "77").write_text("Subject: x\nthis is no header\n\nbody words\n")
    assert main(["reproduce", "decampos-table-1", "--collection", "20newsgroups", "--corpus", str(top)]) == 2
    err = capsys.readouterr().err
    assert f"line 2 of {top / 'sci.med' / '77'}: expected a header" in err
