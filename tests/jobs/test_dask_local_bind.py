"""The LocalCluster a DaskRunner starts without a scheduler address (``hbnlab sweep --dask``)
listens on the loopback interface only: scheduler, workers, nannies and dashboard (issue 30, item 9)."""
from __future__ import annotations

import json

import pytest
from jobs_helpers import run_python

PROBE = """
import json, sys
from hbnlab.jobs import DaskRunner

r = DaskRunner(sys.argv[1], n_workers=1, threads_per_worker=1)
try:
    s = r._cluster.scheduler
    out = {
        "scheduler": s.address,
        "dashboard": [list(sock.getsockname()[:2]) for sock in s.http_server._sockets.values()],
        "workers": [w.worker_address for w in r._cluster.workers.values()],
        "nannies": [w.address for w in r._cluster.workers.values()],
        "link": r._cluster.dashboard_link,
    }
finally:
    r.shutdown(wait=False, interrupt=True)
print("PROBE " + json.dumps(out))
"""


@pytest.mark.timeout(150)
def test_local_cluster_listens_on_loopback_only(tmp_path, monkeypatch):
    monkeypatch.delenv("HBNLAB_DASK_SCHEDULER", raising=False)
    proc = run_python(PROBE, tmp_path / "runs", timeout=120)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE ")), None)
    assert proc.returncode == 0 and line, proc.stderr[-3000:]
    got = json.loads(line[len("PROBE "):])
    assert got["scheduler"].startswith("tcp://127.0.0.1:"), got
    assert got["dashboard"] and all(host == "127.0.0.1" for host, _ in got["dashboard"]), got
    assert got["link"].startswith("http://127.0.0.1:"), got
    assert got["workers"] and all(a.startswith("tcp://127.0.0.1:") for a in got["workers"]), got
    assert all(a.startswith("tcp://127.0.0.1:") for a in got["nannies"]), got
