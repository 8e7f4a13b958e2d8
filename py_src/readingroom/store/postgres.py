"""A shared library on Postgres (16 or later) with pgvector (0.8 or later), through psycopg 3
and its connection pool: the ``Store`` seam's second side.

Statements come from ``pg_sql`` (``dialect``). Outside a transaction each statement borrows
a pooled connection; between ``BEGIN`` and ``COMMIT`` (``Index.transaction``) the calling
thread keeps one. A server that cannot be reached is ``DatabaseUnavailable`` (the CLI's exit
code 2, serve's 503), and the pool checks each connection before lending it, so service
comes back by itself when Postgres does.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager, nullcontext
from typing import Any, Iterator, Sequence

import numpy as np

from ..search import filters as filters_sql
from ..search import syntax
from ..errors import BadInput, DatabaseUnavailable, ExtensionMissing, StorageError
from ..records import Filters
from . import pg_dialect, pg_sql

MIN_SERVER = 160000  # Postgres 16
MIN_PGVECTOR = (0, 8)  # iterative index scans
EXACT_BELOW = 20_000  # chunks (in the library, or allowed by a filter) searched exhaustively (as vectors.py)
INSTALL_PGVECTOR = ("install pgvector 0.8 or later on the Postgres server (Debian: apt install "
                    "postgresql-16-pgvector), then, as a superuser in this database: CREATE EXTENSION vector;")


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def where_he_is(url: str) -> str:
    """The server and database of a URL, without its password, for messages."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        d = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - a message must not fail
        return "the given URL"
    return f"{d.get('host') or 'localhost'}:{d.get('port') or 5432}/{d.get('dbname') or d.get('user') or ''}"


class PostgresStore:
    kind = "postgres"
    dialect = pg_dialect

    def __init__(self, url: str, *, max_size: int = 8, timeout: float = 5.0):
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url, self._psycopg = url, psycopg
        self.where = where_he_is(url)
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(timeout))) as conn:
                self._check_server(conn)
        except psycopg.OperationalError as e:
            raise DatabaseUnavailable(f"cannot reach Postgres at {self.where}: {_first_line(e)}") from e
        except psycopg.ProgrammingError as e:
            raise BadInput(f"not a usable Postgres URL ({_first_line(e)})") from e
        except psycopg.Error as e:
            raise StorageError(f"Postgres at {self.where}: {_first_line(e)}") from e
        self._pool_args = dict(min_size=1, max_size=max_size, timeout=timeout, kwargs={"autocommit": True},
                               check=ConnectionPool.check_connection, num_workers=1, name="readingroom")
        self.pool = ConnectionPool(url, open=True, **self._pool_args)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._down = False  # the server was unreachable: probe it before waiting on the pool

    def _check_server(self, conn) -> None:
        version = int(conn.execute("SHOW server_version_num").fetchone()[0])
        if version < MIN_SERVER:
            raise StorageError(f"Postgres at {self.where} is version {version // 10000}; Reading Room needs 16 or later")
        row = conn.execute(pg_sql.EXTENSIONS).fetchone()
        if row is None:
            try:
                conn.execute(pg_sql.EXTENSION)
            except self._psycopg.Error as e:
                raise ExtensionMissing(f"pgvector is not available in the database at {self.where} "
                                       f"({_first_line(e)}): {INSTALL_PGVECTOR}") from e
            row = conn.execute(pg_sql.EXTENSIONS).fetchone()
        have = tuple(int(p) for p in str(row[0]).split(".")[:2])
        if have < MIN_PGVECTOR:
            raise ExtensionMissing(f"pgvector {row[0]} is too old in the database at {self.where}: {INSTALL_PGVECTOR}"
                                   " (then ALTER EXTENSION vector UPDATE;)")

    # -- the Store seam ------------------------------------------------------------------
    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return nullcontext(conn)
        if self._down:
            self._recover()
        return self.pool.connection()

    def _recover(self) -> None:
        """After the server was unreachable: fail at once while it still is (rather than wait
        for the pool's timeout on every call), and start a fresh pool once it is back."""
        from psycopg_pool import ConnectionPool

        with self._lock:
            if not self._down:
                return
            try:
                self._psycopg.connect(self.url, autocommit=True, connect_timeout=3).close()
            except self._psycopg.Error as e:
                raise DatabaseUnavailable(f"cannot reach Postgres at {self.where}: {_first_line(e)}") from e
            old, self.pool = self.pool, ConnectionPool(self.url, open=True, **self._pool_args)
            self._down = False
        old.close(timeout=0)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        from psycopg_pool import PoolTimeout

        try:
            yield
        except PoolTimeout as e:
            try:  # every connection busy, or none can be made: only the second needs a new pool
                self._psycopg.connect(self.url, autocommit=True, connect_timeout=3).close()
            except self._psycopg.Error:
                self._down = True
            raise DatabaseUnavailable(f"Postgres at {self.where} did not answer in time: {_first_line(e)}") from e
        except self._psycopg.OperationalError as e:
            self._down = True
            raise DatabaseUnavailable(f"cannot reach Postgres at {self.where}: {_first_line(e)}") from e
        except self._psycopg.Error as e:
            raise StorageError(f"Postgres: {_first_line(e)}") from e

    def execute_script(self, sql: str) -> None:
        if sql == pg_sql.BEGIN:
            with self._errors():
                if self._down:
                    self._recover()
                conn = self.pool.getconn()
                try:
                    conn.execute(sql)
                except BaseException:
                    self.pool.putconn(conn)
                    raise
            self._local.conn = conn
            return
        if sql in (pg_sql.COMMIT, pg_sql.ROLLBACK):
            conn, self._local.conn = getattr(self._local, "conn", None), None
            if conn is None:
                return
            try:
                with self._errors():
                    conn.execute(sql)
            finally:
                self.pool.putconn(conn)
            return
        with self._errors(), self._connection() as conn:
            conn.execute(sql)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._errors(), self._connection() as conn:
            cur = conn.execute(sql, tuple(params))
            return cur.fetchall() if cur.description else []

    def knn(self, sql: str, params: Sequence[Any], ef_search: int, exact: bool) -> list[tuple]:
        """A nearest-neighbour statement with HNSW's ``ef_search`` and iterative scans set
        for it alone; ``exact`` scans every row instead of the index."""
        with self._errors(), self._connection() as conn, conn.transaction():
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true), "
                         "set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                         "set_config('enable_indexscan', %s, true)",
                         (str(int(ef_search)), "off" if exact else "on"))
            return conn.execute(sql, tuple(params)).fetchall()

    def close(self) -> None:
        conn, self._local.conn = getattr(self._local, "conn", None), None
        if conn is not None:
            self.pool.putconn(conn)
        self.pool.close()


# -- the two legs ----------------------------------------------------------------------------
def _chunks(store: PostgresStore) -> int:
    """How many chunks there are: the planner's estimate once ANALYZE has run (cheap at a
    million), else a count."""
    est = store.query("SELECT reltuples::bigint FROM pg_class WHERE oid = 'chunks'::regclass")
    if est and est[0][0] is not None and est[0][0] >= 0:
        return int(est[0][0])
    return int(store.query(pg_sql.COUNT_CHUNKS)[0][0])


def vector_candidates(store: PostgresStore, qvec: np.ndarray, n: int, f: Filters,
                      ef_search: int) -> list[tuple[int, float]]:
    """``(chunk_id, cosine similarity)``, best first, at most ``n``: HNSW with iterative
    scans (a filtered search still returns ``n`` when they exist), exhaustive below
    ``EXACT_BELOW`` chunks or when the index comes back short."""
    vec = pg_dialect.vector_param(qvec)
    if f.active:
        where, params = filters_sql.where(f, pg_dialect)
        within = int(store.query(pg_sql.COUNT_ALLOWED.format(where=where), params)[0][0])
        statement, args = pg_sql.KNN_WITHIN.format(where=where), (vec, *params, n)
    else:
        within = _chunks(store)
        statement, args = pg_sql.KNN, (vec, n)
    if within == 0:
        return []
    exact = within < EXACT_BELOW
    rows = store.knn(statement, args, ef_search, exact)
    if not exact and len(rows) < n:
        rows = store.knn(statement, args, ef_search, True)
    return [(int(r), 1.0 - float(d)) for r, d in rows]


def lexical_candidates(store: PostgresStore, parsed: syntax.Parsed, n: int,
                       f: Filters) -> list[tuple[int, float]]:
    """``(chunk_id, ts_rank_cd)``, best first, at most ``n``."""
    q = syntax.tsquery_literal(parsed)
    if q is None:
        return []
    where, params = filters_sql.where(f, pg_dialect) if f.active else (pg_sql.TRUE, [])
    rows = store.query(pg_sql.FTS.format(where=where), (q, *params, n))
    return [(int(r), float(s)) for r, s in rows]
