"""The Export page offers a trained model as a Bayesian network (BIF, XMLBIF, HUGIN .net), the files
``hbnlab export-model`` writes, for the learners with a network form; for the others it says why not."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from app_testutil import no_exceptions, shown, texts, wait_for_jobs

from hbnlab.pipeline.config import ExperimentConfig

CFG = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=8, n_restarts=1, B_or=3)
NETWORK_BUTTONS = ["Bayesian network (BIF)", "Bayesian network (XMLBIF)", "Bayesian network (HUGIN .net)"]


def test_export_page_offers_the_network_files_of_bn_learners_only(app, tmp_path):
    from hbnlab.app import job_client, job_outputs
    from hbnlab.app.views.export import BN_FILES, bn_files
    from hbnlab.export import export_bn, load_model
    from hbnlab.export.bn_formats import FORMATS

    job = job_client.submit_train(CFG, classes=["alpha"], classifiers=["HBN-OR", "NB", "SVM"])
    (rec,) = wait_for_jobs(240, ids=[job])
    assert rec.state == "done", rec.error
    app.query_params = {k: str(v) for k, v in CFG.to_query().items()}
    app.run()
    app.switch_page("pages/export.py").run()
    no_exceptions(app)
    for unit in ("alpha|HBN-OR", "alpha|NB"):
        app.selectbox(key="p_unit").set_value(unit).run()
        no_exceptions(app)
        labels = [shown(b.label) for b in app.get("download_button")]
        assert [b for b in labels if b.startswith("Bayesian network")] == NETWORK_BUTTONS, labels
    app.selectbox(key="p_unit").set_value("alpha|SVM").run()
    no_exceptions(app)
    assert not [b for b in app.get("download_button") if b.label.startswith("Bayesian network")]
    assert any("SVM has no Bayesian-network form" in c for c in texts(app, "caption"))

    # the page's files are the CLI's (hbnlab export-model): two routes, one text
    assert tuple(BN_FILES) == FORMATS
    model = job_outputs.train_outputs(job).unit("alpha|HBN-OR")["model"]
    data = job_outputs.model_bytes(model)
    files = bn_files(data)
    path = tmp_path / "m.hbnlab"
    path.write_bytes(data)
    for fmt, text in files.items():
        assert export_bn(load_model(path), fmt, tmp_path / f"m{BN_FILES[fmt][1]}").read_text() == text
    assert "alphaTOPIC" in files["bif"] and "\nnet\n" in files["net"] and "potential (" in files["net"]
    root = ET.fromstring(files["xmlbif"].split("?>", 1)[-1])
    names = [v.findtext("NAME") for v in root.iter("VARIABLE")]
    assert "alphaTOPIC" in names and len(names) > CFG.n_features
    assert bn_files(job_outputs.model_bytes(job_outputs.train_outputs(job).unit("alpha|SVM")["model"])) == {}
