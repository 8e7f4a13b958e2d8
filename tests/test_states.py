"""Every state of a library answers cleanly: a stateful property test over a real ``Library``.

Hypothesis drives random sequences of what a person (or the page) does to a library: add,
replace, re-add unchanged, delete one or all, re-index (also after the stored provenance
was made to look like another model's or chunker's), merge a bundled set (a new version
replacing the old), export and import, and every read (retrieve in all three modes with
random options, ask with a history, similar, neighbours, status). The documents are tiny and odd: one word,
whitespace only, duplicates of each other, unicode, a 10,000-heading Markdown file, PDF
pages, HTML, binary text, files with no usable name or type.

A plain model of the library (which names are stored, from which version of which
document, as the user's or as bundled, and whether the library was made by another model)
predicts every add outcome and what ``documents()`` lists. After every step the stored
database is checked: ``PRAGMA integrity_check`` and FTS5's own integrity check pass, each
chunk has exactly one FTS row and one vector and nothing else does, nothing is orphaned,
``status()`` counts what the tables hold, reads name only stored documents and cross to the
page as JSON, and an empty library answers every read with reason ``no_documents``.

Real parts: SQLite + sqlite-vec through apsw, files on disk, and the real MiniLM embedder.
The embedder is wrapped in ``RememberingEmbedder``, which asks the real model once per
distinct text and hands back that same vector after: the 10,000-heading file alone is
10,000 chunks, and embedding them every time it is added would cost a minute. Every vector
still comes from the real model.

CI runs a small, derandomised budget (the same sequences every run, no example database,
so a run can never fail at random). To hunt for bugs, run it with a larger random budget::

    READINGROOM_STATES_EXAMPLES=500 READINGROOM_STATES_STEPS=40 python3 -m pytest -q tests/test_states.py
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition, rule,
                                 run_state_machine_as_test)

from helpers import OtherModel, run
from readingroom import Library, NewDocument
from readingroom.answer.ask import ASK_RETRIEVAL
from readingroom.errors import EmbedderError, ReadingRoomError

EXAMPLES = int(os.environ.get("READINGROOM_STATES_EXAMPLES", "0"))
STEPS = int(os.environ.get("READINGROOM_STATES_STEPS", "0"))
NO_DOCUMENTS = "no_documents"
EMBED_SMALL = 2  # passages per batch in ``add_half_embedded``, so a small document is half-embedded
# Libraries live in memory-backed files where there are some: the same SQLite file I/O, without
# waiting for a shared disk's fsync hundreds of times per example.
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


# -- documents ---------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class Doc:
    """One version of one document, and the error kind adding it must give (None: it goes in)."""

    name: str
    version: int
    text: str | None = None
    pages: tuple[str, ...] | None = None
    meta_json: str = "{}"
    error: str | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.name, self.version)

    def __repr__(self) -> str:  # short: falsifying examples print it
        return f"BY_KEY[{self.name!r}, {self.version}]"

    def new(self) -> NewDocument:
        return NewDocument(self.name, text=self.text, pages=self.pages, meta=json.loads(self.meta_json))


def ten_thousand_sections() -> str:
    """10,000 headings, each with a line under it: 10,000 chunks. Titles repeat with a short
    period, so the chunks' texts (and embeddings) repeat too: duplicates by the thousand."""
    return "".join(f"{'#' * (1 + i % 3)} Part {i % 5}\n\nSee the part above.\n\n" for i in range(10_000))


def ten_thousand_bare_headings() -> str:
    """10,000 headings and nothing else: every section is bare, so they fold into one."""
    return "".join(f"{'#' * (1 + i % 6)} Heading {i % 7}\n" for i in range(10_000))


TEA = "# Tea\n\nGreen tea is steamed; black tea is oxidised."
LONG = "\n\n".join(f"Paragraph {i} about kettles. " + f"The kettle number {i} is descaled monthly. " * 25
                   for i in range(4))

DOCS: list[Doc] = [
    Doc("one.txt", 0, text="sourdough"),
    Doc("one.txt", 1, text="Rye"),
    Doc("space.txt", 0, text=" \n\t  \u00a0\n", error="empty_document"),
    Doc("space.txt", 1, text="Now it has words about glaciers."),
    Doc("dup-a.md", 0, text=TEA),
    Doc("dup-a.md", 1, text="# Coffee\n\nEspresso is brewed under pressure."),
    Doc("dup-b.md", 0, text=TEA),
    Doc("ünï 日本.md", 0, text="# Ünïcödé\n\n日本語のテキスト。Ελληνικά. עברית 🙂 café naïve e\u0301 \u200b"),
    Doc("ünï 日本.md", 1, text="ﬁ ligature, Ⅻ numerals, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and \U0001f9ea."),
    Doc("headings.md", 0, text=ten_thousand_sections()),
    Doc("headings.md", 1, text=ten_thousand_bare_headings()),
    Doc("pages.pdf", 0, pages=("First page about kettles.", "", "Third page: descaling with citric acid.")),
    Doc("pages.pdf", 1, pages=("", "  \n"), error="empty_document"),
    Doc("page.html", 0, text="<h1>Title</h1><p>Hello <b>world</b> &amp; friends</p><script>alert(1)</script>"),
    Doc("page.html", 1, text="<script>only a script</script><style>p{}</style>", error="empty_document"),
    Doc("tagged.txt", 0, text="Tomatoes need sun.", meta_json='{"tags": ["garden", "x"], "author": "Ada", '
                                                              '"date": "2024-01-02"}'),
    Doc("tagged.txt", 1, text="Tomatoes need sun.", meta_json='{"tags": ["garden"], "author": "Bob"}'),
    Doc("binary.txt", 0, text="abc\x00def", error="not_text"),
    Doc(" ", 0, text="a document without a name", error="bad_input"),
    Doc("virus.exe", 0, text="MZ", error="unsupported"),
    Doc("long.txt", 0, text=LONG),
    Doc("long.txt", 1, text="Short now."),
    Doc("tea.txt", 0, text="Green tea is steamed."),
    Doc("tea.txt", 1, text="Oolong tea is partly oxidised."),
    Doc("cocoa.txt", 0, text="Cocoa beans are fermented, dried and roasted."),
]
BY_KEY = {d.key: d for d in DOCS}

# Bundled sets: versions of a shipped index, and one with nothing in it (a --no-demo site).
BUNDLES = {
    "v1": [BY_KEY["dup-a.md", 0], BY_KEY["tea.txt", 0], BY_KEY["tagged.txt", 0]],
    "v2": [BY_KEY["tea.txt", 1], BY_KEY["cocoa.txt", 0], BY_KEY["one.txt", 0]],
    "v3-empty": [],
}
OTHER_MODEL_DOCS = [BY_KEY["one.txt", 0], BY_KEY["long.txt", 0]]

QUERIES = ["sourdough", "tea", "kettle descaling", "Part 3", "日本語", "café", "   ", "\x00", "NEAR(",
           '"unbalanced', "OR", "*", "glaciers and heading 4", "the", "x" * 3000, "🙂"]


# -- the real embedder, remembered -------------------------------------------------------------

class RememberingEmbedder:
    """The real embedder, asked once per distinct text (see the module docstring for why)."""

    def __init__(self, real):
        self.real = real
        self.model_id, self.dim, self.max_tokens = real.model_id, real.dim, real.max_tokens
        self.memory: dict[str, np.ndarray] = {}

    async def embed(self, texts):
        missing = [t for t in dict.fromkeys(texts) if t not in self.memory]
        if missing:
            self.memory.update(zip(missing, await self.real.embed(missing)))
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.stack([self.memory[t] for t in texts])

    async def count_tokens(self, texts):
        return await self.real.count_tokens(texts)


@dataclass
class Shared:
    """What every example reuses: the embedder and index files built once per session."""

    embedder: RememberingEmbedder
    bundles: dict[str, Path]
    other_model: Path


def _build(path: Path, embedder, docs: list[Doc]) -> Path:
    lib = Library.open(path, embedder=embedder)
    outcomes = run(lib.add([d.new() for d in docs]))
    assert all(o.status == "added" for o in outcomes), outcomes
    lib.close()
    return path


@pytest.fixture(scope="module")
def shared(embedder, tmp_path_factory) -> Shared:
    remembering = RememberingEmbedder(embedder)
    root = tmp_path_factory.mktemp("states")
    bundles = {v: _build(root / f"bundle-{v}.sqlite", remembering, docs) for v, docs in BUNDLES.items()}
    other = _build(root / "other-model.sqlite", OtherModel(dim=8), OTHER_MODEL_DOCS)
    return Shared(remembering, bundles, other)


# -- the model ---------------------------------------------------------------------------------

@dataclass
class Model:
    """What the library should hold. ``docs``: name -> (document key, "user" | "bundle").
    ``mismatch``: how the stored provenance differs from the app's: "model" (another model
    id), "dim" (vectors of another dimension), "chunker" (another chunker version)."""

    docs: dict[str, tuple[tuple[str, int], str]] = field(default_factory=dict)
    mismatch: frozenset[str] = frozenset()
    bundle_version: str | None = None

    def copy(self) -> "Model":
        return Model(dict(self.docs), self.mismatch, self.bundle_version)


@dataclass
class Snapshot:
    path: Path
    model: Model


def options_strategy():
    """Retrieval options, most of them valid, some deliberately not (those must be BadInput)."""
    filters = st.fixed_dictionaries({}, optional={
        "doc_names": st.lists(st.sampled_from(sorted({d.name for d in DOCS}) + ["missing.md"]), max_size=3),
        "doc_types": st.lists(st.sampled_from(["md", "txt", "pdf", "html", "exe"]), max_size=2),
        "source_types": st.lists(st.sampled_from(["bundle", "user"]), max_size=1),
        "tags": st.lists(st.sampled_from(["garden", "x", "nope"]), max_size=2),
        "metadata": st.dictionaries(st.sampled_from(["author", "date"]), st.sampled_from(["Ada", "Bob", 1, None]),
                                    max_size=2),
        "date_from": st.sampled_from(["2000-01-01", "2024-01-02", "2030"]),
        "date_to": st.sampled_from(["2024-01-01", "2024-12-31"]),
        "doc_ids": st.lists(st.integers(-2, 40), max_size=3),
    })
    boost = st.fixed_dictionaries({
        "field": st.sampled_from(["section", "doc_name", "doc_type", "author", "heading", "page"]),
        "values": st.lists(st.sampled_from(["Tea", "tea.txt", "md", "Ada", "Part 1", 1]), min_size=1, max_size=2),
        "factor": st.sampled_from([0.5, 1.0, 2.0, 1e-6, 1e6]),
    })
    return st.fixed_dictionaries({}, optional={
        "k": st.integers(1, 30),
        "mode": st.sampled_from(["hybrid", "vector", "lexical"]),
        "candidates": st.sampled_from([1, 2, 5, 50, 100, 4096]),
        "fusion": st.sampled_from(["rrf", "linear"]),
        "rrf_k": st.integers(0, 100),
        "normalisation": st.sampled_from(["minmax", "zscore", "sigmoid", "none"]),
        "weights": st.tuples(st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.sampled_from([0.0, 1.0, 2.0])).map(list),
        "floor": st.sampled_from([-1.0, 0.0, 0.25, 0.9, 1.0]),
        "filters": filters,
        "boosts": st.lists(boost, max_size=2),
        "cap_key": st.sampled_from([None, "doc", "section", "author", "doc_type"]),
        "cap_per_key": st.integers(1, 4),
        "mmr_lambda": st.sampled_from([None, 0.0, 0.5, 1.0]),
        "budget": st.sampled_from([1, 30, 200, 1200, 100_000]),
        "reserve": st.sampled_from([0, 10, 500, 2000]),
        "documents": st.integers(1, 30),
    })


BAD_OPTIONS = [{"k": 0}, {"mode": "semantic"}, {"candidates": 5000}, {"fusion": "max"},
               {"normalisation": "l2"}, {"mmr_lambda": 2}, {"budget": -5}, {"nonsense": 1},
               {"filters": {"colour": ["red"]}}, {"boosts": [{"field": "doc", "values": [1], "factor": 0}]},
               {"weights": [1]}, {"filters": "doc"}, {"filters": {"doc_ids": ["x"]}},
               {"filters": {"doc_ids": [2**63]}}]


def adopt_if_empty(model: Model) -> None:
    """A library with nothing in it has no vectors to mix: whoever made it, it becomes this app's
    as soon as something is written to it."""
    if not model.docs:
        model.mismatch = frozenset()


def predict_add(model: Model, doc: Doc) -> str:
    """What adding ``doc`` must come back as (an error kind, or added / replaced / unchanged),
    updating ``model`` to what the library then holds. A document the user adds is the user's,
    even when the same text was there already as a bundled one (a later bundle version must not
    take it away)."""
    adopt_if_empty(model)
    error = "model_mismatch" if model.mismatch else doc.error
    if error:
        return error
    before = model.docs.get(doc.name)
    model.docs[doc.name] = (doc.key, "user")
    if before is not None and before[0] == doc.key:
        return "unchanged"
    return "added" if before is None else "replaced"


def predict_merge(model: Model, version: str) -> tuple[int, list[str]]:
    """A bundled set merged as ``version``: the previous bundled documents go, the new ones come
    in unless the user has a document of that name. Returns (replaced, skipped)."""
    adopt_if_empty(model)
    old = [n for n, (_, src) in model.docs.items() if src == "bundle"]
    for n in old:
        del model.docs[n]
    skipped = sorted(d.name for d in BUNDLES[version] if d.name in model.docs)
    for d in BUNDLES[version]:
        if d.name not in skipped:
            model.docs[d.name] = (d.key, "bundle")
    model.bundle_version = version
    return len(old), skipped


def _dump(value) -> str:
    """What the worker does with every reply: JSON without NaN or infinity."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def check_database(q) -> tuple[int, int]:
    """The stored database is whole; ``q(statement, params)`` runs SQL on it (with sqlite-vec
    loaded). Returns its (documents, chunks)."""
    assert q("PRAGMA integrity_check", ()) == [("ok",)]
    # FTS5 checks its index against the chunks table (its external content) itself.
    q("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)", ())
    chunks = {int(r[0]) for r in q("SELECT id FROM chunks", ())}
    fts = {int(r[0]) for r in q("SELECT id FROM chunks_fts_docsize", ())}
    vecs = {int(r[0]) for r in q("SELECT rowid FROM chunks_vec", ())}
    # Words first, meaning after: every chunk has its vector or is marked pending, never both,
    # and no vector is without its chunk.
    pending = {int(r[0]) for r in q("SELECT id FROM chunks WHERE embedded = 0", ())}
    assert fts == chunks and vecs == chunks - pending and pending <= chunks, \
        (len(chunks), len(fts), len(vecs), len(pending))
    assert not q("SELECT 1 FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)", ())
    assert not q("SELECT 1 FROM doc_tags WHERE doc_id NOT IN (SELECT id FROM documents)", ())
    assert not q("SELECT 1 FROM documents WHERE id NOT IN (SELECT doc_id FROM chunks)", ())
    return int(q("SELECT count(*) FROM documents", ())[0][0]), len(chunks)


# -- the machine -------------------------------------------------------------------------------

class LibraryStates(RuleBasedStateMachine):
    def __init__(self, shared: Shared):
        super().__init__()
        self.shared = shared
        self.embedder = shared.embedder
        self.dir = Path(tempfile.mkdtemp(prefix="states-", dir=SCRATCH))
        self.path = self.dir / "index.sqlite"
        self.lib = Library.open(self.path, embedder=self.embedder)
        self.model = Model()
        self.snapshots: list[Snapshot] = []

    def teardown(self):
        self.lib.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- helpers -------------------------------------------------------------------------------
    def q(self, statement: str, params=()) -> list[tuple]:
        return self.lib.index.store.query(statement, params)

    def stored(self) -> dict[int, tuple[str, set[int]]]:
        """doc id -> (name, its chunk ids), straight from the tables."""
        docs = {int(i): (n, set()) for i, n in self.q("SELECT id, name FROM documents")}
        for cid, doc_id in self.q("SELECT id, doc_id FROM chunks"):
            docs[int(doc_id)][1].add(int(cid))
        return docs

    def chunk_ids(self) -> list[int]:
        return [int(r[0]) for r in self.q("SELECT id FROM chunks ORDER BY id")]

    def pending_ids(self) -> set[int]:
        return {int(r[0]) for r in self.q("SELECT id FROM chunks WHERE NOT embedded")}

    def reopen(self) -> None:
        self.lib.close()
        self.lib = Library.open(self.path, embedder=self.embedder)

    def attempt(self, fn, *args, allowed: tuple[str, ...] = ()):
        """``fn(*args)``; a ``ReadingRoomError`` is returned (it must be of an allowed kind and
        carry a sentence), any other exception fails the test."""
        try:
            return fn(*args), None
        except ReadingRoomError as e:
            assert e.kind in allowed, f"unexpected {e.kind}: {e}"
            assert str(e).strip(), "an error without a message"
            _dump(e.to_dict())
            return None, e

    # -- writes --------------------------------------------------------------------------------
    @initialize(docs=st.lists(st.sampled_from(DOCS), max_size=4))
    def start_with(self, docs):
        """Most sequences start from a library with something in it; some from an empty one."""
        if docs:
            self.add(docs)

    @rule(doc=st.sampled_from(DOCS))
    def add_one(self, doc):
        self.add([doc])

    @rule(docs=st.lists(st.sampled_from(DOCS), min_size=1, max_size=3))
    def add(self, docs):
        outcomes = run(self.lib.add([d.new() for d in docs]))
        assert [o.name for o in outcomes] == [d.name for d in docs]
        for d, o in zip(docs, outcomes):
            _dump(o.to_dict())
            before = self.model.docs.get(d.name)
            want = predict_add(self.model, d)
            if o.status == "error":
                assert o.error["type"] == want and o.error["message"], (d, before, o)
            else:
                assert o.status == want, (d, before, o)
                assert o.chunks >= 1 and o.doc_id is not None

    @rule(docs=st.lists(st.sampled_from(DOCS), min_size=1, max_size=3), batches=st.integers(0, 2))
    def add_half_embedded(self, docs, batches):
        """An add whose embedder dies after ``batches`` batches of EMBED_SMALL passages (as a
        killed embedding worker would): every document is stored by its words, the rest of
        its passages stay pending, and reads say what the vector leg covers."""
        from readingroom.ingest import add as ingest

        full = self.embedder
        calls = []

        class Dying:
            model_id, dim, max_tokens = full.model_id, full.dim, full.max_tokens

            async def embed(self, texts):
                calls.append(len(texts))
                if len(calls) > batches:
                    raise EmbedderError("The embedding model stopped; it is restarted on the next pass.")
                return await full.embed(texts)

            async def count_tokens(self, texts):
                return await full.count_tokens(texts)

        before = dict(self.q("SELECT c.id, d.name FROM chunks c JOIN documents d ON d.id = c.doc_id "
                             "WHERE NOT c.embedded"))
        words = ingest.add_words(self.lib.index, [d.new() for d in docs], self.lib.chunking)
        passed = run(ingest.embed_pending(self.lib.index, Dying(), size=EMBED_SMALL))
        for d, o in zip(docs, words):
            want = predict_add(self.model, d)
            assert (o.error["type"] if o.status == "error" else o.status) == want, (d, o)
        if self.model.mismatch:
            assert passed.embedded == 0  # another model's library: re-indexing embeds it all
        else:
            assert passed.embedded <= batches * EMBED_SMALL
            # Nothing pending was lost: a pending chunk that is gone was replaced by this add.
            gone = set(before) - set(self.chunk_ids())
            assert {before[c] for c in gone} <= {d.name for d in docs}

    @rule()
    def reload_resumes_pending(self):
        """Reopened (a reload, a new CLI run), the library finishes its pending passages in one
        pass: each gets one vector, nothing else changes."""
        self.reopen()
        pending = self.pending_ids()
        chunks = self.chunk_ids()
        passed = run(self.lib.embed_pending())
        if self.model.mismatch:
            assert passed.embedded == 0 and self.pending_ids() == pending
            return
        # One vector each (the database invariants check that each chunk has exactly one).
        assert passed.embedded == len(pending) and self.pending_ids() == set() and self.chunk_ids() == chunks

    @precondition(lambda self: self.model.docs)
    @rule(data=st.data())
    def replace_with_other_version(self, data):
        name = data.draw(st.sampled_from(sorted(self.model.docs)))
        others = [d for d in DOCS if d.name == name and d.key != self.model.docs[name][0]]
        if others:
            self.add([data.draw(st.sampled_from(others))])

    @precondition(lambda self: self.model.docs)
    @rule(data=st.data())
    def readd_unchanged(self, data):
        name = data.draw(st.sampled_from(sorted(self.model.docs)))
        self.add([BY_KEY[self.model.docs[name][0]]])

    @precondition(lambda self: self.model.docs)
    @rule(data=st.data())
    def delete_one(self, data):
        docs = self.lib.documents()
        doc = data.draw(st.sampled_from(docs))
        deleted, _ = self.attempt(self.lib.delete, doc.id)
        assert deleted is True
        del self.model.docs[doc.name]
        again, _ = self.attempt(self.lib.delete, doc.id)
        assert again is False

    @rule(doc_id=st.integers(-3, 10**6))
    def delete_unknown(self, doc_id):
        if doc_id in self.stored():
            return
        deleted, _ = self.attempt(self.lib.delete, doc_id)
        assert deleted is False

    @rule()
    def delete_all(self):
        for doc in self.lib.documents():
            assert self.lib.delete(doc.id) is True
        self.model.docs.clear()

    @rule()
    def reindex(self):
        """Re-embeds everything; an index chunked differently cannot be (its source text is not
        stored) unless it is empty."""
        adopt_if_empty(self.model)
        allowed = ("bad_input",) if "chunker" in self.model.mismatch else ()
        done, err = self.attempt(lambda: run(self.lib.reindex()), allowed=allowed)
        if err is not None:
            assert "add the files again" in str(err)
            return
        assert "chunker" not in self.model.mismatch
        _dump(done.to_dict())
        docs, chunks = self.lib.index.counts()
        assert (done.documents, done.chunks) == (docs, chunks)
        if chunks == 0:
            assert getattr(done, "reason", NO_DOCUMENTS) == NO_DOCUMENTS
        self.model.mismatch = frozenset()

    @rule(kind=st.sampled_from(["model", "chunker"]))
    def pretend_another_model_made_it(self, kind):
        """The stored provenance says another model (same dimension) or another chunker made it,
        as an index imported from elsewhere would."""
        key, value = {"model": ("model_id", "someone/else-v2"), "chunker": ("chunker_version", "0")}[kind]
        self.q("UPDATE meta SET value = ? WHERE key = ?", (value, key))
        self.reopen()
        self.model.mismatch |= {kind}
        assert self.lib.status()["mismatch"]

    @rule(version=st.sampled_from(sorted(BUNDLES)))
    def merge_bundle(self, version):
        expected = self.model.copy()
        adopt_if_empty(expected)
        # Vectors of another dimension cannot sit beside the bundle's: refused, with what to do.
        allowed = ("model_mismatch",) if "dim" in expected.mismatch else ()
        merged, err = self.attempt(self.lib.merge_bundle_file, self.shared.bundles[version], version,
                                   allowed=allowed)
        if allowed:
            assert err is not None and "re-index" in str(err)
            return  # refused: the library must be as it was (the invariants compare with the model)
        _dump(merged.to_dict())
        replaced, skipped = predict_merge(self.model, version)
        assert (merged.replaced, merged.skipped) == (replaced, skipped)
        assert merged.documents == len(BUNDLES[version]) - len(skipped)

    @rule()
    def export(self):
        out = self.dir / f"export-{len(self.snapshots)}.sqlite"
        self.q("VACUUM INTO ?", (str(out),))  # as `readingroom export` does
        self.snapshots.append(Snapshot(out, self.model.copy()))

    def _import(self, source: Path, model: Model) -> None:
        """As `readingroom import --force` does: a copy, moved into place, then opened."""
        self.lib.close()
        tmp = self.path.with_suffix(".importing")
        shutil.copyfile(source, tmp)
        tmp.replace(self.path)
        self.lib = Library.open(self.path, embedder=self.embedder)
        self.model = model.copy()

    @precondition(lambda self: self.snapshots)
    @rule(data=st.data())
    def import_export(self, data):
        snap = data.draw(st.sampled_from(self.snapshots))
        self._import(snap.path, snap.model)

    @rule()
    def import_another_models_index(self):
        self._import(self.shared.other_model,
                     Model({d.name: (d.key, "user") for d in OTHER_MODEL_DOCS}, mismatch=frozenset({"model", "dim"})))

    # -- reads ---------------------------------------------------------------------------------
    @rule(query=st.sampled_from(QUERIES), options=options_strategy())
    def retrieve(self, query, options):
        r, err = self.attempt(lambda: run(self.lib.retrieve(query, options)), allowed=("bad_input",))
        assert err is None, f"valid options refused: {options}: {err}"
        self.check_result(r, query, options)

    @rule(query=st.sampled_from(QUERIES), bad=st.sampled_from(BAD_OPTIONS))
    def retrieve_with_bad_options(self, query, bad):
        r, err = self.attempt(lambda: run(self.lib.retrieve(query, bad)), allowed=("bad_input",))
        assert r is None and err is not None, f"{bad} was accepted"

    @precondition(lambda self: self.model.docs)
    @rule(data=st.data(), mode=st.sampled_from(["lexical", "hybrid"]))
    def retrieve_a_stored_word(self, data, mode):
        """A word of a stored chunk, searched for by words, finds that chunk's document."""
        rows = self.q("SELECT c.text, d.name FROM chunks c JOIN documents d ON d.id = c.doc_id "
                      "ORDER BY c.id LIMIT 200")
        text, name = data.draw(st.sampled_from(rows))
        from readingroom.search.fts import terms

        words = terms(text)
        if not words:
            return
        word = data.draw(st.sampled_from(words))
        options = {"mode": mode, "candidates": 4096, "k": 30, "cap_key": None}
        r = run(self.lib.retrieve(word, options))
        self.check_result(r, word, options)
        assert any(h.doc_name for h in r.evidence), (word, name)

    def check_result(self, r, query: str, options: dict) -> None:
        d = r.to_dict()
        _dump(d)
        stored = self.stored()
        names = {i: n for i, (n, _) in stored.items()}
        chunks = {c: i for i, (_, cs) in stored.items() for c in cs}
        if not " ".join(query.split()):
            assert r.reason == "empty_query" and r.results == []
            return
        if not chunks:
            assert r.reason == NO_DOCUMENTS, r.reason
            assert r.results == [] and r.documents == [] and r.evidence == [] and d["context"] == ""
            return
        mode = options.get("mode", "hybrid")
        if mode != "lexical" and self.pending_ids():
            assert d["stats"]["meaning"]["pending_chunks"] == len(self.pending_ids())
        else:
            assert "meaning" not in d["stats"]
        want_reason = "model_mismatch" if self.model.mismatch and mode != "lexical" else None
        assert r.reason == want_reason, (r.reason, self.model.mismatch, mode)
        for s in r.results:
            assert names.get(s.doc_id) == s.doc_name
            assert all(chunks.get(c) == s.doc_id for c in s.chunk_ids)
        for doc in r.documents:
            assert names.get(doc.doc_id) == doc.name and chunks.get(doc.chunk_id) == doc.doc_id
        for h in r.evidence:
            assert names.get(h.doc_id) == h.doc_name and chunks.get(h.chunk_id) == h.doc_id
            assert h.dropped in (None, "floor", "cap", "duplicate", "rank", "budget")
            if mode == "lexical":
                assert h.vector_rank is None
            if mode == "vector":
                assert h.lexical_rank is None
        k = options.get("k", 8)
        chosen = [c for s in r.results for c in s.chunk_ids]
        assert len(chosen) == len(set(chosen)) and len(chosen) <= k
        if options.get("cap_key", "doc") == "doc":
            per_doc: dict[int, int] = {}
            for s in r.results:
                per_doc[s.doc_id] = per_doc.get(s.doc_id, 0) + len(s.chunk_ids)
            assert all(n <= options.get("cap_per_key", 3) for n in per_doc.values()), per_doc
        wanted = (options.get("filters") or {}).get("doc_names")
        if wanted:
            assert {s.doc_name for s in r.results} <= set(wanted)
        assert all(math.isfinite(s.score) for s in r.results)

    @rule(question=st.sampled_from(QUERIES), options=options_strategy(),
          history=st.lists(st.sampled_from(["tea?", "", {"question": "and kettles?", "answer": "Monthly [1]."},
                                            {"question": "x", "answer": None, "standalone_query": "cocoa"}]),
                           max_size=2))
    def ask(self, question, history, options):
        a, err = self.attempt(lambda: run(self.lib.ask(question, history, options)), allowed=("bad_input",))
        assert err is None, f"valid options refused: {options}: {err}"
        d = a.to_dict()
        _dump(d)
        if not " ".join(question.split()):
            assert a.reason == "empty_query" and not a.quick and a.message
            return
        # ask searches with its own defaults (k 10, four per document) where options are silent
        self.check_result(a.retrieval, a.standalone_query, {**ASK_RETRIEVAL, **options})
        if not self.chunk_ids():
            assert a.reason == NO_DOCUMENTS and a.message and not a.quick and not a.covered
        if not a.covered:
            assert not a.quick and a.reason and a.message
        stored = self.stored()
        for q in d["quick"]:
            assert stored[q["doc_id"]][0] == q["doc_name"] and q["chunk_id"] in stored[q["doc_id"]][1]
            assert q["text"].strip() and q["start"] <= q["end"]

    @rule(data=st.data(), k=st.integers(-2, 20))
    def similar(self, data, k):
        ids = self.chunk_ids()
        cid = data.draw(st.sampled_from(ids) if ids else st.integers(-1, 5))
        hits, _ = self.attempt(self.lib.similar, cid, k)
        self.check_hits(hits, cid)
        assert cid not in [h.chunk_id for h in hits] and len(hits) <= max(0, k)

    @rule(data=st.data(), before=st.sampled_from([-2, 0, 1, 3, 2**63]), after=st.sampled_from([-1, 0, 2, 10**30]))
    def neighbours(self, data, before, after):
        ids = self.chunk_ids()
        cid = data.draw(st.sampled_from(ids) if ids else st.integers(-1, 5))
        hits, _ = self.attempt(self.lib.neighbours, cid, before, after)
        self.check_hits(hits, cid)
        if cid in ids:
            assert cid in [h.chunk_id for h in hits]
            assert len({h.doc_id for h in hits}) == 1
            idx = [h.chunk_index for h in hits]
            assert idx == sorted(idx) and len(hits) <= 1 + max(0, before) + max(0, after)
            stored_idx = [int(r[0]) for r in self.q("SELECT idx FROM chunks WHERE doc_id = ? ORDER BY idx",
                                                    (hits[0].doc_id,))]
            assert idx == stored_idx[max(0, stored_idx.index(hits[[h.chunk_id for h in hits].index(cid)]
                                                                 .chunk_index) - max(0, before)):][:len(idx)]

    @rule(cid=st.sampled_from([-1, 0, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30]))
    def reads_of_an_unknown_chunk(self, cid):
        for read in (self.lib.similar, self.lib.neighbours):
            hits, _ = self.attempt(read, cid)
            self.check_hits(hits, cid)
            assert list(hits) == []

    def check_hits(self, hits, cid) -> None:
        stored = self.stored()
        _dump([h.to_dict() for h in hits])
        for h in hits:
            assert stored[h.doc_id][0] == h.doc_name and h.chunk_id in stored[h.doc_id][1]
        if not any(cs for _, cs in stored.values()):
            assert list(hits) == [] and getattr(hits, "reason", NO_DOCUMENTS) == NO_DOCUMENTS

    # -- invariants ------------------------------------------------------------------------------
    @invariant()
    def database_is_whole(self):
        check_database(self.q)
        assert not self.q("SELECT 1 FROM meta WHERE key = 'unfinished'")

    @invariant()
    def documents_are_what_the_model_says(self):
        docs = self.lib.documents()
        assert {d.name: d.chunks >= 1 for d in docs} == {n: True for n in self.model.docs}
        sources = dict(self.q("SELECT name, coalesce(source_type, 'user') FROM documents"))
        assert sources == {n: src for n, (_, src) in self.model.docs.items()}

    @invariant()
    def status_counts_the_tables(self):
        s = self.lib.status()
        _dump(s)
        docs = self.lib.documents()
        table_docs, table_chunks = (int(v) for v in self.q(
            "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)")[0])
        assert (s["documents"], s["chunks"]) == (len(docs), sum(d.chunks for d in docs)) \
            == (table_docs, table_chunks)
        assert bool(s["mismatch"]) == bool(self.model.mismatch)
        assert s["bundle_version"] == self.model.bundle_version
        assert s["unfinished"] == []
        if table_chunks == 0:
            assert s.get("reason", NO_DOCUMENTS) == NO_DOCUMENTS
        pending = self.pending_ids()
        if pending:
            cover = s["pending"]
            assert cover["pending_chunks"] == len(pending) and cover["message"].startswith("Meaning search covers")
            assert {d["name"] for d in cover["documents"]} == {
                r[0] for r in self.q("SELECT DISTINCT d.name FROM chunks c JOIN documents d ON d.id = c.doc_id "
                                     "WHERE NOT c.embedded")}
        else:
            assert s["pending"] is None
        if not self.model.mismatch and self.lib.index.sql.IN_MEMORY_VECTORS:
            m = self.lib.index.vector_matrix()
            assert m is not None and sorted(m.ids.tolist()) == sorted(set(self.chunk_ids()) - pending)


# -- the test ------------------------------------------------------------------------------------

def machine_settings() -> settings:
    common = dict(deadline=None, suppress_health_check=list(HealthCheck))
    if EXAMPLES:  # a bug hunt: fresh random sequences every run
        return settings(max_examples=EXAMPLES, stateful_step_count=STEPS or 40, derandomize=False, **common)
    # CI: the same sequences every run and no example database, so it never fails at random.
    return settings(max_examples=12, stateful_step_count=STEPS or 25, derandomize=True, database=None,
                    **common)


def test_every_sequence_of_operations_leaves_a_whole_library_that_answers(shared):
    run_state_machine_as_test(lambda: LibraryStates(shared), settings=machine_settings())


def test_the_heaviest_documents_in_one_fixed_sequence(shared):
    """The sequences above are drawn, and a small CI budget may never draw the 10,000-heading
    file or the PDF pages; this fixed one always does, through the same rules and invariants."""
    m = LibraryStates(shared)
    steps = [
        lambda: m.add([BY_KEY[k] for k in [("headings.md", 0), ("pages.pdf", 0), ("dup-a.md", 0),
                                           ("dup-b.md", 0), ("pages.pdf", 1)]]),
        lambda: m.retrieve("Part 3", {"k": 30, "cap_key": None, "candidates": 4096}),
        lambda: m.add_half_embedded([BY_KEY["long.txt", 0], BY_KEY["tea.txt", 0]], 1),
        lambda: m.retrieve("kettle descaling", {"mode": "hybrid"}),
        lambda: m.pending_ids() or pytest.fail("the half-embedded add left nothing pending"),
        m.reload_resumes_pending,
        lambda: m.retrieve("see the part above", {"mode": "vector", "mmr_lambda": 0.5}),
        lambda: m.retrieve("kettles", {"mode": "lexical", "filters": {"doc_types": ["pdf"]}}),
        lambda: m.ask("Part 3", ["tea?"], {}),
        lambda: m.reads_of_an_unknown_chunk(2**63),
        m.export,
        lambda: m.add([BY_KEY["headings.md", 1]]),  # 10,000 chunks replaced by the folded headings
        lambda: m.retrieve("Heading 4", {"fusion": "linear", "normalisation": "sigmoid"}),
        lambda: m.pretend_another_model_made_it("model"),
        lambda: m.merge_bundle("v1"),
        m.reindex,
        lambda: m._import(m.snapshots[0].path, m.snapshots[0].model),
        lambda: m.retrieve("Part 3", {}),
        m.delete_all,
        lambda: m.retrieve("Part 3", {}),
        lambda: m.ask("Part 3", [], {}),
    ]
    try:
        for step in steps:
            step()
            m.database_is_whole()
            m.documents_are_what_the_model_says()
            m.status_counts_the_tables()
    finally:
        m.teardown()
