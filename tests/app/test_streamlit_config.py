"""The shipped ``.streamlit/config.toml``: the workbench listens on 127.0.0.1 only, sends no usage
statistics and shows a minimal toolbar; every key is an option of the pinned Streamlit."""
from pathlib import Path

import tomllib
from streamlit import config as st_config

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_config_listens_on_this_machine_only():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert cfg["server"]["address"] == "127.0.0.1"
    assert cfg["browser"]["gatherUsageStats"] is False
    assert cfg["client"]["toolbarMode"] == "minimal"
    known = st_config.get_config_options()
    for section, options in cfg.items():
        for key in options:
            assert f"{section}.{key}" in known, f"{section}.{key} is not a Streamlit option"
