"""The stores behind the ``Store`` seam, and the one place a side is chosen.

A location is either an SQLite index (a file path, ``:memory:``, or the page's own
database) or a Postgres URL (``postgresql://…``). Each store carries its ``dialect``: the
module holding that engine's schema and statements (``sqlite_dialect``, ``pg_dialect``), which
``Index`` and ``search`` use, so nothing above the seam names an engine.
"""

from __future__ import annotations

import os
from types import ModuleType

URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(location: str | os.PathLike) -> bool:
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


def dialect(store) -> ModuleType:
    """The statements for ``store``'s engine (SQLite unless the store says otherwise: the
    page's store and older ones have no ``dialect``)."""
    from . import sqlite_dialect  # here: it imports bm25, which imports this package's schema

    return getattr(store, "dialect", None) or sqlite_dialect


def open_location(location: str | os.PathLike = ":memory:", **kw):
    """The store for ``location``: Postgres for a URL, SQLite (this side's) otherwise."""
    if is_url(location):
        from .postgres import PostgresStore

        return PostgresStore(str(location), **kw)
    from .._compat import open_store

    return open_store(location)


def describe(location) -> str:
    """A location for messages: a Postgres URL without its password."""
    if is_url(location):
        from .postgres import where_he_is

        return "postgresql://" + where_he_is(str(location))
    return str(location)


def size_bytes(location) -> int:
    """How large the library is on disk (an index file, or the Postgres database)."""
    if not is_url(location):
        return os.stat(location).st_size
    from . import pg_sql
    from .postgres import PostgresStore

    store = PostgresStore(str(location), max_size=1)
    try:
        return int(store.query(pg_sql.SIZE)[0][0])
    finally:
        store.close()
