"""``readingroom export`` from Postgres: the library written as the SQLite index file that the
page opens (Open index file...) and the CLI reads, ids and provenance kept, from one snapshot
(a repeatable-read transaction), into a new file that is moved into place only when whole."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from . import sqlite_copy_sql as copy_sql, sqlite_sql as sql
from ..errors import StorageError
from . import pg_sql, sqlite_dialect
from .legs import worth_keeping

BATCH = 2_000


def _vector(value: bytes) -> bytes:
    """pgvector's binary form (dimension, unused, big-endian float4s) as sqlite-vec's blob."""
    return np.frombuffer(value, dtype=">f4", offset=4).astype("<f4").tobytes()


def to_sqlite(index, out: Path) -> dict:
    """Writes ``index`` (a Postgres library) to ``out``; returns what was copied."""
    from .._compat import open_store

    pg = index.store
    tmp = out.with_name(out.name + ".exporting")
    if tmp.exists():
        tmp.unlink()
    dst = open_store(tmp)
    counts = {"documents": 0, "chunks": 0}
    try:
        with pg._errors(), pg.pool.connection() as conn:
            conn.execute(pg_sql.SNAPSHOT)
            try:
                meta = conn.execute(pg_sql.GET_META).fetchall()
                dim = int(dict(meta)["dim"])
                dst.execute_script("BEGIN")
                dst.execute_script(sql.schema(dim))
                for k, v in meta:
                    if k != "unfinished":
                        dst.query(sql.SET_META, (k, v))
                for row in conn.execute(pg_sql.EXPORT_DOCS):
                    dst.query(copy_sql.COPY_DOC, row)
                    counts["documents"] += 1
                for row in conn.execute(pg_sql.EXPORT_TAGS):
                    dst.query(sql.INSERT_TAG, row)
                with conn.cursor(name="readingroom_export", binary=True) as cur:
                    cur.execute(pg_sql.EXPORT_CHUNKS)
                    while rows := cur.fetchmany(BATCH):
                        for row in rows:
                            embedded = bool(row[11]) and row[12] is not None
                            dst.query(copy_sql.COPY_CHUNK, (*row[:11], int(embedded)))
                            if embedded:  # a pending chunk stays pending in the copy
                                dst.query(sql.INSERT_VECTOR, (row[0], _vector(row[12])))
                        counts["chunks"] += len(rows)
                dst.execute_script("COMMIT")
            finally:
                conn.execute("ROLLBACK")
        if worth_keeping(counts["chunks"]):  # as ``readingroom index`` does for a large library
            counts["kept_postings"] = sqlite_dialect.keep_postings(dst)
        dst.close()
        os.replace(tmp, out)
    except BaseException:
        try:
            dst.close()
        finally:
            tmp.unlink(missing_ok=True)
        raise
    if counts["chunks"] and not out.exists():
        raise StorageError(f"the export to {out} did not complete")
    return counts
