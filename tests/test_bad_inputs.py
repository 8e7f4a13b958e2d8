"""Every bad input gets its exact outcome, and after each the stored data is intact."""

from __future__ import annotations

import asyncio

import pytest

import badinput
from helpers import run
from readingroom import BadInput, Library, NewDocument

SEED = [NewDocument("seed-tea.txt", text="Green tea is steamed; black tea is oxidised."),
        NewDocument("seed-coffee.md", text="# Coffee\n\nEspresso is brewed under pressure.")]


@pytest.fixture
def seeded(library):
    run(library.add(SEED))
    return library


def snapshot(lib: Library):
    store = lib.index.store
    return (lib.index.integrity(), lib.index.counts(),
            store.query("SELECT count(*) FROM chunks_vec")[0][0],
            store.query("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'tea'")[0][0])


@pytest.mark.parametrize("case", badinput.DOCUMENTS, ids=lambda c: c[0])
def test_bad_documents(seeded, case):
    case_id, kwargs, status, error_type, message = case
    kwargs = dict(kwargs)
    if kwargs.get("data", "") is None:
        kwargs["data"] = badinput.pdf_case_data(case_id)
    before = snapshot(seeded)
    [outcome] = run(seeded.add([NewDocument(**kwargs)]))
    assert outcome.status == status, outcome
    after = snapshot(seeded)
    assert after[0] == "ok"
    if status == "error":
        assert outcome.error["type"] == error_type
        if message:
            assert message in outcome.error["message"]
        assert after == before  # nothing of the bad document was stored
    else:
        assert after[1] == (before[1][0] + 1, before[1][1] + outcome.chunks)


def test_added_odd_texts_are_searchable(seeded):
    docs = {c[0]: NewDocument(**c[1]) for c in badinput.DOCUMENTS if c[2] == "added"}
    run(seeded.add(list(docs.values())))
    assert run(seeded.retrieve("المكتبات", {"mode": "lexical"})).results[0].doc_name == "rtl.txt"
    assert run(seeded.retrieve("balloons", {"mode": "lexical"})).results[0].doc_name == "emoji.md"
    xss = run(seeded.retrieve("Title Body", {"mode": "lexical"})).results[0]
    assert xss.doc_name == "xss.html" and "alert(2)" not in xss.text and "<img" not in xss.text


@pytest.mark.parametrize("case", badinput.QUERIES, ids=lambda c: c[0])
def test_bad_queries(seeded, case):
    case_id, text, reason = case
    before = snapshot(seeded)
    r = run(seeded.retrieve(text))
    assert r.reason == reason
    if reason is None and case_id in ("100kb", "control-chars", "unbalanced-quote", "near", "minus", "caret", "parens", "close-paren", "braces"):
        assert r.results and r.results[0].doc_name == "seed-tea.txt"
    if case_id == "100kb":
        assert r.stats["query_truncated"] is True
    assert snapshot(seeded) == before


@pytest.mark.parametrize("options, message", badinput.BAD_OPTIONS, ids=lambda o: str(o)[:40])
def test_bad_options_are_typed_errors(seeded, options, message):
    with pytest.raises(BadInput, match=message.replace("(", r"\(")):
        run(seeded.retrieve("tea", options))


def test_ten_thousand_headings(seeded):
    """A document of 10,000 headings is stored as 10,000 chunks and found by its words while
    its vectors are still coming; a first pass of embedding moves on without losing any. (All
    10,000 embedded natively took eight minutes of CI, on the path the ingest tests cover.)"""
    from readingroom.ingest.add import add_words

    text = "".join(f"{'#' * (1 + i % 6)} Heading {i}\nline {i}\n" for i in range(10_000))
    [o] = add_words(seeded.index, [NewDocument("headings.md", text=text)], seeded.chunking)
    assert o.status == "added" and o.chunks == 10_000
    hits = run(seeded.retrieve("Heading 4242", {"mode": "lexical", "k": 3})).results
    assert any("line 4242" in s.text for s in hits)
    assert seeded.index.pending_documents() == [(o.doc_id, "headings.md", 10_000, 0)]
    run(seeded.embed_pending(max_batches=2))
    [(_, _, chunks, embedded)] = seeded.index.pending_documents()
    assert chunks == 10_000 and 0 < embedded < 10_000
    assert seeded.index.integrity() == "ok"


def test_same_file_twice_at_once(seeded):
    doc = NewDocument("twice.txt", text="Oolong tea sits between green and black.")

    async def both():
        return await asyncio.gather(seeded.add([doc]), seeded.add([doc]))

    a, b = run(both())
    assert sorted([a[0].status, b[0].status]) in (["added", "unchanged"], ["added", "replaced"])
    assert seeded.index.counts() == (3, 3) and seeded.index.integrity() == "ok"
    out = run(seeded.add([doc, doc]))
    assert [o.status for o in out] == ["unchanged", "unchanged"]


def test_document_deleted_while_being_indexed(seeded, embedder):
    """The delete lands between two embedding batches: the add still ends consistent."""
    long_doc = NewDocument("long.txt", text=" ".join(f"Sentence {i} about tea harvests." for i in range(2000)))
    run(seeded.add([long_doc]))
    doc_id = seeded.index.find("long.txt")[0]
    changed = NewDocument("long.txt", text=long_doc.text + " A new final sentence.")

    class Slow:
        model_id, dim, max_tokens = embedder.model_id, embedder.dim, embedder.max_tokens
        calls = 0

        async def embed(self, texts):
            Slow.calls += 1
            if Slow.calls == 2:
                assert seeded.delete(doc_id)  # the user deletes it mid-way
            await asyncio.sleep(0)
            return await embedder.embed(texts)

        async def count_tokens(self, texts):
            return await embedder.count_tokens(texts)

    [o] = run(Library(seeded.index, Slow()).add([changed]))
    assert o.status in ("added", "replaced")
    store = seeded.index.store
    assert seeded.index.integrity() == "ok"
    assert store.query("SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)")[0][0] == 0
    assert store.query("SELECT count(*) FROM chunks_vec")[0][0] == seeded.index.counts()[1]


def test_text_handed_over_with_surrogate_halves_is_stored_as_whole_characters(library):
    from helpers import run
    from readingroom import NewDocument

    [out] = run(library.add([NewDocument("chat.txt", text="The keeper wrote \ud83d\ude00 and then \ud83d alone.")]))
    assert out.status == "added", out.error
    [hit] = run(library.retrieve("keeper wrote", {"mode": "lexical"})).results
    assert "wrote \U0001F600 and then \ufffd alone" in hit.text


def test_mending_a_documents_characters_leaves_the_readers_document_as_it_was():
    """``whole`` hands back a mended copy: a reader's document (which a caller may still hold,
    e.g. to report what it read) keeps its own sections."""
    from readingroom.extract.document import Document, Section, whole

    doc = Document("txt", [Section(("A",), "half \ud83d alone"), Section(("B",), "fine")])
    mended = whole(doc)
    assert [s.text for s in mended.sections] == ["half \ufffd alone", "fine"]
    assert doc.sections[0].text == "half \ud83d alone" and mended is not doc
    assert mended.sections[1] is doc.sections[1]
    clean = Document("txt", [Section((), "nothing to mend")])
    assert whole(clean) is clean
