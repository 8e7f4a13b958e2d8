"""Bench corpora: a native-built index repeated to any size, with precomputed vectors.

Embedding 100,000 chunks on this machine would take hours, and latency does not depend on
which vectors are stored, only on how many. So a large index is made from the SciFact
chunks and vectors, copied with distinct document names and slightly jittered vectors
(no two identical, so KNN has real work to do).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .._compat import open_store
from ..index import Index, Provenance
from ..model_files import DIM, MODEL_ID
from ..records import Chunk


def read_chunks(index_path: Path) -> list[dict]:
    """Every stored chunk with its document and vector, in document order."""
    store = open_store(index_path)
    rows = store.query(
        "SELECT d.name, d.doc_type, c.idx, c.page, c.start_char, c.end_char, c.heading_path, "
        "c.token_count, c.text, c.text_hash, v.embedding FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id JOIN chunks_vec v ON v.rowid = c.id ORDER BY d.id, c.idx")
    store.close()
    keys = ("doc", "doc_type", "idx", "page", "start", "end", "heading_path", "tokens", "text",
            "text_hash", "vector")
    return [dict(zip(keys, r)) for r in rows]


def scaled_index(source: Path, n_chunks: int, out: Path, seed: int = 7) -> Path:
    """An index of exactly ``n_chunks`` chunks built from ``source`` (cached by name)."""
    if out.exists():
        return out
    chunks = read_chunks(source)
    by_doc: dict[str, list[dict]] = {}
    for c in chunks:
        by_doc.setdefault(c["doc"], []).append(c)
    tmp = out.with_name(f"{out.stem}.{os.getpid()}.building")  # concurrent runs never share it
    if tmp.exists():
        tmp.unlink()
    index = Index(open_store(tmp), Provenance(MODEL_ID, DIM))
    rng = np.random.default_rng(seed)
    written, copy = 0, 0
    index.store.execute_script("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF")
    while written < n_chunks:
        for name, doc_chunks in by_doc.items():
            if written >= n_chunks:
                break
            doc_chunks = doc_chunks[: n_chunks - written]
            vecs = np.stack([np.frombuffer(c["vector"], dtype=np.float32) for c in doc_chunks])
            if copy:
                vecs = vecs + rng.normal(0, 0.01, vecs.shape).astype(np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            index.replace_document(
                name=name if not copy else f"{name}#{copy}", doc_type=doc_chunks[0]["doc_type"],
                content_hash=f"{name}#{copy}", size=sum(len(c["text"]) for c in doc_chunks), meta={},
                chunks=[Chunk(c["idx"], c["text"], c["start"], c["end"], tuple(json.loads(c["heading_path"])),
                              c["page"], c["tokens"]) for c in doc_chunks],
                vectors=vecs, text_hashes=[c["text_hash"] for c in doc_chunks])
            written += len(doc_chunks)
        copy += 1
    index.store.execute_script("VACUUM")
    index.store.close()
    tmp.rename(out)
    return out
