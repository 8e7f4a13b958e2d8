"""A tiny BEIR-format folder, written by the tests (never a checked-in binary)."""

import json
from pathlib import Path

DOCS = {
    "d1": ("BRCA1 and breast cancer", "Germline BRCA1 mutations raise the lifetime risk of breast and ovarian cancer."),
    "d2": ("Sourdough fermentation", "Lactic acid bacteria and wild yeast leaven sourdough bread over many hours."),
    "d3": ("Statins and cholesterol", "Statins lower LDL cholesterol by inhibiting HMG-CoA reductase in the liver."),
    "d4": ("Malaria vectors", "Anopheles mosquitoes transmit Plasmodium parasites that cause malaria."),
    "d5": ("Deep sea vents", "Hydrothermal vents support chemosynthetic communities without sunlight."),
    "d6": ("Vitamin D and bones", "Vitamin D increases calcium absorption and supports bone mineral density."),
}
QUERIES = {
    "q1": "inherited gene defects that increase tumour risk in women",
    "q2": "HMG-CoA reductase inhibitors lower LDL",
    "q3": "which insect spreads Plasmodium",
    "q4": "bread rising with wild yeast",
}
QRELS = {"q1": "d1", "q2": "d3", "q3": "d4", "q4": "d2"}


def write(folder: Path, split: str = "test") -> Path:
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w") as f:
        for i, (t, x) in DOCS.items():
            f.write(json.dumps({"_id": i, "title": t, "text": x}) + "\n")
    with open(folder / "queries.jsonl", "w") as f:
        for i, q in QUERIES.items():
            f.write(json.dumps({"_id": i, "text": q}) + "\n")
    with open(folder / "qrels" / f"{split}.tsv", "w") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for q, d in QRELS.items():
            f.write(f"{q}\t{d}\t1\n")
    return folder


def run_bench(tmp_path, model_dir, command: str, *flags: str, timeout: int = 900):
    """``python -m readingroom.bench COMMAND`` on this fixture, as a user runs it, with its
    cache and report kept in ``tmp_path``; returns (the finished process, the JSON written)."""
    import json
    import os
    import subprocess
    import sys

    from helpers import ROOT

    data = write(tmp_path / "beir")
    out = tmp_path / f"{command}.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py_src"), "READINGROOM_MODEL_DIR": str(model_dir),
           "READINGROOM_BENCH_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "readingroom.bench", command, "--data", str(data),
                           "--split", "test", *flags, "--json", str(out), "--report", str(tmp_path / "report")],
                          env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, json.loads(out.read_text())
