"""The quick answer: verbatim sentences of the top passages, placed in their documents, and
the "not in your documents" decision, on the bundled Python reference with the real model."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import run
from readingroom import answer as A, merge
from readingroom.records import Hit, Span


def _hit(cid: int, doc: str, start: int, end: int, index: int) -> Hit:
    return Hit(chunk_id=cid, doc_id=1, doc_name="d.txt", doc_type="txt", chunk_index=index,
               text=doc[start:end], start=start, end=end, text_hash=str(cid), token_count=1, score=1.0)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab .\n", min_size=20, max_size=120), st.data())
def test_span_offsets_map_back_to_the_document(doc, data):
    """Neighbouring chunks (overlapping, touching or with a gap) join into one span; every
    offset in the span's text that is not the inserted gap maps to the same character."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(doc)), min_size=2, max_size=8, unique=True)))
    hits = []
    for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
        back = data.draw(st.integers(0, 5))
        skip = data.draw(st.integers(0, 2))
        hits.append(_hit(i + 1, doc, max(0, a - back), min(len(doc), b + skip) if b + skip > a else b, i))
    [span] = merge.merge_adjacent(hits) if all(merge._joinable(x, y) for x, y in zip(hits, hits[1:])) else [None]
    if span is None:
        return
    pieces = merge.pieces(hits)
    assert merge.joined(hits) == span.text
    for at, ch in enumerate(span.text):
        where = merge.to_document(pieces, at)
        if where is not None:
            assert doc[where[0]] == ch
            h = next(x for x in hits if x.chunk_id == where[1])
            assert h.start <= where[0] < h.end
    for p in pieces:  # a sentence ending where a piece ends maps to that piece's end
        assert merge.to_document(pieces, p.at + p.end - p.start, end=True) == (p.end, p.chunk_id)


def _span(text: str, doc_id: int = 1, start: int = 0, cid: int = 1) -> Span:
    return Span(doc_id=doc_id, doc_name=f"doc{doc_id}.md", doc_type="md", chunk_ids=(cid,), text=text,
                start=start, end=start + len(text), score=1.0, chunk_index=0, page=None,
                heading_paths=((),), text_hash=str(cid), token_count=10)


def _pieces(span: Span) -> list[merge.Piece]:
    return [merge.Piece(0, span.start, span.end, span.chunk_ids[0])]


def test_candidates_are_prose_sentences_placed_in_the_document_and_shared_between_passages():
    spans = [_span("# Kettle\n\nThe kettle switches off when it boils. Descale it monthly with vinegar. "
                   "Short one.\n\n    kettle.on()\n    kettle.off()\n", start=100, cid=7),
             _span("Pump the tyres to four bar. Oil the chain every 300 km, please.", doc_id=2, cid=9)]
    cands = A.candidates("How do I descale with vinegar?", spans, [_pieces(s) for s in spans],
                         max_sentences=3)
    texts = [c.text for c in cands]
    assert texts == ["Descale it monthly with vinegar.", "Pump the tyres to four bar.",
                     "The kettle switches off when it boils."]  # best by words first, taking turns
    c = cands[0]
    assert (c.n, c.doc_id, c.chunk_id) == (1, 1, 7)
    assert spans[0].text[c.start - 100:c.end - 100] == c.text
    assert cands[1].n == 2


def test_select_keeps_up_to_three_close_to_the_best_without_repeats():
    cands = [A.Candidate(f"Sentence number {i} here.", 1, "d", 1, 1, i * 100, i * 100 + 20) for i in range(5)]
    cands.append(A.Candidate("Sentence number 0 here.", 2, "d", 2, 2, 0, 20))  # same words, other passage
    picked = A.select(cands, [1.0, 0.9, 0.85, 0.84, 0.5, 0.99])
    assert [q.start for q in picked] == [0, 100, 200]
    assert picked[0].score == 1.0
    assert [q.text for q in A.select(cands, [1.0, 0.5, 0.4, 0.3, 0.2, 0.1])] == ["Sentence number 0 here."]
    assert A.select([], []) == []


def test_scores_without_vectors_use_words_and_rank():
    cands = [A.Candidate("Oil the chain every 300 km.", 2, "d", 1, 1, 0, 10),
             A.Candidate("Pump the tyres before rides.", 1, "d", 1, 1, 20, 30)]
    s = A.scores("how often to oil the chain", cands, None, None)
    assert s[0] > s[1]
    v = np.eye(3, dtype=np.float32)
    s = A.scores("how often to oil the chain", cands, v[1], v[:2][::-1])
    assert s[0] > s[1] + 0.5  # cosine 1 beats cosine 0


# --- on the bundled corpus, with the real model ------------------------------------------------

DATA = __import__("pathlib").Path(__file__).resolve().parents[1] / "py_src" / "readingroom" / "bench" / "data" / "answers"


def _items(name: str, split: str) -> list[dict]:
    return [i for i in json.loads((DATA / f"{name}.json").read_text("utf-8"))["items"] if i["split"] == split]


@pytest.fixture(scope="module")
def reference(tmp_path_factory, embedder):
    """The demo index (the Python reference, built natively and cached by build.py), copied."""
    import build
    from readingroom import Library

    path = tmp_path_factory.mktemp("reference") / "reference.sqlite"
    shutil.copyfile(build.demo_index(), path)
    lib = Library.open(path, embedder=embedder)
    yield lib
    lib.close()


@pytest.fixture(scope="module")
def held_out(reference):
    """Answers to the held-out (test split) questions: never used for calibration."""
    answerable = [(i, run(reference.ask(i["question"])).to_dict()) for i in _items("answerable", "test")]
    unanswerable = [(i, run(reference.ask(i["question"])).to_dict()) for i in _items("unanswerable", "test")]
    return answerable, unanswerable


def test_quick_sentences_are_verbatim_and_placed_in_their_document_and_chunk(reference, held_out):
    from readingroom.demo import documents

    texts = {d.name: d.text for d in documents()}
    answerable, _ = held_out
    seen = 0
    for _, a in answerable:
        for q in a["quick"]:
            assert texts[q["doc_name"]][q["start"]:q["end"]] == q["text"]
            [chunk] = reference.neighbours(q["chunk_id"], 0, 0)
            assert chunk.doc_name == q["doc_name"] and chunk.start <= q["start"] < chunk.end
            cited = a["citations"][q["n"] - 1]
            assert q["chunk_id"] in cited["chunk_ids"]  # its [n] is the passage it came from
            seen += 1
        assert 1 <= len(a["quick"]) <= 3
    assert seen >= len(answerable)


def test_held_out_questions_get_their_answer_and_unanswerable_ones_are_refused(held_out):
    from readingroom.bench.answer_scores import normalise

    answerable, unanswerable = held_out
    covered = sum(a["covered"] for _, a in answerable)
    phrase = sum(any(normalise(p) in normalise(" ".join(q["text"] for q in a["quick"]))
                     for p in i["answer_phrases"]) for i, a in answerable)
    cited = sum(any(a["results"][a["citations"][q["n"] - 1]["result"]]["doc_name"] in i["expected_topics"]
                    for q in a["quick"]) for i, a in answerable if a["quick"])
    refused = [a for _, a in unanswerable if not a["covered"]]
    assert covered >= 0.95 * len(answerable), covered
    assert phrase >= 0.55 * len(answerable), phrase  # 66% of all 156 at calibration time
    assert cited >= 0.85 * len(answerable), cited
    assert len(refused) >= 0.8 * len(unanswerable), len(refused)
    for a in refused:
        assert (a["reason"], a["quick"]) == ("not_covered", [])
        assert a["message"] == "Your documents do not seem to cover this."
