"""Reading Room: ask your own documents questions, privately.

Hybrid retrieval (sqlite-vec KNN + FTS5 BM25, fused) with filters, boosts, a diversity
cap, span merging and token-budget packing; the same code natively and in Pyodide.
"""

from .errors import (BadInput, Cancelled, DocumentTooLarge, EmbedderError, EmptyDocument,
                     ExtensionMissing, ModelMismatch, NotText, ReadingRoomError, StorageError)
from .ingest.add import NewDocument, Outcome
from .library import Library
from .search.options import Options
from .records import Chunk, Filters, Hit, Span
from .search.rerank import Boost
from .search.retrieve import DocumentCandidate, RetrievalResult

__version__ = "0.1.0"

__all__ = [
    "BadInput", "Boost", "Cancelled", "Chunk", "DocumentCandidate", "DocumentTooLarge",
    "EmbedderError", "EmptyDocument", "ExtensionMissing", "Filters", "Hit", "Library",
    "ModelMismatch", "NewDocument", "NotText", "Options", "Outcome", "ReadingRoomError",
    "RetrievalResult", "Span", "StorageError",
]
