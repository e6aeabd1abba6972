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


def test_corpus_info_lists_replaced_places_and_binary_files(tmp_path, capsys):
    for cls in ("crude", "grain"):
        (tmp_path / cls).mkdir()
        for i in range(2):
            (tmp_path / cls / f"{i}.txt").write_bytes(f"{cls} words, pétrole et café {i}\n".encode() * 30)
    # one cp1252 apostrophe on line 3 of a UTF-8 file; a PDF among the documents
    (tmp_path / "crude" / "1.txt").write_bytes("pétrole brut\n".encode() * 2 + b"l\x92huile\n"
                                               + "café noir\n".encode() * 40)
    (tmp_path / "grain" / "scan.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + bytes(range(256)))
    assert main(["corpus-info", "--corpus", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "encodings: 4 files -- utf-8 4" in out
    assert "  crude/1.txt (utf-8): 1 sequence: line 3, byte offset 29 (92)" in out
    assert ("1 file skipped as binary data (not text):\n"
            "  grain/scan.pdf: a PDF document (it starts with 25 50 44 46 2d)") in out
    assert main(["corpus-info", "--corpus", str(tmp_path), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["replaced_files"] == [{"file": "crude/1.txt", "encoding": "utf-8", "replaced": 1,
                                    "first": [{"line": 3, "offset": 29, "bytes": "92"}]}]
    assert s["ignored_files"] == [{"file": "grain/scan.pdf",
                                   "reason": "binary data, not text: a PDF document (it starts with 25 50 44 46 2d)"}]
