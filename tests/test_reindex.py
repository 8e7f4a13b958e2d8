"""Re-indexing after a model change, a chunk's context, and documents that did not finish."""


from helpers import OtherModel, run
from readingroom import Library, NewDocument
from readingroom.errors import EmbedderError

NOTES = [NewDocument("bread.txt", text="How to bake sourdough bread with a crisp crust: flour, water, salt."),
         NewDocument("fan.txt", text="The device reports error code E4711 when the fan stalls.")]


def _made_by_other_model(path):
    lib = Library.open(path, embedder=OtherModel(dim=8))
    run(lib.add(NOTES))
    lib.close()


def test_reindex_fixes_a_model_mismatch(tmp_path, embedder):
    path = tmp_path / "idx.sqlite"
    _made_by_other_model(path)
    lib = Library.open(path, embedder=embedder)
    assert lib.status()["mismatch"]
    assert run(lib.retrieve("breadmaking")).reason == "model_mismatch"
    events = []
    done = run(lib.reindex(progress=events.append))
    assert (done.documents, done.chunks) == (2, 2)
    assert {e["name"] for e in events if e["event"] == "document"} == {"bread.txt", "fan.txt"}
    assert lib.status()["mismatch"] is None and lib.status()["model"]["dim"] == embedder.dim
    r = run(lib.retrieve("how do I make a loaf", {"mode": "vector"}))
    assert r.reason is None and r.results[0].doc_name == "bread.txt"
    lib.close()
    again = Library.open(path, embedder=embedder)  # the new provenance was stored
    assert again.status()["mismatch"] is None and again.index.integrity() == "ok"
    again.close()


def test_a_reindex_that_fails_midway_leaves_the_old_index(tmp_path, embedder):
    path = tmp_path / "idx.sqlite"
    _made_by_other_model(path)

    class DiesOnSecond:
        model_id, dim, max_tokens = embedder.model_id, embedder.dim, embedder.max_tokens
        calls = 0

        async def embed(self, texts):
            self.calls += 1
            if self.calls > 1:
                raise EmbedderError("the embedding worker died")
            return await embedder.embed(texts)

        async def count_tokens(self, texts):
            return [1] * len(texts)

    lib = Library.open(path, embedder=DiesOnSecond())
    try:
        run(lib.reindex())
    except EmbedderError:
        pass
    else:
        raise AssertionError("the reindex should have failed")
    assert lib.status()["mismatch"] and lib.index.counts() == (2, 2)
    assert run(lib.retrieve("E4711")).results[0].doc_name == "fan.txt"  # words still work
    assert lib.index.integrity() == "ok"


def test_neighbours_give_a_chunk_its_context(library):
    text = "\n\n".join(f"Paragraph {i}. " + ("Words about topic %d. " % i) * 40 for i in range(6))
    run(library.add([NewDocument("long.txt", text=text)]))
    ids = [r[0] for r in library.index.store.query("SELECT id FROM chunks ORDER BY idx")]
    assert len(ids) >= 4
    around = library.neighbours(ids[2], before=1, after=1)
    assert [h.chunk_id for h in around] == ids[1:4]
    assert [h.chunk_id for h in library.neighbours(ids[0], 2, 0)] == ids[:1]
    assert library.neighbours(10**9) == []


_KILLED_MIDWAY = """
import asyncio, os, signal, sys
sys.path.insert(0, {src!r})
from readingroom import Library, NewDocument
from readingroom._compat._not_in_pyodide import NativeEmbedder
from readingroom.model_files import DIM, MAX_TOKENS, MODEL_ID

class DiesOnB(NativeEmbedder):
    async def embed(self, texts):
        if any("beta" in t for t in texts):
            os.kill(os.getpid(), signal.SIGKILL)  # no finally, no atexit: a closed tab
        return await super().embed(texts)

# One text per embedding batch: with the default, the three short documents share one batch
# and the kill would come before any of them is stored (tests/test_ingest_batches.py covers that).
import readingroom.ingest.add
readingroom.ingest.add.EMBED_BATCH = 1
lib = Library.open({path!r}, embedder=DiesOnB({model!r}, MODEL_ID, DIM, MAX_TOKENS))
asyncio.run(lib.add([NewDocument(n, text=t) for n, t in
                     [("a.md", "alpha text"), ("b.md", "beta text"), ("c.md", "gamma text")]]))
"""


def test_documents_whose_vectors_did_not_finish_are_named_after_a_kill_and_finished_next(tmp_path, embedder, model_dir):
    import subprocess
    import sys

    from helpers import ROOT

    path = tmp_path / "idx.sqlite"
    lib = Library.open(path, embedder=embedder)
    run(lib.add(NOTES[:1]))
    lib.close()
    script = _KILLED_MIDWAY.format(src=str(ROOT / "py_src"), path=str(path), model=str(model_dir))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == -9, proc.stderr
    after = Library.open(path, embedder=embedder)
    # Words first: all three were stored by their words before the first vector; the kill came
    # while b.md was embedded, so a.md has its vector and b.md and c.md are named as pending.
    assert after.status()["unfinished"] == []
    assert after.index.counts() == (4, 4) and after.index.integrity() == "ok"
    pending = after.status()["pending"]
    assert [d["name"] for d in pending["documents"]] == ["b.md", "c.md"] and pending["pending_chunks"] == 2
    assert run(after.retrieve("beta", {"mode": "lexical"})).results[0].doc_name == "b.md"
    outcomes = run(after.add([NewDocument("b.md", text="beta text"), NewDocument("c.md", text="gamma text")]))
    assert [(o.status, o.pending) for o in outcomes] == [("unchanged", 0), ("unchanged", 0)]
    assert after.status()["pending"] is None
    after.close()
    assert Library.open(path, embedder=embedder).status()["pending"] is None


def test_each_stored_document_updates_the_record_in_its_own_transaction(library):
    seen = []

    def watch(event):
        if event["event"] == "document":
            seen.append(library.index.store.query("SELECT value FROM meta WHERE key='unfinished'"))

    run(library.add([NewDocument("a.md", text="alpha text"), NewDocument("b.md", text="beta text"),
                     NewDocument("c.md", text="gamma text")], progress=watch))
    assert [s[0][0] if s else None for s in seen] == ['["b.md", "c.md"]', '["c.md"]', None]
    assert library.index.store.query("SELECT value FROM meta WHERE key='unfinished'") == []
