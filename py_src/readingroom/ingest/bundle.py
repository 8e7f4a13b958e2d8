"""A prebuilt index shipped with the app, kept apart from the documents the user added.

The bundled set lives in the user's own database, marked with ``source_type = 'bundle'``,
so one search covers both and a filter can tell them apart. A new version of the bundle
replaces the old bundled documents and leaves the user's untouched. The shipped file is
attached to the connection (natively a file; in the browser a copy deserialised into
memory) and copied across in SQL, in one transaction: a failure keeps the previous state.

Ids are shifted past the user's largest ids, so the bundle's chunk ids, and the vectors
keyed by them, never collide with the user's. A bundled document whose name the user
already has is skipped: the user's own copy wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..store import sqlite_copy_sql as copy_sql, sqlite_sql as sql
from ..errors import ModelMismatch
from ..store.index import Index

BUNDLE_SOURCE = "bundle"
BUNDLE_VERSION_KEY = "bundle_version"


@dataclass(frozen=True)
class Merged:
    """What merging a bundled library into the user's did."""

    version: str
    documents: int
    chunks: int
    replaced: int  # bundled documents of the previous version that were removed
    skipped: list[str]  # bundled names the user already has

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def bundle_version(index: Index) -> str | None:
    rows = index.store.query(index.sql.GET_META_KEY, (BUNDLE_VERSION_KEY,))
    return rows[0][0] if rows else None


def merge(index: Index, schema: str, version: str) -> Merged:
    """Copy the index attached as ``schema`` into the library as its bundled set."""
    if not schema.isidentifier():
        raise ValueError("schema must be a plain SQL name")
    q = index.store.query
    theirs = dict(q(copy_sql.BUNDLE_META.format(schema=schema)))
    want = index.provenance.as_meta()
    diffs = [f"{k}: bundle has {theirs.get(k)!r}, app uses {want[k]!r}"
             for k in ("model_id", "dim", "chunker_version", "schema_version") if theirs.get(k) != want[k]]
    if diffs:
        raise ModelMismatch("the bundled index was built differently (" + "; ".join(diffs) + ")")
    index.adopt_if_empty()
    if index.stored_provenance.get("dim") != want["dim"]:  # its vectors cannot sit beside ours
        raise ModelMismatch(f"this library was built differently ({index.mismatch}); re-index it, "
                            "then the bundled set can be merged")
    with index.transaction():
        old = [int(r[0]) for r in q(copy_sql.BUNDLED_DOC_IDS, (BUNDLE_SOURCE,))]
        for doc_id in old:
            index.delete_rows(doc_id)
        skipped = [r[0] for r in q(copy_sql.BUNDLE_NAME_CLASHES.format(schema=schema))]
        doc_off, chunk_off = (int(v) for v in q(copy_sql.MAX_IDS)[0])
        params = (doc_off, chunk_off, BUNDLE_SOURCE)
        for statement in (copy_sql.BUNDLE_COPY_DOCUMENTS, copy_sql.BUNDLE_COPY_TAGS, copy_sql.BUNDLE_COPY_CHUNKS,
                          copy_sql.BUNDLE_COPY_VECTORS, copy_sql.BUNDLE_MARK_PENDING):
            q(statement.format(schema=schema), params)
        docs, chunks = (int(v) for v in q(copy_sql.BUNDLED_COUNTS, (BUNDLE_SOURCE,))[0])
        q(sql.SET_META, (BUNDLE_VERSION_KEY, version))
    return Merged(version=version, documents=docs, chunks=chunks, replaced=len(old), skipped=skipped)
