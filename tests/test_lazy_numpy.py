"""numpy imported where it is first used (readingroom._lazy_numpy), as the page's worker does.

Each case runs in a fresh interpreter: this one has numpy imported already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "py_src"


def _run(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_worker_and_the_engine_import_without_numpy_and_numpy_works_on_first_use(tmp_path):
    got = _run(f"""
import json, sys
from readingroom import _lazy_numpy
put = _lazy_numpy.install()
import readingroom.worker, readingroom.library, readingroom.answer.ask, readingroom.search.retrieve
before = _lazy_numpy.loaded()
from readingroom.search import vectors
import numpy as np
rows = np.array([[3.0, 4.0], [0.0, 2.0]], dtype=np.float32)
normed = vectors._normalised(rows)
import numpy.linalg
print(json.dumps({{"put": put, "before": before, "after": _lazy_numpy.loaded(),
                  "real": type(sys.modules["numpy"]).__name__, "first": [round(float(x), 3) for x in normed[0]],
                  "random": int(np.random.default_rng(1).integers(10, 11)),
                  "same_ndarray": np.ndarray is sys.modules["numpy"].ndarray}}))
""")
    assert got["put"] is True
    assert got["before"] is False  # importing the engine read nothing of numpy
    assert got["after"] is True
    assert got["real"] == "module"  # the real numpy took its name back
    assert got["first"] == [0.6, 0.8]
    assert got["random"] == 10  # a submodule numpy makes only when asked, through the stand-in
    assert got["same_ndarray"] is True


def test_a_library_opened_and_searched_behind_the_stand_in_answers_as_without_it(tmp_path):
    """Natively the embedder needs numpy at once; a lexical search through the whole engine
    still goes through the stand-in's first use and gives the same hits."""
    code = """
import asyncio, json, sys
LAZY = {lazy}
if LAZY:
    from readingroom import _lazy_numpy
    _lazy_numpy.install()
from readingroom.library import Library
from readingroom.ingest.add import NewDocument
from readingroom.search.options import Options
from tests_fake_embedder import FakeEmbedder
lib = Library.open({path!r}, embedder=FakeEmbedder())
async def go():
    await lib.add([NewDocument(name="a.md", text="Cats purr when content. Dogs bark at strangers.")])
    r = await lib.retrieve("why do cats purr", Options(mode="lexical"))
    return [h.chunk_id for h in r.evidence]
hits = asyncio.run(go())
print(json.dumps({{"hits": hits, "numpy_imported": "numpy._core" in sys.modules}}))
"""
    fake = tmp_path / "tests_fake_embedder.py"
    fake.write_text("""
import numpy as np
class FakeEmbedder:
    model_id = "fake"
    dim = 8
    async def embed(self, texts):
        out = np.zeros((len(texts), 8), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, hash(t) % 8] = 1.0
        return out
""")
    results = []
    for lazy in (True, False):
        env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{tmp_path}"}
        src = code.format(lazy=lazy, path=str(tmp_path / f"lib-{lazy}.sqlite"))
        out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    assert results[0]["hits"] == results[1]["hits"] and results[0]["hits"]
    assert results[0]["numpy_imported"]  # the stand-in's first use imported numpy


def test_install_leaves_an_imported_numpy_alone():
    got = _run("""
import json, numpy
from readingroom import _lazy_numpy
print(json.dumps({"put": _lazy_numpy.install(), "loaded": _lazy_numpy.loaded()}))
""")
    assert got == {"put": False, "loaded": True}
