"""The in-memory vector matrix gives vec0's exact KNN answer, on real sqlite-vec."""

import numpy as np
import pytest

from readingroom.search import vectors
from readingroom.store import sqlite_sql as sql
from readingroom._compat._not_in_pyodide import open_store
from readingroom.store.index import Index, Provenance
from readingroom.records import Filters
from readingroom.search.reads import vector_candidates
from readingroom.search.vectors import VectorMatrix

DIM = 16


@pytest.fixture
def index():
    idx = Index(open_store(":memory:"), Provenance(model_id="test-model", dim=DIM))
    yield idx
    idx.store.close()


def _fill(index: Index, n: int, seed: int = 0) -> np.ndarray:
    """n one-chunk documents with random unit vectors; document i is named d{i}.{md|txt}."""
    from readingroom.records import Chunk

    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    for i, v in enumerate(vecs):
        chunk = Chunk(text=f"chunk {i}", start=0, end=7, doc_index=0, heading_path=(), page=None, token_count=3)
        index.replace_document(name=f"d{i}.{'md' if i % 3 == 0 else 'txt'}", doc_type="md" if i % 3 == 0 else "txt",
                               content_hash=str(i), size=7, meta={}, chunks=[chunk], vectors=v[None, :],
                               text_hashes=[str(i)])
    return vecs


def test_matrix_knn_equals_vec0_knn(index):
    vecs = _fill(index, 3000)
    q = vecs[17] + 0.3 * vecs[40]
    exact = vector_candidates(index.store, q, 100, Filters())
    fast = vector_candidates(index.store, q, 100, Filters(), index.vector_matrix())
    assert [c for c, _ in fast] == [c for c, _ in exact]
    assert np.allclose([s for _, s in fast], [s for _, s in exact], atol=1e-5)


def test_a_filter_is_a_mask_and_never_comes_back_short(index):
    vecs = _fill(index, 600)
    f = Filters(doc_types=("md",))
    fast = vector_candidates(index.store, vecs[3], 150, f, index.vector_matrix())
    exact = vector_candidates(index.store, vecs[3], 150, f)
    assert len(fast) == 150 and [c for c, _ in fast] == [c for c, _ in exact]


def test_block_reader_skips_deleted_slots_and_matches_row_reader(index):
    _fill(index, 2100)  # three of sqlite-vec's blocks of 1,024, read one per page
    for doc_id in (2, 7, 8, 31, 1500):
        index.delete_document(doc_id)
    blocks = VectorMatrix.from_vec0_blocks(index._vector_blocks(per_page=1), DIM, 2095)
    rows = VectorMatrix.from_rows(index.store.query(sql.ALL_VECTORS), DIM)
    assert len(blocks) == 2095
    assert blocks.ids.tolist() == rows.ids.tolist()
    assert np.array_equal(blocks.rows, rows.rows)


def test_matrix_follows_writes(index):
    vecs = _fill(index, 20)
    first = index.vector_matrix()
    assert index.vector_matrix() is first  # kept while nothing changes
    index.delete_document(1)
    second = index.vector_matrix()
    assert len(second) == 19 and 1 not in second.ids
    assert vector_candidates(index.store, vecs[0], 1, Filters(), second)[0][0] != 1


def test_ties_are_broken_by_chunk_id():
    m = VectorMatrix.build(np.array([9, 3, 5, 1]), np.array([[1, 0], [1, 0], [0, 1], [1, 0]], np.float32))
    assert [c for c, _ in m.top(np.array([1, 0], np.float32), 2)] == [1, 3]
    assert m.top(np.zeros(2, np.float32), 2) == []
    assert [c for c, _ in m.top(np.array([0, 1], np.float32), 5, allowed=np.array([5, 9]))] == [5, 9]


def _clustered(n: int, dim: int, seed: int) -> np.ndarray:
    """Vectors shaped like sentence embeddings: a shared mean direction, topic clusters,
    and per-row noise (uniform random vectors would make every method look perfect)."""
    rng = np.random.default_rng(seed)
    mean = rng.standard_normal(dim)
    mean *= 0.35 / np.linalg.norm(mean)
    centres = rng.standard_normal((n // 40, dim)) / np.sqrt(dim)
    rows = mean + centres[rng.integers(0, len(centres), n)] + rng.standard_normal((n, dim)) * (0.6 / np.sqrt(dim))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def clustered():
    rows = _clustered(30_000, 384, seed=3)
    queries = rows[::150] + _clustered(200, 384, seed=4) * 0.3
    return np.arange(1, len(rows) + 1, dtype=np.int64) * 3, rows, queries


def _recall_at_10(matrix: VectorMatrix, truth_matrix: VectorMatrix, queries, **kw) -> float:
    hits = 0
    for q in queries:
        truth = {c for c, _ in truth_matrix.top(q, 10)}
        hits += len(truth & {c for c, _ in matrix.top(q, 100, **kw)[:10]})
    return hits / (10 * len(queries))


def test_quantised_search_keeps_recall_at_10_above_0_995(clustered, monkeypatch):
    ids, rows, queries = clustered
    monkeypatch.setattr(vectors, "BINARY_FROM", 10**9)
    exact = VectorMatrix.build(ids, rows)
    assert exact.kind == "float"
    monkeypatch.setattr(vectors, "BINARY_FROM", 10_000)
    binary_float = VectorMatrix.build(ids, rows)
    assert binary_float.kind == "binary+float"
    monkeypatch.setattr(vectors, "MAX_FLOAT_BYTES", 0)
    binary_int8 = VectorMatrix.build(ids, rows)
    assert binary_int8.kind == "binary+int8" and binary_int8.codes.nbytes == rows.nbytes // 4
    by_id = {int(c): i for i, c in enumerate(exact.ids)}
    stored = lambda chunk_ids: rows[[by_id[int(c)] for c in chunk_ids]]  # noqa: E731
    assert _recall_at_10(binary_float, exact, queries) >= 0.995
    assert _recall_at_10(binary_int8, exact, queries, exact=stored) >= 0.995
    # The exact rescoring is what lifts int8: the best EXACT_RESCORE come back with true sims.
    q = queries[0]
    head = binary_int8.top(q, 100, exact=stored)[: vectors.EXACT_RESCORE]
    assert all(abs(s - float(rows[by_id[c]] @ (q / np.linalg.norm(q)))) < 1e-5 for c, s in head)


def test_quantised_search_masks_filters_and_breaks_ties_the_same_way(clustered, monkeypatch):
    ids, rows, queries = clustered
    monkeypatch.setattr(vectors, "BINARY_FROM", 10_000)
    m = VectorMatrix.build(ids[::-1].copy(), rows[::-1].copy())  # any order in, ascending ids out
    assert m.kind == "binary+float" and np.all(np.diff(m.ids) > 0)
    allowed = ids[::20]  # 1,500: fewer than the binary stage keeps, so every one is scored exactly
    got = m.top(queries[1], 50, allowed=allowed)
    assert len(got) == 50 and {c for c, _ in got} <= set(allowed.tolist())
    assert got == VectorMatrix.build(ids[::20], rows[::20]).top(queries[1], 50)
    wider = m.top(queries[1], 50, allowed=ids[::3])  # 10,000: cut by Hamming distance first
    assert {c for c, _ in wider} <= set(ids[::3].tolist()) and len(wider) == 50
    assert m.top(queries[1], 5, allowed=np.array([999_999])) == []


def test_a_large_library_reads_its_quantised_matrix_from_sqlite(index, monkeypatch):
    vecs = _fill(index, 1500)
    monkeypatch.setattr(vectors, "BINARY_FROM", 1000)
    monkeypatch.setattr(vectors, "MAX_FLOAT_BYTES", 0)
    m = index.vector_matrix()
    assert m.kind == "binary+int8" and len(m) == 1500 and m.rows is None
    q = vecs[17] + 0.3 * vecs[40]
    exact = vector_candidates(index.store, q, 30, Filters())  # vec0's own exact KNN
    fast = vector_candidates(index.store, q, 30, Filters(), m)
    # The head is rescored with the stored floats: vec0's order and similarities.
    head = vectors.EXACT_RESCORE
    assert [c for c, _ in fast[:head]] == [c for c, _ in exact[:head]]
    assert np.allclose([s for _, s in fast[:head]], [s for _, s in exact[:head]], atol=1e-5)


def test_an_extended_matrix_is_the_matrix_a_fresh_build_makes():
    from readingroom.search.vectors import BINARY_FROM, VectorMatrix

    rng = np.random.default_rng(5)
    ids = np.array([2, 5, 9, 11], dtype=np.int64)
    rows = rng.normal(size=(4, 8)).astype(np.float32)
    more_ids, more = np.array([3, 12], dtype=np.int64), rng.normal(size=(2, 8)).astype(np.float32)
    grown = VectorMatrix.build(ids, rows).extended(more_ids, more)
    fresh = VectorMatrix.build(np.concatenate([ids, more_ids]), np.concatenate([rows, more]))
    assert grown.ids.tolist() == [2, 3, 5, 9, 11, 12]
    assert np.array_equal(grown.ids, fresh.ids) and np.allclose(grown.rows, fresh.rows)
    assert grown.top(more[0], 1) == fresh.top(more[0], 1) == [(3, pytest.approx(1.0, abs=1e-6))]
    # An id it holds already, or growing into the binary stage: a fresh build instead.
    assert VectorMatrix.build(ids, rows).extended(np.array([5]), more[:1]) is None
    big = VectorMatrix.build(np.arange(BINARY_FROM - 1), rng.normal(size=(BINARY_FROM - 1, 8)).astype(np.float32))
    assert big.extended(np.array([BINARY_FROM + 5]), more[:1]) is None


def test_a_binary_matrix_takes_new_rows_without_a_rebuild_and_keeps_its_recall(clustered, monkeypatch):
    """At a million chunks a rebuild is ~15 s in the page: a batch just embedded is added to the
    binary codes (against the centre they were made with) while the rows added are few."""
    ids, rows, queries = clustered
    monkeypatch.setattr(vectors, "BINARY_FROM", 10**9)
    exact = VectorMatrix.build(ids, rows)
    monkeypatch.setattr(vectors, "BINARY_FROM", 10_000)
    old, new = slice(0, 29_500), slice(29_500, None)  # 500 new rows: 1.7 % of the old ones
    by_id = {int(c): i for i, c in enumerate(ids)}
    stored = lambda chunk_ids: rows[[by_id[int(c)] for c in chunk_ids]]  # noqa: E731
    for max_float, kind, kw in [(vectors.MAX_FLOAT_BYTES, "binary+float", {}),
                                (0, "binary+int8", {"exact": stored})]:
        monkeypatch.setattr(vectors, "MAX_FLOAT_BYTES", max_float)
        # New ids (past the last one, as SQLite gives them) in any order: ascending out.
        built = VectorMatrix.build(ids[old], rows[old])
        grown = built.extended(ids[new][::-1], rows[new][::-1])
        fresh = VectorMatrix.build(ids, rows)
        assert grown is not None and grown.kind == fresh.kind == kind
        assert np.array_equal(grown.ids, fresh.ids) and grown.bits.shape == fresh.bits.shape
        assert _recall_at_10(grown, exact, queries, **kw) >= max(0.995, _recall_at_10(fresh, exact, queries, **kw) - 0.002)
        for i in (29_500, 29_777, 29_999):  # each new row is its own nearest neighbour
            assert grown.top(rows[i], 1, **kw)[0][0] == ids[i]
        # Built again instead: past its room (RECENTRE_SHARE of the rows it was built from), an id
        # it holds or one below its last, or a matrix another has grown from already.
        assert grown.extended(ids[:1], rows[:1]) is None
        assert built.extended(ids[new][:1], rows[new][:1]) is None
        room = int(vectors.RECENTRE_SHARE * 29_500) - 500
        past = np.arange(1, room + 2, dtype=np.int64) + int(ids[-1])
        assert grown.extended(past, rows[: len(past)]) is None
        full = grown.extended(past[:-1], rows[: room])
        assert len(full) == 29_500 + 500 + room
        assert full.extended(past[-1:], rows[:1]) is None


def test_a_binary_matrix_leaves_deleted_rows_out_without_a_rebuild(clustered, monkeypatch):
    """Reading a million vectors again after a delete takes ~20 s natively: the rows of deleted
    chunks are left out of every search instead, filtered or not, and rows added later too."""
    ids, rows, queries = clustered
    monkeypatch.setattr(vectors, "BINARY_FROM", 10**9)
    assert VectorMatrix.build(ids, rows).without(ids[:3]) is None  # below the binary stage: built again
    monkeypatch.setattr(vectors, "BINARY_FROM", 10_000)
    gone = ids[:29_900:100]  # 299 rows: 1 % of them, none of the rows added after
    keep = ~np.isin(ids, gone)
    monkeypatch.setattr(vectors, "BINARY_FROM", 10**9)
    exact = VectorMatrix.build(ids[keep], rows[keep])
    monkeypatch.setattr(vectors, "BINARY_FROM", 10_000)
    for max_float, kw in [(vectors.MAX_FLOAT_BYTES, {}), (0, {"exact": lambda c: rows[(np.asarray(c) // 3) - 1]})]:
        monkeypatch.setattr(vectors, "MAX_FLOAT_BYTES", max_float)
        built = VectorMatrix.build(ids[:29_900], rows[:29_900])
        less = built.without(np.concatenate([gone, [10**9]]))  # an id it does not hold changes nothing
        assert len(less) == 29_900 - len(gone[gone <= ids[29_899]]) and len(built) == 29_900
        grown = less.extended(ids[29_900:], rows[29_900:])
        assert len(grown) == keep.sum()
        gone_set = set(gone.tolist())
        for q in np.concatenate([queries, rows[gone[:20] // 3 - 1]]):  # the deleted rows' own vectors too
            got = [c for c, _ in grown.top(q, 50, **kw)]
            assert len(got) == 50 and not gone_set & set(got)
        assert _recall_at_10(grown, exact, queries, **kw) >= 0.995
        allowed = ids[:400]
        got = [c for c, _ in grown.top(rows[0], 400, allowed=allowed, **kw)]
        assert sorted(got) == sorted(set(allowed.tolist()) - gone_set)
        assert built.without(ids[: int(vectors.RECENTRE_SHARE * 29_900) + 1]) is None  # too many gone: built again
