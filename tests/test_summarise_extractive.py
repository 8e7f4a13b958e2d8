"""The extractive summary and the comparison (summarise/extractive.py, compare.py, outline.py)
on real documents: the bundled demo set (CPython's language reference topics), chunked as
indexing chunks them, with the real model's vectors where it matters."""

from __future__ import annotations

import numpy as np
import pytest
from pydoc_data.topics import topics

from readingroom.aio import run as run_sync
from readingroom.ingest.chunking import chunk_text, embedding_text
from readingroom.summarise import compare, outline
from readingroom.summarise.extractive import Part, summarise, target_length


def parts_of(text: str, doc_type: str = "txt") -> list[Part]:
    return [Part(100 + i, c.doc_index, c.text, c.start, c.heading_path, c.page, c.token_count)
            for i, c in enumerate(chunk_text(text, doc_type))]


def vectors_of(embedder, text: str, doc_type: str = "txt") -> np.ndarray:
    return np.asarray(run_sync(embedder.embed([embedding_text(c) for c in chunk_text(text, doc_type)])))


def test_length_follows_the_document():
    assert target_length(300) == 5
    assert 10 <= target_length(15_000) <= 13
    assert 15 <= target_length(150_000) <= 25
    assert target_length(10**9) == 25


@pytest.mark.parametrize("name", ["try", "import", "compound"])
def test_points_are_verbatim_in_order_and_cover_the_document(name):
    text = topics[name]
    ex = summarise(parts_of(text), None)
    assert ex.points and len(ex.points) <= target_length(ex.tokens)
    for p in ex.points:
        assert text[p.start:p.end] == p.text  # verbatim, with its place in the document
    starts = [p.start for p in ex.points]
    assert starts == sorted(starts)
    assert len(set(starts)) == len(starts)
    # covers the document: something from its first and its last third
    assert min(starts) < len(text) / 3 and max(starts) > len(text) * 2 / 3 or len(text) < 3000


def test_outline_uses_the_documents_own_headings():
    text = topics["try"]
    ex = summarise(parts_of(text), None)
    heads = {outline.heading_text(p.section) for p in ex.points}
    assert 'The "try" statement' in heads
    assert any("finally" in h for h in heads)


def test_markdown_headings_become_the_outline(embedder):
    text = ("# Birds\n\nOwls hunt at night and sleep during the day in hollow trees. "
            "Their feathers are soft, so they fly without a sound. Barn owls eat mice and voles.\n\n"
            "## Nests\n\nMost owls do not build nests; they take over old nests of crows. "
            "Eggs are laid a few days apart, so the chicks differ in size.\n\n"
            "# Costs\n\nA bird feeder costs about twenty pounds and needs cleaning every week. "
            "Seed mixes with millet attract sparrows rather than finches.\n")
    ex = summarise(parts_of(text, "md"), vectors_of(embedder, text, "md"))
    assert {p.section[0] for p in ex.points} == {"Birds", "Costs"}
    blocks = outline.sections(outline.number(ex.points, 1, 7, "birds.md"))
    tops = [b["heading"][0] for b in blocks]  # in the document's order (Birds, Birds > Nests, Costs)
    assert tops == sorted(tops, key=["Birds", "Costs"].index) and len(set(map(tuple, (b["heading"] for b in blocks)))) == len(blocks)
    assert [p["n"] for b in blocks for p in b["points"]] == list(range(1, len(ex.points) + 1))


def test_redundant_sentences_are_not_both_picked():
    same = "The cache is flushed every night at two so the morning reports see fresh numbers."
    text = "\n\n".join([f"# Part {i}\n\n{same} Part {i} has its own detail about item number {i} here."
                        for i in range(6)])
    ex = summarise(parts_of(text, "md"), None)
    assert sum(p.text == same for p in ex.points) == 1


@pytest.mark.parametrize("text, note", [
    ("", "no_prose"),
    ("    def f(x):\n        return x * 2\n\n    print(f(3))\n", "no_prose"),
    ("Only one sentence lives in this short note today.", "one_sentence"),
])
def test_bad_documents_give_a_note_not_an_exception(text, note):
    ex = summarise(parts_of(text, "md"), None)
    assert ex.note == note
    assert len(ex.points) == (1 if note == "one_sentence" else 0)


def test_a_document_of_tables_is_outlined_by_its_tables():
    """A sheet or a CSV has no sentence: its summary is each table once, its header row
    verbatim under its sheet, with the rows of every piece counted once (pieces repeat the
    header; chunks overlap)."""
    head = "| Region | Manager |\n|---|---|\n"
    rows = [f"| Region {n} | Manager {n} |" for n in range(1, 6)]
    a = head + "\n".join(rows[:3])
    b = head + "\n".join(rows[3:])  # the next piece, its header repeated
    doc = a + "\n\n" + b + "\n\n| Topic | Remark |\n|---|---|\n| Audit | in May |"
    at = len(a) + 2 + len(b) + 2
    parts = [Part(1, 0, a, 0, ("Sheet Q3", "Rows 2–4")), Part(2, 1, b, len(a) + 2, ("Sheet Q3", "Rows 5–6")),
             Part(3, 2, b, len(a) + 2, ("Sheet Q3", "Rows 5–6")),  # overlaps the one before
             Part(4, 3, doc[at:], at, ("Sheet Notes",))]
    ex = summarise(parts, None)
    assert ex.note is None and [(p.text, p.rows, p.section) for p in ex.points] == [
        ("| Region | Manager |", 5, ("Sheet Q3",)), ("| Topic | Remark |", 1, ("Sheet Notes",))]
    assert all(doc[p.start:p.end] == p.text for p in ex.points)
    block = {"doc_name": "budget.xlsx", "sections": outline.sections(outline.number(ex.points, 1, 7, "budget.xlsx"))}
    assert outline.as_text(block) == ["budget.xlsx", "  Sheet Q3", "    - | Region | Manager | (5 rows) [1]",
                                      "  Sheet Notes", "    - | Topic | Remark | (1 row) [2]"]


def test_comparison_pairs_what_both_say_and_lists_the_rest(embedder):
    a = summarise(parts_of(topics["while"]), None).points
    b = summarise(parts_of(topics["for"]), None).points
    va = np.asarray(run_sync(embedder.embed([p.text for p in a])))
    vb = np.asarray(run_sync(embedder.embed([p.text for p in b])))
    c = compare.pair(compare.vector_similarity(va, vb))
    assert c.pairs, "while and for both describe a loop with an else clause"
    paired_a, paired_b = {i for i, _, _ in c.pairs}, {j for _, j, _ in c.pairs}
    assert paired_a.isdisjoint(c.only_a) and paired_b.isdisjoint(c.only_b)
    assert paired_a | set(c.only_a) == set(range(len(a)))
    assert all(s >= compare.THRESHOLD for _, _, s in c.pairs)
    # a document compared with itself pairs every point with itself
    same = compare.pair(compare.vector_similarity(va, va))
    assert [(i, j) for i, j, _ in same.pairs] == [(i, i) for i in range(len(a))]


def test_word_similarity_fallback_pairs_close_wording():
    a = summarise(parts_of(topics["while"]), None).points
    sim = compare.word_similarity(a, a)
    assert np.allclose(np.diag(sim), 1.0, atol=1e-5)
    assert compare.pair(sim, compare.WORD_THRESHOLD).only_a == []


def test_graph_rank_without_the_matrix_is_the_pagerank_of_the_word_cosines():
    """centrality.graph_rank never builds the n-by-n graph; the same walk over the dense
    matrix of the sentences' word cosines (written out here) gives the same ranks."""
    from readingroom.summarise import centrality

    texts = [s for s in topics["try"].replace("\n", " ").split(". ") if len(s.split()) > 5][:40]
    bags = [centrality.bag(t) for t in texts]
    idf = centrality.idf_of(bags)
    vecs = [centrality.weigh(b, idf) for b in bags]
    sim = np.array([[centrality.cosine(a, b) if i != j else 0.0 for j, b in enumerate(vecs)]
                    for i, a in enumerate(vecs)])
    walk = sim / np.where(sim.sum(axis=1, keepdims=True) > 0, sim.sum(axis=1, keepdims=True), 1)
    r = np.full(len(vecs), 1 / len(vecs))
    for _ in range(40):
        r = 0.15 / len(vecs) + 0.85 * walk.T @ r
    assert np.allclose(centrality.graph_rank(vecs), r / r.max(), atol=1e-9)
    assert centrality.graph_rank([]).size == 0
