"""Plain dataclasses passed between the pure stages of retrieval.

They carry no behaviour beyond small conveniences, so that every stage (fuse, rerank,
merge, pack) is a function from values to values and can be tested without a database.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any


_set = object.__setattr__  # how the fast constructors below fill a frozen instance


def _plain(value: Any) -> Any:
    """A copy of JSON-like metadata (dicts, lists, scalars) that shares nothing with it."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Chunk:
    """A piece of a document, sized for the embedding model, with where it came from."""

    doc_index: int  # position within the document (0-based)
    text: str
    start: int  # character offsets into the decoded source text
    end: int
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    token_count: int = 0


@dataclass(frozen=True)
class Filters:
    """What a caller may restrict a search to; empty means everything."""

    doc_ids: tuple[int, ...] = ()
    doc_names: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # a document matches when it has every tag listed
    metadata: tuple[tuple[str, Any], ...] = ()  # equality on document metadata keys
    date_from: str | None = None  # ISO dates, compared as text, inclusive
    date_to: str | None = None

    @property
    def active(self) -> bool:
        return any(
            (self.doc_ids, self.doc_names, self.doc_types, self.source_types, self.tags,
             self.metadata, self.date_from, self.date_to)
        )


@dataclass(frozen=True)
class Hit:
    """One chunk as a retrieval candidate, with every number that explains its rank."""

    chunk_id: int
    doc_id: int
    doc_name: str
    doc_type: str
    chunk_index: int
    text: str
    start: int
    end: int
    text_hash: str
    token_count: int
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    meta: dict = field(default_factory=dict)
    vector_rank: int | None = None  # 1-based rank in the vector leg
    vector_sim: float | None = None  # cosine similarity
    lexical_rank: int | None = None
    lexical_score: float | None = None  # -bm25, larger is better
    name_rank: int | None = None  # 1-based rank in the name leg (search/names.py)
    fused: float = 0.0
    boosts: dict = field(default_factory=dict)  # name -> factor applied
    score: float = 0.0  # fused x boosts: what final order uses
    dropped: str | None = None  # why it is not in the results: floor, cap, duplicate, budget

    @classmethod
    def stored(cls, *row: Any) -> "Hit":
        """A candidate straight from its stored row (its first fields in order, ``chunk_id`` to
        ``meta``, as ``reads.hits_for`` reads them), the rest at their defaults: what the
        generated ``__init__`` makes, without its frozen per-field ``object.__setattr__``
        (hydrating a query's few hundred candidates took twice as long through it)."""
        if not _HIT_REQUIRED <= len(row) <= len(_HIT_TEMPLATE):
            raise TypeError(f"Hit.stored takes {_HIT_REQUIRED} to {len(_HIT_TEMPLATE)} values, not {len(row)}")
        values = _HIT_TEMPLATE.copy()  # every field in order, at its default
        values.update(zip(_HIT_FIELD_NAMES, row))
        for at, name, factory in _HIT_FACTORIES:
            if at >= len(row):  # not in the row: a fresh one, as the generated __init__ makes
                values[name] = factory()
        new = object.__new__(cls)
        _set(new, "__dict__", values)
        return new

    def replaced(self, **changes: Any) -> "Hit":
        """``dataclasses.replace`` without its per-field machinery: fusion and reranking
        make a few hundred of these per query, and in Pyodide ``replace`` cost milliseconds."""
        if not _HIT_FIELDS.issuperset(changes):
            raise TypeError(f"Hit has no field {sorted(changes.keys() - _HIT_FIELDS)[0]!r}")
        values = self.__dict__.copy()
        values.update(changes)
        new = object.__new__(Hit)
        _set(new, "__dict__", values)
        return new

    def to_dict(self) -> dict:
        # By hand rather than asdict(), whose recursive deep copy dominated serialising a result.
        d = dict(self.__dict__)
        d["heading_path"] = list(self.heading_path)
        d["meta"] = _plain(self.meta)
        d["boosts"] = dict(self.boosts)
        return d


_HIT_FIELD_NAMES = tuple(f.name for f in fields(Hit))
_HIT_FIELDS = frozenset(_HIT_FIELD_NAMES)
# Each field at its default, in order (a required field at None until the row gives it), and the
# fields whose default is made fresh for each Hit: what ``Hit.stored`` starts from.
_HIT_TEMPLATE = {f.name: None if f.default is MISSING else f.default for f in fields(Hit)}
_HIT_FACTORIES = tuple((at, f.name, f.default_factory) for at, f in enumerate(fields(Hit))
                       if f.default_factory is not MISSING)
_HIT_REQUIRED = sum(f.default is MISSING and f.default_factory is MISSING for f in fields(Hit))


@dataclass(frozen=True)
class Span:
    """Adjacent chunks of one document merged into one passage, in document order."""

    doc_id: int
    doc_name: str
    doc_type: str
    chunk_ids: tuple[int, ...]
    text: str
    start: int
    end: int
    score: float  # best score among its chunks
    chunk_index: int  # smallest chunk index
    page: int | None
    heading_paths: tuple[tuple[str, ...], ...]
    text_hash: str
    token_count: int
    meta: dict = field(default_factory=dict)
    trimmed: bool = False

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["meta"] = _plain(self.meta)
        d["chunk_ids"] = list(self.chunk_ids)
        d["heading_paths"] = [list(p) for p in self.heading_paths]
        d["place"] = self.place
        return d

    @property
    def place(self) -> str:
        """Where the passage is, in the file's own terms ("deck.pptx · slide 7 (notes)")."""
        from .places import label

        return label(self.doc_name, self.doc_type, self.heading_paths[0] if self.heading_paths else (), self.page)
