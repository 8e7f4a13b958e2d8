"""Indexes made by the CLI open in the browser and answer exactly as the CLI does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from driver import BrowserDriver
from helpers import ROOT

QUERIES = ["how do I catch an exception", "what does yield do in a function", "E4711 fan", "sourdough"]


def cli(*args, cwd, model_dir):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py_src"), "READINGROOM_MODEL_DIR": str(model_dir)}
    p = subprocess.run([sys.executable, "-m", "readingroom", *args], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_a_cli_built_index_gives_the_same_top5_in_the_browser(page, tmp_path, model_dir):
    import build

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "errors.md").write_text("# Exceptions\n\nUse try and except to catch an exception; "
                                     "finally always runs.\n\n## Fans\n\nError E4711 means the fan stalled.")
    (notes / "generators.txt").write_text("A function that contains yield is a generator: each "
                                          "yield hands a value back and pauses the function.")
    (notes / "bread.txt").write_text("Sourdough bread rises slowly with wild yeast.")
    cli("index", str(notes), cwd=tmp_path, model_dir=model_dir)
    exported = tmp_path / "export.sqlite"
    cli("export", str(exported), cwd=tmp_path, model_dir=model_dir)
    served = build.DIST / f"test-index-{os.getpid()}.sqlite"
    shutil.copyfile(exported, served)
    try:
        status = page.evaluate("(u) => window.readingroom.importIndex(u)", served.name)
    finally:
        served.unlink()
    assert (status["documents"], status["mismatch"]) == (3, None)
    browser = BrowserDriver(page)
    for q in QUERIES:
        native = json.loads(cli("search", q, "--json", "--k", "5", cwd=tmp_path, model_dir=model_dir))
        ours = browser.query(q, {"k": 5})
        top = lambda r: [(s["doc_name"], s["chunk_ids"]) for s in r["results"][:5]]  # noqa: E731
        assert top(ours) == top(native), q
