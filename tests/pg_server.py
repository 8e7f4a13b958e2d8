"""The tests' Postgres: ``readingroom.bench.local_postgres`` (the bench starts the same one)."""

from readingroom.bench.local_postgres import TEMPLATE, LocalPostgres  # noqa: F401
