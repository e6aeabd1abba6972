"""Newsgroup stripping through the product: the loaders, the manifest, the workbench config and
``corpus-info`` (issue 31).  Off, nothing changes; on, exactly the messages with headers, quotes
or a signature change, the fingerprint says so and the summary reports it."""
from __future__ import annotations

import hashlib
import json

import pytest
from newsgroup_fixtures import WITH_PARTS, newsgroup_files, write_newsgroup_folders

from hbnlab.cli import main
from hbnlab.corpus import CorpusError
from hbnlab.experiments.manifest import CorpusSpec, ManifestError
from hbnlab.pipeline.config import ExperimentConfig
from hbnlab.pipeline.corpus_spec import corpus_from_spec, data_home, load_named_corpus
from hbnlab.pipeline.data import prepare
from hbnlab.text import IndexingConfig
from hbnlab.text.newsgroup import strip_newsgroup

POSTER_WORDS = ("gordon", "banks", "pitt", "carter", "cmu", "skepticism", "organization")
SUMMARY = "newsgroup stripping applied (headers, quotes, signature): 4 of 10 documents changed"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "home"))
    root = tmp_path / "newsgroups"
    write_newsgroup_folders(root)
    return root


def _fingerprint_as_before(corpus) -> str:
    """Corpus.fingerprint as it was before stripping existed: ids, splits, labels, titles, texts."""
    h = hashlib.sha256()
    for d in corpus.documents:
        h.update(json.dumps([d.id, d.split, sorted(d.labels), d.title, d.text]).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def _name(doc) -> str:
    return doc.id.rsplit("/", 1)[-1]


def test_stripping_changes_exactly_the_messages_with_newsgroup_parts(folder):
    raw = load_named_corpus(str(folder))
    stripped = load_named_corpus(str(folder), strip="all")
    assert [d.id for d in stripped.documents] == [d.id for d in raw.documents]
    changed = {_name(a) for a, b in zip(raw.documents, stripped.documents) if a.text != b.text}
    assert changed == WITH_PARTS
    for a, b in zip(raw.documents, stripped.documents):
        assert (b.labels, b.split, b.title) == (a.labels, a.split, a.title)
        assert b.text == strip_newsgroup(a.text)
        assert not any(w in b.text.lower() for w in POSTER_WORDS), b.text
    body = next(d for d in stripped.documents if _name(d) == "101").text
    assert body == ("\nAspirin helps some migraine patients when taken early. "
                    "The patients asked the doctor about the medicine.")
    assert stripped.meta["newsgroup_strip"] == {"parts": ["headers", "quotes", "signature"], "changed": 4, "empty": 0}
    assert stripped.fingerprint() != raw.fingerprint()


def test_off_nothing_changes_and_the_fingerprint_is_the_one_of_before(folder):
    raw = load_named_corpus(str(folder))
    assert "newsgroup_strip" not in raw.meta
    assert raw.fingerprint() == _fingerprint_as_before(raw)
    for off in (None, (), [], ""):
        again = load_named_corpus(str(folder), strip=off)
        assert again.documents == raw.documents and again.meta == raw.meta
        assert again.fingerprint() == raw.fingerprint()
    # the texts as the files hold them
    by_name = {_name(d): d.text for d in raw.documents}
    assert all(by_name[p.rsplit("/", 1)[-1]] == b.decode() for p, b in newsgroup_files().items())


def test_only_the_parts_asked_for_are_removed(folder):
    sig_only = load_named_corpus(str(folder), strip=["signature"])
    med = next(d for d in sig_only.documents if _name(d) == "101").text
    assert med.startswith("From: geb@cadre.dsl.pitt.edu") and "Skepticism" not in med
    assert sig_only.meta["newsgroup_strip"]["parts"] == ["signature"]
    assert sig_only.fingerprint() != load_named_corpus(str(folder), strip="all").fingerprint()
    with pytest.raises(CorpusError, match="newsgroup part 'adverts' is unknown"):
        load_named_corpus(str(folder), strip="adverts")


def test_a_generated_corpus_refuses_stripping():
    with pytest.raises(CorpusError, match="not to a generated corpus"):
        load_named_corpus("synthetic", size=40, strip="all")


def test_the_poster_words_leave_the_vocabulary(folder):
    def vocabulary(corpus):
        data = prepare(corpus, categories=["sci.med", "rec.autos"], indexing=IndexingConfig(min_df=1),
                       validation="stratified")
        return set(data.vocabulary)

    raw = vocabulary(load_named_corpus(str(folder)))
    stripped = vocabulary(load_named_corpus(str(folder), strip="all"))
    assert {"gordon", "pitt", "carter"} <= raw
    assert not {"gordon", "pitt", "carter", "cmu", "banks"} & stripped
    assert {"aspirin", "engine"} <= stripped


# ---------------------------------------------------------------------------- manifest
def test_the_manifest_records_stripping_only_when_on(folder):
    off = CorpusSpec("path", path=str(folder))
    on = CorpusSpec("path", path=str(folder), strip=("signature", "headers", "quotes"))
    assert "strip" not in off.to_dict()
    assert on.to_dict() == {"kind": "path", "path": str(folder), "strip": ["headers", "quotes", "signature"]}
    assert CorpusSpec.from_dict(on.to_dict()) == on and CorpusSpec.from_dict(off.to_dict()) == off
    assert on.load().fingerprint() == load_named_corpus(str(folder), strip="all").fingerprint()
    assert off.load().fingerprint() == load_named_corpus(str(folder)).fingerprint()
    with pytest.raises(ManifestError, match="corpus.strip"):
        CorpusSpec("synthetic", strip=("headers",))
    with pytest.raises(ManifestError, match="corpus.strip.*'adverts' is unknown"):
        CorpusSpec.from_dict({"kind": "path", "path": str(folder), "strip": ["adverts"]})


# ---------------------------------------------------------------------------- workbench config
def test_the_upload_option_is_part_of_the_corpus_spec_and_off_by_default(folder):
    from corpus_fixtures import zip_bytes

    upload = data_home() / "uploads" / "news.zip"
    upload.parent.mkdir(parents=True, exist_ok=True)
    upload.write_bytes(zip_bytes(newsgroup_files(), "news/"))
    cfg = ExperimentConfig(corpus="upload", upload_path=str(upload))
    assert cfg.upload_newsgroup_strip is False and "strip" not in cfg.corpus_spec()
    assert "upload_newsgroup_strip" not in cfg.to_dict() and cfg.to_query().keys() == {"corpus", "upload_path"}
    on = cfg.replace(upload_newsgroup_strip=True)
    assert on.corpus_spec() == {**cfg.corpus_spec(), "strip": ["headers", "quotes", "signature"]}
    assert on.to_dict()["upload_newsgroup_strip"] is True and ExperimentConfig.from_dict(on.to_dict()) == on
    assert ExperimentConfig.from_query(on.to_query()) == (on, [])
    raw, stripped = corpus_from_spec(cfg.corpus_spec()), corpus_from_spec(on.corpus_spec())
    assert "newsgroup_strip" not in raw.meta and raw.fingerprint() == _fingerprint_as_before(raw)
    assert stripped.meta["newsgroup_strip"]["changed"] == 4
    assert {_name(a) for a, b in zip(raw.documents, stripped.documents) if a.text != b.text} == WITH_PARTS
    with pytest.raises(ValueError, match="upload_newsgroup_strip must be true or false"):
        cfg.replace(upload_newsgroup_strip="yes")
    with pytest.raises(ValueError, match="'strip' applies to read texts"):
        corpus_from_spec({"corpus": "synthetic", "seed": 0, "size": 40, "strip": ["headers"]})


# ---------------------------------------------------------------------------- command line
def test_corpus_info_says_stripping_was_applied_and_how_many_documents_changed(folder, capsys):
    assert main(["corpus-info", "--corpus", str(folder), "--strip-newsgroup"]) == 0
    out = capsys.readouterr().out
    assert SUMMARY in out.splitlines()
    assert main(["corpus-info", "--corpus", str(folder)]) == 0
    assert "stripping" not in capsys.readouterr().out
    assert main(["corpus-info", "--corpus", str(folder), "--strip-newsgroup", "quotes", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["newsgroup_strip"] == {"parts": ["quotes"], "changed": 4, "empty": 0}
    assert main(["corpus-info", "--corpus", str(folder), "--json"]) == 0
    assert "newsgroup_strip" not in json.loads(capsys.readouterr().out)


def test_the_flag_is_refused_where_it_cannot_apply(folder, capsys):
    assert main(["corpus-info", "--corpus", "synthetic", "--synthetic-size", "40", "--strip-newsgroup"]) == 2
    assert "--strip-newsgroup: for read texts (--corpus reuters|PATH), not for --corpus synthetic" in \
        capsys.readouterr().err
    assert main(["corpus-info", "--corpus", str(folder), "--strip-newsgroup", "headers,adverts"]) == 2
    assert "--strip-newsgroup: newsgroup part 'adverts' is unknown" in capsys.readouterr().err


def test_train_records_stripping_in_the_model_provenance(folder, tmp_path, capsys):
    from hbnlab.export.model_io import load_model

    out = tmp_path / "m.hbnlab"
    assert main(["train", "--corpus", str(folder), "--strip-newsgroup", "--class", "sci.med", "--classifier", "nb",
                 "--n-features", "5", "--out", str(out)]) == 0
    capsys.readouterr()
    model = load_model(out)
    assert model.provenance["corpus_spec"]["strip"] == ["headers", "quotes", "signature"]
    assert model.corpus["fingerprint"] == load_named_corpus(str(folder), strip="all").fingerprint()
