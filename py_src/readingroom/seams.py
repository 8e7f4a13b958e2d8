"""The two seams between the pure core and the machine: storage and embedding.

Each has a native implementation (``_compat._not_in_pyodide``) and a browser one
(``_compat._in_pyodide``). Everything else in the package talks only to these
protocols, so the same retrieval code runs under CPython and in the Pyodide worker.

Embedding is ``async`` because in the browser it is a round trip to another worker;
storage is synchronous because sqlite-wasm lives in the same worker as Python. An
embedder may send its request as soon as ``embed()`` is called, before it is awaited:
retrieval starts the query's embedding, runs the lexical leg, then awaits the vector, so
the two run at the same time in the browser's two workers.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np


@runtime_checkable
class Store(Protocol):
    """SQL execution on one engine: SQLite with sqlite-vec and FTS5 loaded (the page, the CLI's
    index file), or Postgres with pgvector (``store/postgres.py``, a shared library).

    A store may carry ``dialect``: the module of its engine's schema and statements
    (``store/pg_dialect.py``); a store without one is SQLite (``store/sqlite_dialect.py``, the
    statements of ``store/sqlite_sql.py``). ``store.dialect`` picks it, once, for ``Index`` and ``search``.
    """

    kind: str  # "file", "memory", "opfs" or "postgres": shown to the user as where data lives

    def execute_script(self, sql: str) -> None:
        """Run one or more statements without parameters or results."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Run one statement with positional parameters; blobs come back as ``bytes``."""

    def close(self) -> None: ...


@runtime_checkable
class Embedder(Protocol):
    """Sentence embeddings, mean-pooled and L2-normalised, from one model."""

    model_id: str
    dim: int
    max_tokens: int

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 array of shape (len(texts), dim)."""

    async def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word-piece tokens per text, without special tokens and without truncation."""
