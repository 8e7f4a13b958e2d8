"""The benchmark command end to end on a tiny BEIR fixture (natively; the browser half is in
tests/browser/test_bench_browser.py)."""

import json
import os
import subprocess
import sys

import beir_fixture
from helpers import ROOT


def test_quality_command_on_a_tiny_beir_folder(tmp_path, model_dir):
    data = beir_fixture.write(tmp_path / "beir")
    out = tmp_path / "q.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py_src"), "READINGROOM_MODEL_DIR": str(model_dir),
           "READINGROOM_BENCH_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "readingroom.bench", "quality", "--native", "--data", str(data),
                           "--split", "test", "--json", str(out), "--report", str(tmp_path / "report")],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    native = res["quality"]["native"]
    assert set(native) >= {"lexical", "vector", "hybrid"}
    for m in ("lexical", "vector", "hybrid"):
        assert set(native[m]) >= {"ndcg@10", "recall@10", "recall@100", "mrr@10"}
        assert native[m]["queries"] == 4
    # Every query has one clearly right document among six unrelated ones.
    assert native["hybrid"]["recall@10"] == 1.0 and native["hybrid"]["ndcg@10"] > 0.9
    assert res["machine"]["cpus"] >= 1 and "load_average_at_start" in res["machine"]
    assert (tmp_path / "report" / "report.md").read_text().startswith("# Reading Room benchmark")
