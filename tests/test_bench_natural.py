"""The natural bench corpus (bench/natural.py): exactly the chunks asked for, each with its
vector and its words, a vocabulary that keeps growing past the source's as real text does, the
source's common words still the common ones, and an index the library opens and searches."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from helpers import run

ROOT = Path(__file__).resolve().parents[1]


def _source(tmp_path, embedder) -> Path:
    from readingroom import Library, NewDocument

    paragraphs = [p for p in (ROOT / "README.md").read_text(encoding="utf-8").split("\n\n") if len(p) > 200]
    path = tmp_path / "source.sqlite"
    lib = Library.open(str(path), embedder=embedder)
    run(lib.add([NewDocument(f"part-{i}.md", text=p) for i, p in enumerate(paragraphs[:60])]))
    lib.close()
    return path


def test_a_natural_corpus_has_the_size_asked_and_a_growing_vocabulary(tmp_path, embedder):
    from readingroom import Library
    from readingroom._compat import open_store
    from readingroom.bench import natural
    from readingroom.bench.corpus import read_chunks

    source = _source(tmp_path, embedder)
    out = natural.natural_index(source, 1_500, tmp_path / "natural.sqlite")
    store = open_store(out)
    try:
        chunks, vectors, empty = (int(v) for v in store.query(
            "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM chunks_vec), "
            "(SELECT count(*) FROM chunks WHERE text = '')")[0])
        texts = [t for (t,) in store.query("SELECT text FROM chunks")]
    finally:
        store.close()
    assert (chunks, vectors, empty) == (1_500, 1_500, 0)

    made = Counter(w for t in texts for w in natural.words(t))
    seen = Counter(w for c in read_chunks(source) for w in natural.words(c["text"]))
    assert len(made) > 1.5 * len(seen)  # new words keep coming, as in real text
    assert made.most_common(1)[0][0] == seen.most_common(1)[0][0]  # the common words stay common

    stats = natural.term_stats(out, ["the search index"], source)
    assert stats["natural"]["chunks"] == 1_500 and stats["natural"]["distinct_terms"] > stats["repeated"]["distinct_terms"]

    lib = Library.open(str(out), embedder=embedder)
    try:
        assert lib.status()["chunks"] == 1_500
        result = run(lib.retrieve(seen.most_common(40)[-1][0]))
        assert result.results and result.reason is None
    finally:
        lib.close()
