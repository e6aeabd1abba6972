"""``--encoding`` on the command line: the encoding report of ``corpus-info`` and errors whose
advice names ``--encoding`` (not the Python keyword)."""
from __future__ import annotations

import json

from hbnlab.cli import main


def test_corpus_info_reports_the_encodings_of_a_mixed_folder(folder_corpus, capsys):
    assert main(["corpus-info", "--corpus", str(folder_corpus.root)]) == 0
    out = capsys.readouterr().out
    n = len(folder_corpus.files)
    assert f"corpus fixture: {n} documents" in out
    assert f"encodings: {n} files -- cp1252 16, utf-16 8, utf-8 8" in out
    assert "no file needed replacement characters" in out


def test_corpus_info_json_has_the_encoding_report(folder_corpus, capsys):
    assert main(["corpus-info", "--corpus", str(folder_corpus.root), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["encodings"] == {"cp1252": 16, "utf-16": 8, "utf-8": 8} and s["replaced_files"] == []


def test_a_named_encoding_that_fails_names_the_file_and_advises_the_option(folder_corpus, capsys):
    assert main(["corpus-info", "--corpus", str(folder_corpus.root), "--encoding", "utf-8"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hbnlab: error: ") and len(err.strip().splitlines()) == 1
    assert str(folder_corpus.root) in err and ("cannot decode as UTF-8 at byte offset" in err or "looks like" in err)
    assert err.strip().endswith("; rerun with --encoding auto") and "encoding=" not in err


def test_an_unknown_encoding_is_refused_with_the_option(folder_corpus, capsys):
    assert main(["corpus-info", "--corpus", str(folder_corpus.root), "--encoding", "klingon"]) == 2
    err = capsys.readouterr().err
    assert "unknown encoding 'klingon'; rerun with --encoding auto" in err


def test_train_reads_the_mixed_folder_and_records_a_named_encoding(folder_corpus, tmp_path, capsys):
    out = tmp_path / "m.hbnlab"
    argv = ["train", "--corpus", str(folder_corpus.root), "--class", "class00", "--classifier", "nb", "--out", str(out)]
    assert main(argv) == 0 and out.exists()
    assert main(argv[:-1] + [str(tmp_path / "n.hbnlab"), "--encoding", "cp1252"]) == 2
    assert "rerun with --encoding auto" in capsys.readouterr().err


def test_tree_reads_the_mixed_folder(folder_corpus, capsys):
    assert main(["tree", "--corpus", str(folder_corpus.root), "--class", "class01", "--classifier", "hbn-or",
                 "--format", "text"]) == 0
    assert capsys.readouterr().out.strip()
