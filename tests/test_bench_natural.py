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


def test_copied_vectors_are_near_twins_or_distinct_blends_as_asked():
    """The bench's repeated corpora (bench/corpus.py): ``jitter`` copies sit next to their
    originals (a query's exact top 10 are near-ties), ``mixed`` copies are distinct blends that
    keep their original's direction; copy 0 is the corpus itself; an unknown kind is refused."""
    import numpy as np
    import pytest

    from readingroom.bench.corpus import copy_vectors

    rng = np.random.default_rng(3)
    base = rng.normal(size=(400, 384)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    assert copy_vectors(base, 0, rng, "mixed") is base
    twins = copy_vectors(base, 1, rng, "jitter")
    blends = copy_vectors(base, 1, rng, "mixed")
    for v in (twins, blends):
        assert v.shape == base.shape and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    to_twin = np.sum(twins * base, axis=1)
    to_blend = np.sum(blends * base, axis=1)
    assert to_twin.min() > 0.97
    assert 0.7 < to_blend.min() and to_blend.max() < 0.995 and to_blend.mean() < to_twin.mean() - 0.05
    # each blend's nearest original is still its own, and no two blends coincide
    assert (np.argmax(blends @ base.T, axis=1) == np.arange(len(base))).all()
    sims = blends @ blends.T
    np.fill_diagonal(sims, 0)
    assert sims.max() < 0.99
    with pytest.raises(ValueError):
        copy_vectors(base, 1, rng, "shuffled")
