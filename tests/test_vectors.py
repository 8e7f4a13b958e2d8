"""The in-memory vector matrix gives vec0's exact KNN answer, on real sqlite-vec."""

import numpy as np
import pytest

from readingroom import sql
from readingroom._compat._not_in_pyodide import open_store
from readingroom.index import Index, Provenance
from readingroom.records import Filters
from readingroom.search import vector_candidates
from readingroom.vectors import VectorMatrix

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
    _fill(index, 50)
    for doc_id in (2, 7, 8, 31):
        index.delete_document(doc_id)
    blocks = VectorMatrix.from_vec0_blocks(index.store.query(sql.VECTOR_BLOCKS), DIM)
    rows = VectorMatrix.from_rows(index.store.query(sql.ALL_VECTORS), DIM)
    assert len(blocks) == 46
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
