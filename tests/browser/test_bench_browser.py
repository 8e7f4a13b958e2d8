"""The benchmark command's browser half, end to end on a tiny BEIR fixture: the corpus is
embedded in the browser, queried through the real app, and must score as natively."""

import json
import os
import subprocess
import sys

import beir_fixture
from helpers import ROOT


def test_quality_native_and_browser_agree_on_a_tiny_fixture(site, tmp_path, model_dir):
    data = beir_fixture.write(tmp_path / "beir")
    out = tmp_path / "q.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py_src"), "READINGROOM_MODEL_DIR": str(model_dir),
           "READINGROOM_BENCH_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "readingroom.bench", "quality", "--data", str(data),
                           "--split", "test", "--embed-in-browser", "--no-build", "--json", str(out),
                           "--report", str(tmp_path / "report")],
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    q = json.loads(out.read_text())["quality"]
    assert q["differences"] == []
    assert q["browser"]["index"]["embedded_in_browser"] is True
    for m in ("lexical", "vector", "hybrid"):
        assert q["browser"][m]["queries"] == 4
    assert q["browser"]["hybrid"]["recall@10"] == 1.0
