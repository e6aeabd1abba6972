"""An analyst's day with an own corpus in Chromium, the way issue 38 tried it: upload a newsgroup ZIP,
Features at 100 terms, a preset, Train, Explain of a document the model is certain of, Compare,
Export as Python (and that script run in a fresh process).

The walk checks what the analyst would see and prints one line per step:

* the upload is read (the corpus summary shown);
* Features: "Terms per class" 100 and every class, applied;
* the "Quick demo" preset runs a job of its own and leaves every widget of Features and Training as
  the analyst set them (read before and after);
* Train from the form: NB and HBN-DEP, every class, the tables fitted by EM (the thesis's fit makes
  the certain documents Explain must handle; see the Parameter fit help);
* Explain: the HBN-DEP of one class, a document with P(class | document) exactly 0 or 1 (found in
  the job's scores), shown with the page's "certain" note and no "nan" or "inf" anywhere;
* Compare: the job's HBN-DEP against its NB, with accuracy;
* Export: "What I just did, as Python" downloaded and run in a fresh process and data home with the
  upload's path: it must print the job's own breakeven table.

Usage (from the repository root, after ``bash scripts/setup.sh --dev``)::

    .venv/bin/python scripts/walkthroughs/analyst.py [--upload FILE.zip] [--documents N] [--shots DIR]

Without ``--upload``, a 20 Newsgroups-layout ZIP of ``--documents`` messages (default 3,000) is made with
``benchmarks/bench_workbench_pages.py``'s generator.  Exit status 1 when a check fails; screenshots go to
``--shots`` (look at them).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from test_workbench_e2e import SCRIPT_DONE, _idle, _nav, open_page, streamlit_server, upload_form, wait_job  # noqa: E402
from test_workbench_round2_e2e import _choose_only, _chosen  # noqa: E402

#: Seconds the exported script may take (it fits every unit of the job again).
SCRIPT_DEADLINE = 900
#: Training widgets read before and after the preset: (kind, label).
TRAINING_WIDGETS = (("multiselect", "Classes"), ("multiselect", "Classifiers"), ("number", "EM restarts (thesis: 64)"),
                    ("select", "Parameter fit"))
FEATURES_WIDGETS = (("number", "Terms per class"), ("number", "Most frequent"))

FAILED: list[str] = []


def check(ok: bool, what: str) -> None:
    print(f"  [{'ok' if ok else 'FAILED'}] {what}")
    if not ok:
        FAILED.append(what)


def read_widgets(page, widgets) -> dict:
    out = {}
    for kind, label in widgets:
        if kind == "number":
            out[label] = page.get_by_label(label, exact=True).input_value()
        elif kind == "multiselect":
            chooser = page.locator('[data-testid="stMultiSelect"]', has_text=label)
            out[label] = _chosen(chooser, label)
        else:  # a selectbox: a combobox whose input holds the chosen option
            out[label] = page.get_by_role("combobox", name=label, exact=True).input_value()
    return out


def choose(page, label: str, option: str, attempts: int = 5) -> None:
    """Pick ``option`` in the selectbox ``label`` and see it chosen (a fragment's redraw can drop a
    click made meanwhile; the choice is made again, as a user who sees it missing would)."""
    box = page.get_by_role("combobox", name=label, exact=True)
    for _ in range(attempts):
        _idle(page)
        if box.input_value() == option:
            return
        box.click()
        page.get_by_role("option", name=option, exact=True).click()
        page.wait_for_timeout(300)
    check(box.input_value() == option, f"{label}: {box.input_value()!r} after {attempts} attempts to choose {option!r}")


def certain_document(home: Path, job_id: int, classifier: str):
    """``(class, document id, probability)`` of a unit of ``classifier`` whose P(class | document)
    is exactly 0 or 1, from the job's stored scores (the class with most of them first); None
    when the job has none."""
    import numpy as np

    os.environ["HBNLAB_DATA_HOME"] = str(home)
    from hbnlab.app import job_outputs

    out = job_outputs.train_outputs(job_id)
    best = None
    for k, unit in enumerate(out.columns):
        label, name = job_outputs.unit_parts(unit)
        certain = np.flatnonzero((out.S[:, k] == 0.0) | (out.S[:, k] == 1.0))
        if name == classifier and certain.size and (best is None or certain.size > best[0]):
            i = certain[np.argmax(out.S[certain, k])]          # a 1 when there is one
            best = (certain.size, label, out.doc_ids[i], float(out.S[i, k]))
    return None if best is None else best[1:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--upload", help="a ZIP or table to upload (default: a generated newsgroup ZIP)")
    ap.add_argument("--documents", type=int, default=3000, help="messages of the generated ZIP")
    ap.add_argument("--classes", type=int, default=20, help="Features' most frequent N (the generated ZIP has 20)")
    ap.add_argument("--shots", default="/tmp/analyst")
    args = ap.parse_args()
    shots = Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    def shot(page, name):
        page.screenshot(path=str(shots / f"{name}.png"), full_page=True)

    t_start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        tmp = Path(tmp)
        if args.upload:
            upload = Path(args.upload).resolve()
        else:
            from bench_workbench_pages import make_upload

            upload = make_upload(tmp / "upload", n_documents=args.documents, n_cp1252=args.documents // 20)
        home = tmp / "home"
        with streamlit_server(home, tmp / "app.log") as url:
            browser, page = open_page(pw, width=1400, height=1100, timeout=300_000, downloads=True)

            print(f"1. upload {upload.name}")
            uploader = upload_form(page, url)
            uploader.set_input_files(str(upload))
            page.get_by_text(re.compile(r"^split: (?!a column)")).wait_for(timeout=600_000)
            page.wait_for_function(SCRIPT_DONE, polling=50, timeout=600_000)
            _idle(page)
            shot(page, "a01_corpus")
            body = page.locator('[data-testid="stMain"]').inner_text()
            check(all(w in body for w in ("documents", "training", "test")), "the corpus summary is shown")

            print("2. Features: 100 terms per class, every class")
            _nav(page, "Features")
            page.get_by_label("Terms per class", exact=True).fill("100")
            page.get_by_label("Most frequent", exact=True).fill(str(args.classes))
            page.get_by_role("button", name="Apply").click()
            page.wait_for_timeout(300)
            page.wait_for_function(SCRIPT_DONE, polling=50, timeout=600_000)
            _idle(page)
            features_before = read_widgets(page, FEATURES_WIDGETS)
            shot(page, "a02_features_100_terms")
            check(features_before["Terms per class"] == "100", f"Features holds {features_before}")

            print("3. the Quick demo preset leaves the form alone")
            _nav(page, "Training")
            _choose_only(page, "Classifiers", "HBN-DEP")
            chooser = page.locator('[data-testid="stMultiSelect"]', has_text="Classifiers")
            chooser.click()
            page.get_by_role("option", name="NB", exact=True).click()
            page.keyboard.press("Escape")
            choose(page, "Parameter fit", "EM (the thesis)")
            field = page.get_by_label("EM restarts (thesis: 64)")
            field.fill("8")
            field.press("Tab")
            _idle(page)
            training_before = read_widgets(page, TRAINING_WIDGETS)
            page.get_by_role("button", name="Quick demo").click()
            page.get_by_text(re.compile(r"Submitted job #1 \(Quick demo\)|Job #1 finished")).wait_for()
            rec = wait_job(home, 1, timeout=900)
            check(rec.state == "done", f"the preset's job #1 ended {rec.state} {rec.error or ''}".rstrip())
            page.wait_for_timeout(2500)
            _idle(page)
            training_after = read_widgets(page, TRAINING_WIDGETS)
            shot(page, "a03_training_after_preset")
            check(training_after == training_before, f"Training before the preset {training_before}, "
                                                     f"after {training_after}")
            cfg = rec.spec.params["config"]
            check(cfg["corpus"] == "upload" and cfg["n_features"] == 30,
                  f"the preset ran its own settings on the upload ({cfg['corpus']}, {cfg['n_features']} terms)")

            # the form as it stands (its choices are the form's until Train submits them: a page left
            # before that shows the settings again, as any unsent web form would)
            print("4. Train what the form shows: NB and HBN-DEP, 100 terms, EM")
            t0 = time.monotonic()
            page.get_by_role("button", name="Train", exact=True).click()
            page.get_by_text(re.compile(r"Submitted training job #2|Job #2 finished")).wait_for()
            _nav(page, "Features")
            features_after = read_widgets(page, FEATURES_WIDGETS)
            check(features_after == features_before, f"Features after the preset and Train {features_after}")
            rec = wait_job(home, 2, timeout=1800)
            check(rec.state == "done", f"job #2 ended {rec.state} in {time.monotonic() - t0:.0f} s "
                                       f"{rec.error or ''}".rstrip())
            cfg = rec.spec.params["config"]
            check(cfg["n_features"] == 100 and sorted(rec.spec.params["classifiers"]) == ["HBN-DEP", "NB"]
                  and cfg.get("objective") == "joint",
                  f"job #2 ran {rec.spec.params['classifiers']} on {cfg['n_features']} terms, "
                  f"objective {cfg.get('objective', 'auto')}")
            page.wait_for_timeout(2500)
            _idle(page)
            shot(page, "a04_training_done")

            print("5. Explain a document the model is certain of")
            found = certain_document(home, 2, "HBN-DEP")
            check(found is not None, "job #2's HBN-DEP gives some document a probability of exactly 0 or 1")
            _nav(page, "Explain")
            if found is not None:
                label, doc_id, p = found
                choose(page, "Model", f"{label} · HBN-DEP")
                page.get_by_role("textbox", name="Find a document by id or text").fill(doc_id)
                page.keyboard.press("Enter")
                page.wait_for_timeout(500)
                _idle(page)
                page.wait_for_timeout(1500)
                _idle(page)
                shot(page, "a05_explain_certain")
                body = page.locator('[data-testid="stMain"]').inner_text()
                shown = page.get_by_role("combobox", name="Document", exact=True).input_value()
                check(shown == doc_id and "The model is certain" in body,
                      f"Explain shows {shown} of {label} (P = {p:g}) and says the model is certain")
                bad = [w for w in re.findall(r"[^\s]*\b(?:nan|inf)\b[^\s]*", body, flags=re.I)
                       if w.lower() not in ("information", "infinite")]
                check(not bad, f"no nan or inf on the page {bad[:5]}")

            print("6. Compare")
            _nav(page, "Compare")
            page.wait_for_timeout(2000)
            _idle(page)
            shot(page, "a06_compare")
            body = page.locator('[data-testid="stMain"]').inner_text()
            check("accuracy" in body.lower(), "Compare shows accuracy")

            print("7. Export as Python, run in a fresh process")
            _nav(page, "Export")
            _idle(page)
            shot(page, "a07_export")
            with page.expect_download() as dl:
                page.get_by_role("button", name="What I just did, as Python").click()
            script = tmp / "job.py"
            dl.value.save_as(str(script))
            env = {**os.environ, "HBNLAB_DATA_HOME": str(tmp / "fresh-home")}
            done = subprocess.run([sys.executable, str(script), str(upload)], capture_output=True, text=True,
                                  env=env, cwd=tmp, timeout=SCRIPT_DEADLINE)
            check(done.returncode == 0, f"the script ran (exit {done.returncode})"
                  + (f": {done.stderr[-500:]}" if done.returncode else ""))
            from hbnlab.app import job_outputs
            from hbnlab.export.report import markdown_table

            os.environ["HBNLAB_DATA_HOME"] = str(home)
            expected = markdown_table(job_outputs.breakeven_table(2))
            check(done.stdout.strip() == expected, "the script printed job #2's own breakeven table")
            print(done.stdout.strip())
            browser.close()
    print(f"walk-through {time.monotonic() - t_start:.0f} s; screenshots in {shots}; "
          f"{'all checks passed' if not FAILED else f'{len(FAILED)} check(s) failed'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
