"""The workbench's favicon is a file it ships, sent inline: a ":material/..." page icon makes the
browser fetch the glyph from a font server, which an offline classroom does not reach."""
from __future__ import annotations

import base64

import streamlit as st
from app_testutil import no_exceptions
from conftest import ROOT
from streamlit.commands.page_config import _get_favicon_string


def test_the_favicon_is_a_shipped_file_sent_as_a_data_url(app, monkeypatch):
    calls = []
    real = st.set_page_config
    monkeypatch.setattr(st, "set_page_config", lambda **kw: calls.append(kw) or real(**kw))
    app.run()
    no_exceptions(app)
    (kw,) = calls
    icon = kw["page_icon"]
    assert isinstance(icon, str) and not icon.startswith(":"), icon
    path = ROOT / "assets" / "hbnlab-icon.svg"
    assert icon == str(path) and path.is_file()
    url = _get_favicon_string(icon)   # what Streamlit sends the browser
    assert url.startswith("data:image/svg+xml;base64,"), url[:60]
    svg = base64.b64decode(url.split(",", 1)[1]).decode("utf-8")
    assert svg.lstrip().startswith("<svg") and "http://" not in svg.replace("http://www.w3.org/2000/svg", "")
