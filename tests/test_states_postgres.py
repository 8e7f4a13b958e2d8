"""The stateful Library test (test_states.py) on Postgres with pgvector: the same machine, rules
and model of the library, each example on a fresh database. Left out are the rules about
SQLite files (export and import of an index file, merging a bundled index file, importing
another model's file), which this store has no counterpart for; in their place the database
checks are Postgres's: every chunk has its words and its vector or is marked pending, nothing
is orphaned."""

from __future__ import annotations

import inspect
import shutil
import tempfile
from pathlib import Path

from hypothesis.stateful import RULE_MARKER, RuleBasedStateMachine, invariant, run_state_machine_as_test

import test_states
from readingroom import Library
from test_states import LibraryStates, Model, machine_settings, shared  # noqa: F401 - shared: the fixture


class PostgresLibraryStates(LibraryStates):
    merge_bundle = export = import_export = import_another_models_index = None  # SQLite files only

    def __init__(self, shared, url: str):  # noqa: F811 - the fixture's name, as a parameter
        RuleBasedStateMachine.__init__(self)
        self.shared = shared
        self.embedder = shared.embedder
        self.dir = Path(tempfile.mkdtemp(prefix="states-pg-"))
        self.path = url
        self.lib = Library.open(url, embedder=self.embedder)
        assert self.lib.index.store.kind == "postgres"
        self.model = Model()
        self.snapshots = []

    def teardown(self):
        self.lib.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def q(self, statement: str, params=()) -> list[tuple]:
        """The machine's own fixed checks are written with SQLite's ``?``."""
        return self.lib.index.store.query(statement.replace("?", "%s"), params)

    @invariant()
    def database_is_whole(self):
        q = self.q
        # Words first, meaning after: a chunk has its vector exactly when it is marked embedded.
        assert not q("SELECT 1 FROM chunks WHERE (embedding IS NULL) = embedded OR tsv IS NULL")
        assert not q("SELECT 1 FROM chunks c WHERE c.text ~ '[[:alnum:]]' AND length(c.tsv) = 0")
        assert not q("SELECT 1 FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)")
        assert not q("SELECT 1 FROM doc_tags WHERE doc_id NOT IN (SELECT id FROM documents)")
        assert not q("SELECT 1 FROM documents WHERE id NOT IN (SELECT doc_id FROM chunks)")
        assert not q("SELECT 1 FROM meta WHERE key = 'unfinished'")
        assert self.lib.index.integrity() == "ok"

    @invariant()
    def status_counts_the_tables(self):
        super().status_counts_the_tables()  # the same counts, pending set and reasons as on SQLite
        s = self.lib.status()
        assert s["storage"] == "postgres" and s["bundle_version"] is None
        assert s["search"]["state"] == "ready"  # nothing to load: Postgres searches


def test_every_sequence_of_operations_leaves_a_whole_postgres_library_that_answers(shared, postgres):  # noqa: F811
    run_state_machine_as_test(lambda: PostgresLibraryStates(shared, postgres.new_database()),
                              settings=machine_settings())


def _rules(cls) -> set[str]:
    return {name for name, member in inspect.getmembers(cls) if hasattr(member, RULE_MARKER)}


def test_the_rules_left_out_are_only_the_sqlite_file_ones():
    assert len(_rules(PostgresLibraryStates)) >= 15
    assert _rules(LibraryStates) - _rules(PostgresLibraryStates) == {
        "merge_bundle", "export", "import_export", "import_another_models_index"}
    assert test_states.LibraryStates is LibraryStates
