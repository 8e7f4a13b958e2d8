"""Reading Room: ask your own documents questions, privately.

Hybrid retrieval (sqlite-vec KNN + FTS5 BM25, fused) with filters, boosts, a diversity
cap, span merging and token-budget packing; the same code natively and in Pyodide.
"""

from .errors import (BadInput, Cancelled, DocumentTooLarge, EmbedderError, EmptyDocument,
                     ExtensionMissing, ModelMismatch, NotText, ReadingRoomError, StorageError)
# The rest of the public API is imported when first asked for (PEP 562), so that importing
# a module of the package (``readingroom._lazy_numpy``, first of all in the page) does not
# import the whole engine, and numpy with it.
_LAZY = {
    "NewDocument": ".ingest.add", "Outcome": ".ingest.add", "Library": ".library",
    "Options": ".search.options", "Chunk": ".records", "Filters": ".records", "Hit": ".records",
    "Span": ".records", "Boost": ".search.rerank", "DocumentCandidate": ".search.retrieve",
    "RetrievalResult": ".search.retrieve",
}


def __getattr__(name: str):
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'readingroom' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "BadInput", "Boost", "Cancelled", "Chunk", "DocumentCandidate", "DocumentTooLarge",
    "EmbedderError", "EmptyDocument", "ExtensionMissing", "Filters", "Hit", "Library",
    "ModelMismatch", "NewDocument", "NotText", "Options", "Outcome", "ReadingRoomError",
    "RetrievalResult", "Span", "StorageError",
]
