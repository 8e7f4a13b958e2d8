from hypothesis import given, settings, strategies as st

from hits import hit
from readingroom.search import merge, pack
from readingroom.text import tokens
from readingroom.ingest.chunking import ChunkSettings, chunk_text
from readingroom.records import Hit


def test_adjacent_chunks_merge_without_repeating_overlap():
    source = "One. Two. Three. Four. Five."
    a = hit(1, idx=0, text=source[0:16], start=0, score=0.5)  # "One. Two. Three."
    b = hit(2, idx=1, text=source[10:28], start=10, score=0.9)  # "Three. Four. Five."
    [span] = merge.merge_adjacent([b, a])
    assert span.text == source
    assert span.chunk_ids == (1, 2)
    assert (span.start, span.end, span.score, span.chunk_index) == (0, 28, 0.9, 0)


def test_different_pages_and_documents_do_not_merge():
    spans = merge.merge_adjacent([hit(1, idx=0, page=1), hit(2, idx=1, page=2), hit(3, doc=2, idx=2)])
    assert len(spans) == 3


def test_span_carries_heading_paths_and_min_page():
    a = hit(1, idx=0, heading=("A",), page=3)
    b = hit(2, idx=1, heading=("A", "B"), page=3, start=a.end + 2)
    [span] = merge.merge_adjacent([a, b])
    assert span.heading_paths == (("A",), ("A", "B")) and span.page == 3


def test_duplicates_dropped_by_text_hash():
    kept, dropped = merge.drop_duplicates([hit(1, text="same"), hit(2, doc=2, text="same"), hit(3)])
    assert [h.chunk_id for h in kept] == [1, 3]
    assert dropped[0].dropped == "duplicate"


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abc .\n")), min_size=1, max_size=800),
       st.integers(8, 40), st.integers(0, 10), st.data())
def test_merging_any_subset_of_consecutive_chunks_gives_the_source_slice(text, target, overlap, data):
    chunks = chunk_text(text, "txt", ChunkSettings(target_tokens=target, overlap_tokens=overlap))
    if not chunks:
        return
    i = data.draw(st.integers(0, len(chunks) - 1))
    j = data.draw(st.integers(i, len(chunks) - 1))
    hits = [hit(c.doc_index + 1, idx=c.doc_index, text=c.text, start=c.start, end=c.end)
            for c in chunks[i:j + 1]]
    spans = merge.merge_adjacent(hits)
    assert len(spans) == 1
    s = spans[0]
    # Neighbours separated only by whitespace are joined by a blank line.
    assert " ".join(s.text.split()) == " ".join(text[chunks[i].start:chunks[j].end].split())


def spans_of(texts):
    return merge.merge_adjacent([hit(i + 1, doc=i + 1, text=t, score=1.0 / (i + 1))
                                 for i, t in enumerate(texts)])


def test_pack_includes_best_first_and_reports_what_it_dropped():
    spans = spans_of(["Short one.", "Another short one.", "x " * 2000])
    p = pack.pack(spans, budget=100)
    assert [s.doc_id for s in p.spans] == [1, 2]
    assert [s.doc_id for s in p.dropped] == [3]
    assert p.tokens <= 100


def test_pack_trims_at_a_sentence_boundary_when_nothing_fits_whole():
    long = " ".join(f"Sentence {i} is here." for i in range(100))
    p = pack.pack(spans_of([long]), budget=60)
    assert p.trimmed == [0]
    assert p.spans[0].text.endswith(".")
    assert long.startswith(p.spans[0].text)
    assert tokens.estimate(pack.context_text(p)) <= 60


def test_context_has_citation_markers_mapping_to_spans():
    p = pack.pack(spans_of(["Alpha fact.", "Beta fact."]), budget=200)
    ctx = pack.context_text(p)
    assert ctx.startswith("[1] doc1\nAlpha fact.")
    assert "[2] doc2\nBeta fact." in ctx


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab. !\n")), min_size=1, max_size=300),
                min_size=0, max_size=12),
       st.integers(0, 400), st.integers(0, 100))
def test_packer_never_exceeds_budget(texts, budget, reserve):
    p = pack.pack(spans_of(texts), budget=budget, reserve=reserve)
    assert p.tokens <= max(0, budget - reserve)
    assert tokens.estimate(pack.context_text(p)) <= max(0, budget - reserve)
    assert len(p.spans) + len(p.dropped) == len(merge.merge_adjacent(
        [hit(i + 1, doc=i + 1, text=t) for i, t in enumerate(texts)]))
