"""Fixed sequences of library operations replayed through the page's API, with the invariants
of tests/test_states.py that the page can see.

The native state machine explores random sequences; these few fixed ones go through the real
app instead (Pyodide, sqlite-wasm on OPFS, the transformers.js embedder, the workers' message
passing): add, replace, re-add unchanged, delete one and all, merge a bundled set and a newer
version of it, export the library's file and import it back, import another model's index,
re-index, query in all three modes, neighbours. After every step: ``status()`` counts what
``documents()`` lists, the names are the ones the model predicts, results name only stored
documents, an empty library answers with reason ``no_documents``, and the database file as
stored passes ``PRAGMA integrity_check`` and FTS5's own check, with one FTS row and one
vector per chunk (read with sqlite-vec loaded, natively).

The 10,000-heading file is left to the native test: the in-page embedder makes a few chunks a
second, and it is 10,000 chunks.
"""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path

import pytest

from helpers import OtherModel, run
from pages import exported_database, wait_for_api, wait_until
from readingroom import Library
from test_states import (BUNDLES, BY_KEY, OTHER_MODEL_DOCS, Model, check_database, predict_add,
                         predict_merge)

NO_DOCUMENTS = "no_documents"

SEQUENCES = {
    "empty-then-odd-documents": [
        ("read",),
        ("add", [("one.txt", 0), ("space.txt", 0), ("dup-a.md", 0), ("dup-b.md", 0), ("ünï 日本.md", 0)]),
        ("query", "green tea", {}),
        ("query", "sourdough", {"mode": "lexical"}),
        ("query", "日本語", {"mode": "vector", "k": 1}),
        ("add", [("dup-a.md", 0)]),
        ("add", [("dup-a.md", 1), ("ünï 日本.md", 1)]),
        ("delete", "dup-b.md"),
        ("delete_all",),
        ("read",),
        ("add", [("pages.pdf", 0), ("page.html", 0), ("binary.txt", 0), (" ", 0), ("virus.exe", 0),
                 ("pages.pdf", 1)]),
        ("query", "citric acid", {"mode": "vector", "k": 2, "cap_key": None}),
    ],
    "bundles-export-import": [
        ("bundle", "v1"),
        ("add", [("tea.txt", 1), ("tagged.txt", 1), ("long.txt", 0)]),
        ("query", "kettle", {"filters": {"source_types": ["bundle"]}}),
        ("bundle", "v2"),
        ("query", "oolong tea", {"mode": "hybrid", "fusion": "linear", "normalisation": "zscore"}),
        ("export_import",),
        ("bundle", "v3-empty"),
        ("delete_all",),
        ("read",),
        ("bundle", "v1"),
        ("query", "steamed", {"k": 3, "mmr_lambda": 0.5, "budget": 40}),
    ],
    # Words first, meaning after: the embedder dies as the add's one batch arrives, so every
    # document is stored by its words with all its passages pending; searches say what meaning
    # search covers; a reload embeds them (each once) and the notice goes.
    "half-embedded-then-reload": [
        ("add", [("tea.txt", 0)]),
        ("add_half_embedded", [("long.txt", 0), ("cocoa.txt", 0)]),
        ("query", "kettle descaled", {}),
        ("query", "fermented cocoa beans", {"mode": "lexical"}),
        ("reload",),
        ("query", "kettle descaled", {"mode": "vector"}),
        ("delete", "cocoa.txt"),
    ],
    "another-model-then-reindex": [
        ("add", [("long.txt", 0), ("tagged.txt", 0)]),
        ("import_other_model",),
        ("query", "kettle descaled", {}),
        ("query", "kettle descaled", {"mode": "lexical"}),
        ("add", [("one.txt", 1)]),
        ("reindex",),
        ("query", "kettle descaled", {"mode": "vector"}),
        ("add", [("one.txt", 1), ("long.txt", 1)]),
        ("delete_all",),
        ("reindex",),
        ("read",),
    ],
}


@pytest.fixture(scope="module")
def index_files(embedder, tmp_path_factory) -> dict[str, str]:
    """The bundled sets and another model's index as native builds them, base64 for the page."""
    root = tmp_path_factory.mktemp("states-browser")

    def build(name, docs, model):
        path = root / f"{name}.sqlite"
        lib = Library.open(path, embedder=model)
        outcomes = run(lib.add([BY_KEY[d.key].new() for d in docs]))
        assert all(o.status == "added" for o in outcomes), outcomes
        lib.close()
        return base64.b64encode(path.read_bytes()).decode()

    files = {version: build(f"bundle-{version}", docs, embedder) for version, docs in BUNDLES.items()}
    files["other-model"] = build("other-model", OTHER_MODEL_DOCS, OtherModel(dim=8))
    return files


IMPORT_B64 = """async ([b64, asBundle]) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return window.readingroom.importIndex(bytes, asBundle === null ? {} : {asBundle});
}"""


class Replay:
    def __init__(self, page, files):
        self.page, self.files, self.model = page, files, Model()
        self.pending = 0  # passages stored by their words only, as the page's status says

    def js(self, script, arg=None):
        return self.page.evaluate(script, arg)

    def step(self, op, *args):
        getattr(self, "op_" + op)(*args)
        self.check()

    # -- operations --------------------------------------------------------------------------
    def op_add(self, keys):
        docs = [BY_KEY[k] for k in keys]
        payload = [{"name": d.name, "text": d.text, "pages": list(d.pages) if d.pages else None,
                    "meta": d.new().meta} for d in docs]
        report = self.js("(d) => window.readingroom.addDocuments(d)", payload)
        for d, o in zip(docs, report["documents"], strict=True):
            want = predict_add(self.model, d)
            if o["status"] == "error":
                assert o["error"]["type"] == want and o["error"]["message"], (d, o)
            else:
                assert o["status"] == want and o["chunks"] >= 1, (d, o)

    def op_add_half_embedded(self, keys):
        """An add whose embedding worker ends itself as the batch arrives: the documents are
        stored by their words, their passages pending, and the page says what is covered."""
        assert self.js("() => window.readingroom.debug.killEmbedder({atBackgroundBatch: 1})") is True
        docs = [BY_KEY[k] for k in keys]
        payload = [{"name": d.name, "text": d.text, "meta": d.new().meta} for d in docs]
        report = self.js("(d) => window.readingroom.addDocuments(d)", payload)
        for d, o in zip(docs, report["documents"], strict=True):
            assert o["status"] == predict_add(self.model, d) == "added", (d, o)
            assert o["pending"] == o["chunks"] >= 1 and "meaning search covers 0 %" in o["notes"][-1], o
        pending = report["status"]["pending"]
        assert pending["pending_chunks"] == sum(o["chunks"] for o in report["documents"])
        self.pending = pending["pending_chunks"]
        banner = self.page.locator("#meaning-pending")
        banner.wait_for(state="visible", timeout=60_000)
        assert banner.inner_text().startswith("Meaning search covers 0 % of cocoa.txt and 0 % of long.txt so far")

    def op_reload(self):
        """A reload resumes the pending passages: before the model is up the page still names
        them; once it is, they are embedded (each once: check() counts the vectors)."""
        self.page.console_messages.append("--- reload ---")
        self.page.reload()
        wait_for_api(self.page)
        early = self.js("async () => { await window.readingroom.libraryReady; return window.readingroom.status(); }")
        assert (early["pending"] or {}).get("pending_chunks", 0) == self.pending
        self.js("async () => { await window.readingroom.ready; }")
        wait_until(self.page, "async () => (await window.readingroom.status()).pending === null", 300)
        self.pending = 0
        self.page.locator("#meaning-pending").wait_for(state="hidden", timeout=60_000)

    def op_delete(self, name):
        [doc] = [d for d in self.js("() => window.readingroom.documents()") if d["name"] == name]
        out = self.js("(id) => window.readingroom.deleteDocument(id)", doc["id"])
        assert out["deleted"] is True
        del self.model.docs[name]
        assert self.js("(id) => window.readingroom.deleteDocument(id)", doc["id"])["deleted"] is False

    def op_delete_all(self):
        for doc in self.js("() => window.readingroom.documents()"):
            assert self.js("(id) => window.readingroom.deleteDocument(id)", doc["id"])["deleted"] is True
        self.model.docs.clear()

    def op_bundle(self, version):
        status = self.js(IMPORT_B64, [self.files[version], version])
        assert "error" not in status, status
        predict_merge(self.model, version)
        assert status["bundle_version"] == version

    def op_export_import(self):
        """The library's file as stored, imported back in its place."""
        status = self.js("""async () => window.readingroom.importIndex(
            await window.readingroom.debug.exportDatabase())""")
        assert "error" not in status and status["documents"] == len(self.model.docs)

    def op_import_other_model(self):
        status = self.js(IMPORT_B64, [self.files["other-model"], None])
        assert status["mismatch"] and "other/model" in status["mismatch"]
        self.model = Model({d.name: (d.key, "user") for d in OTHER_MODEL_DOCS}, mismatch=frozenset({"dim"}))

    def op_reindex(self):
        out = self.js("() => window.readingroom.reindex()")
        assert "error" not in out, out
        assert out["status"]["mismatch"] is None
        assert (out["reindexed"]["documents"], out["reindexed"]["chunks"]) == \
            (out["status"]["documents"], out["status"]["chunks"])
        self.model.mismatch = frozenset()

    def op_query(self, text, options):
        r = self.js("([t, o]) => window.readingroom.query(t, o)", [text, options])
        if not self.model.docs:
            assert r["reason"] == NO_DOCUMENTS and r["results"] == [], r
            return
        mode = options.get("mode", "hybrid")
        if self.pending and mode != "lexical":
            assert r["stats"]["meaning"]["pending_chunks"] == self.pending
            assert r["stats"]["meaning"]["message"].startswith("Meaning search covers")
        else:
            assert "meaning" not in r["stats"]
        assert r["reason"] == ("model_mismatch" if self.model.mismatch and mode != "lexical" else None), r["reason"]
        stored = self.stored()
        for item in r["results"] + r["evidence"]:
            assert stored.get(item["doc_id"]) == item["doc_name"], item
        for doc in r["documents"]:
            assert stored.get(doc["doc_id"]) == doc["name"], doc
        if r["results"]:
            cid = r["results"][0]["chunk_ids"][0]
            around = self.js("(c) => window.readingroom.neighbours(c, 1, 1)", cid)
            ids = [c["chunk_id"] for c in around["chunks"]]
            assert cid in ids and {c["doc_id"] for c in around["chunks"]} == {r["results"][0]["doc_id"]}

    def op_read(self):
        """Every read the page offers, on a library that must be empty."""
        assert not self.model.docs
        for mode in ("hybrid", "vector", "lexical"):
            r = self.js("(m) => window.readingroom.query('anything at all', {mode: m})", mode)
            assert r["reason"] == NO_DOCUMENTS and r["results"] == [] and r["message"], r
        around = self.js("() => window.readingroom.neighbours(1, 1, 1)")
        assert around["chunks"] == [] and around.get("reason") == NO_DOCUMENTS, around
        assert self.js("() => window.readingroom.status()")["reason"] == NO_DOCUMENTS

    # -- invariants --------------------------------------------------------------------------
    def stored(self) -> dict[int, str]:
        return {d["id"]: d["name"] for d in self.js("() => window.readingroom.documents()")}

    def check(self):
        status = self.js("() => window.readingroom.status()")
        docs = self.js("() => window.readingroom.documents()")
        assert (status["documents"], status["chunks"]) == (len(docs), sum(d["chunks"] for d in docs))
        assert {d["name"] for d in docs} == set(self.model.docs)
        assert bool(status["mismatch"]) == bool(self.model.mismatch)
        assert (status["pending"] or {}).get("pending_chunks", 0) == self.pending
        if not docs:
            assert status["reason"] == NO_DOCUMENTS, status
        data = exported_database(self.page)
        from readingroom._compat._not_in_pyodide import NativeStore

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "library.sqlite"
            path.write_bytes(data)
            store = NativeStore(path)
            try:
                assert check_database(store.query) == (status["documents"], status["chunks"])
            finally:
                store.close()


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_a_fixed_sequence_of_operations_keeps_the_page_library_whole(page, index_files, name):
    replay = Replay(page, index_files)
    replay.check()
    for op, *args in SEQUENCES[name]:
        replay.step(op, *args)
