"""The pure decisions of words first, meaning after (pending.py): coverage shares, the
sentence a person reads, and stored rows turned back into the model's exact input."""

from __future__ import annotations

import json

from readingroom.ingest import pending
from readingroom.ingest.chunking import embedding_text
from readingroom.records import Chunk


def test_the_share_is_never_rounded_to_done_or_to_nothing():
    assert pending.Coverage(1, "a", 10, 4).percent == 40
    assert pending.Coverage(1, "a", 1000, 999).percent == 99
    assert pending.Coverage(1, "a", 1000, 1).percent == 1
    assert pending.Coverage(1, "a", 10, 0).percent == 0
    assert pending.Coverage(1, "a", 10, 10).percent == 100


def test_only_documents_with_something_pending_are_named():
    docs = pending.coverage([(1, "/home/me/report.pdf", 10, 4), (2, "done.md", 3, 3)])
    assert [d.name for d in docs] == ["/home/me/report.pdf"]
    msg = pending.message(docs)
    assert msg.startswith("Meaning search covers 40 % of report.pdf so far;")
    assert "by its words" in msg and "reload" in msg
    assert pending.message([]) is None and pending.describe([]) is None
    d = pending.describe(docs)
    assert d["pending_chunks"] == 6 and d["documents"][0]["percent"] == 40 and d["message"] == msg


def test_many_documents_are_counted_after_the_first_three():
    docs = pending.coverage([(i, f"d{i}.txt", 4, 1) for i in range(5)])
    msg = pending.message(docs)
    assert "25 % of d0.txt, 25 % of d1.txt, 25 % of d2.txt and part of 2 more documents" in msg
    one_more = pending.message(docs[:4])
    assert "and part of 1 more document so far" in one_more


def test_a_note_for_an_added_document_says_what_is_left():
    note = pending.outcome_note(pending.Coverage(3, "C:\\docs\\big.pdf", 100, 36))
    assert note.startswith("big.pdf is searchable by its words; meaning search covers 36 % of it")
    assert "64 passages still to embed" in note
    assert "1 passage still" in pending.outcome_note(pending.Coverage(3, "x", 2, 1))


def test_stored_rows_become_the_same_input_ingest_embeds():
    chunks = [Chunk(0, "Intro text.", 0, 11, ("Guide", "Start")), Chunk(1, "Plain.", 12, 18)]
    rows = [(7, 2, "guide.md", 0, chunks[0].text, json.dumps(list(chunks[0].heading_path))),
            (8, 2, "guide.md", 1, chunks[1].text, "[]"),
            (9, 5, "other.md", 0, "Other.", "[]")]
    b = pending.batch(rows)
    assert b.ids == (7, 8, 9) and b.last == 9
    assert b.texts[:2] == tuple(embedding_text(c) for c in chunks)
    assert b.per_doc == ((2, "guide.md", 2), (5, "other.md", 1))
