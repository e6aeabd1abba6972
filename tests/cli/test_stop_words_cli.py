"""Issue 38 item 4 on the command line: ``--stop-words none|thesis|english|PATH`` on every command that
indexes a corpus, and ``corpus-info`` says how many documents the indexing leaves without a term."""
from __future__ import annotations

import csv
import json

import pytest

from hbnlab.cli import main

#: Questions: the thesis's list (and English's) removes every wh-word.
ROWS = [("q1", "Who wrote Hamlet?", "person", "train"), ("q2", "Who is he?", "person", "train"),
        ("q3", "Where is Paris?", "place", "train"), ("q4", "Where is it?", "place", "train"),
        ("q5", "Who wrote Hamlet?", "person", "train"), ("q6", "Where is Paris?", "place", "train"),
        ("q7", "Who is she?", "person", "test"), ("q8", "Where is Paris?", "place", "test")]


@pytest.fixture(autouse=True)
def data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "home"))


@pytest.fixture
def questions(tmp_path):
    path = tmp_path / "questions.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "labels", "split"])
        w.writerows(ROWS)
    return str(path)


def test_corpus_info_counts_the_documents_left_without_a_term(questions, capsys):
    assert main(["corpus-info", "--corpus", questions]) == 0
    out = capsys.readouterr().out
    # thesis list: "who is he", "where is it" (train) and "who is she" (test) keep nothing
    assert ("indexing (stop words: thesis, terms in >= 2 training documents): 3 terms; 2 of 6 training and "
            "1 of 2 test documents have no term left") in out
    assert main(["corpus-info", "--corpus", questions, "--stop-words", "none"]) == 0
    assert "0 of 6 training and 0 of 2 test documents have no term left" in capsys.readouterr().out


def test_corpus_info_json_and_a_file_list(questions, tmp_path, capsys):
    stop = tmp_path / "stop.txt"
    stop.write_text("# mine\nis\n", encoding="utf-8")
    assert main(["corpus-info", "--corpus", questions, "--stop-words", str(stop), "--json"]) == 0
    ix = json.loads(capsys.readouterr().out)["indexing"]
    assert ix["stopwords"] == ["is"]
    assert ix["empty_documents"] == {"train": 0, "test": 0}


def test_a_bad_stop_list_is_one_line_naming_the_file_and_the_line(questions, tmp_path, capsys):
    stop = tmp_path / "stop.txt"
    stop.write_bytes(b"is\nof\nthe the\n")
    assert main(["corpus-info", "--corpus", questions, "--stop-words", str(stop)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"hbnlab: error: --stop-words: stop list {str(stop)!r}, line 3: expected one word per line, "
                   f"got 'the the'")
    assert main(["corpus-info", "--corpus", questions, "--stop-words", "englsh"]) == 2
    assert "'englsh' is neither a stop list (thesis, english, smart, sklearn, none)" in capsys.readouterr().err


def test_train_keeps_the_stop_list_in_the_model_file(questions, tmp_path, capsys):
    from hbnlab.export.model_io import load_model

    out = tmp_path / "m.hbnlab"
    assert main(["train", "--corpus", questions, "--class", "person", "--classifier", "nb", "--n-features", "3",
                 "--stop-words", "none", "--out", str(out)]) == 0
    loaded = load_model(out)
    assert loaded.indexing.stopwords == "none"
    assert "who" in loaded.vocabulary


def test_tree_takes_the_flag(questions, capsys):
    assert main(["tree", "--corpus", questions, "--class", "person", "--classifier", "hbn-or", "--n-features", "3",
                 "--stop-words", "none", "--B", "2"]) == 0


def test_reproduce_table_4_10_records_the_stop_list(questions, tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["reproduce", "table-4.10", "--corpus", questions, "--rows", "NB:3", "--cv", "2", "--n-jobs", "1",
                 "--stop-words", "none", "--json", str(out)]) == 0
    assert "the thesis's values apply to Reuters-21578's 10 most frequent classes with the thesis's stop list only" \
        in capsys.readouterr().out
    corpus = json.loads(out.read_text())["corpus"]
    assert corpus["indexing"]["stopwords"] == "none"
    assert corpus["empty_documents"] == {"train": 0, "test": 0}


@pytest.mark.parametrize("target", ["decampos-table-1", "verbeek-figures"])
def test_reproduce_refuses_the_flag_where_the_protocol_fixes_the_list(target, capsys):
    assert main(["reproduce", target, "--stop-words", "english"]) == 2
    assert "--stop-words applies to the thesis's tables (table-4.x), not to" in capsys.readouterr().err


def test_sweep_indexes_with_the_stop_list_and_a_new_list_is_a_new_sweep(questions, capsys):
    from hbnlab.cli import build_parser
    from hbnlab.cli.sweep import default_sweep_id
    from hbnlab.experiments import sweep as sw
    from hbnlab.pipeline.corpus_spec import load_named_corpus
    from hbnlab.text import IndexingConfig

    args = build_parser().parse_args(["sweep", "--corpus", questions, "--stop-words", "none"])
    assert args.stop_words == "none"
    corpus = load_named_corpus(questions)
    config = sw.SweepConfig(categories="all", clusterings=("or",), B=(3,), alpha={"or": (0.0,)}, n_features=(2,),
                            cv=2, baselines=())
    thesis = sw.prepare_sweep_data(corpus, config)
    none = sw.prepare_sweep_data(corpus, config, indexing=IndexingConfig(stopwords="none"))
    assert "who" in none.names and "who" not in thesis.names
    assert default_sweep_id(config, none) != default_sweep_id(config, thesis)
