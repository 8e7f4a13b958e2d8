"""The Postgres store's own faults and edges, on a real Postgres 18 with pgvector: a wrong URL,
a stopped server, pgvector not installable, another model's index, HNSW and exact scans, a
filtered search that still returns k, and the CLI on Postgres (index, search, ask, similar,
status, reindex) with export to the page's file."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from helpers import OtherModel, run
from readingroom import Library, NewDocument
from readingroom.errors import DatabaseUnavailable, ExtensionMissing
from readingroom.records import Filters
from readingroom.search.reads import hits_for, vector_candidates
from readingroom.store import pg_dialect, pg_sql, postgres as pg

DOCS = [NewDocument(f"doc{i}.md", text=f"# Part {i}\n\nKettle number {i} descales monthly with citric acid; "
                    f"teapot {i % 3} is glazed.", meta={"tags": ["odd" if i % 2 else "even"]}) for i in range(30)]


def test_a_wrong_url_or_a_stopped_server_is_a_typed_error(postgres):
    with pytest.raises(DatabaseUnavailable, match=r"cannot reach Postgres at 127\.0\.0\.1:1/nowhere"):
        Library.open("postgresql://postgres@127.0.0.1:1/nowhere")
    with pytest.raises(DatabaseUnavailable, match="does not exist"):
        Library.open(postgres.url("no_such_database"))


def test_pgvector_missing_says_how_to_install_it(postgres):
    postgres.psql("postgres", "DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    postgres.psql("postgres", "DROP DATABASE IF EXISTS novector")
    postgres.psql("postgres", "CREATE DATABASE novector TEMPLATE template0 OWNER reader")
    with pytest.raises(ExtensionMissing) as e:
        Library.open(f"postgresql://reader@127.0.0.1:{postgres.port}/novector")
    assert "pgvector is not available" in str(e.value) and "CREATE EXTENSION vector" in str(e.value)
    assert e.value.kind == "extension_missing"


def test_another_models_index_is_model_mismatch_and_answers_by_words(postgres, embedder):
    url = postgres.new_database()
    lib = Library.open(url, embedder=embedder)
    run(lib.add(DOCS[:3]))
    lib.close()
    other = Library.open(url, embedder=OtherModel())
    assert other.status()["mismatch"] and "model_id" in other.index.mismatch
    r = run(other.retrieve("kettle descales"))
    assert r.reason == "model_mismatch" and r.results
    out = run(other.add([NewDocument("x.md", text="another")]))
    assert out[0].status == "error" and out[0].error["type"] == "model_mismatch"
    other.close()


@pytest.fixture(scope="module")
def thirty(postgres, embedder):
    lib = Library.open(postgres.new_database(), embedder=embedder)
    run(lib.add(DOCS))
    yield lib
    lib.close()


def test_hnsw_and_exact_scans_agree_and_a_filter_still_returns_k(thirty, embedder):
    store = thirty.index.store
    q = run(embedder.embed(["descaling a kettle"]))[0]
    exact = store.knn(pg_sql.KNN, (pg_dialect.vector_param(q), 10), 100, True)
    literal = pg_sql.KNN.replace("%s::vector", f"'{pg_dialect.vector_param(q)}'::vector").replace("%s", "10")
    with store.pool.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")  # 30 rows: make the planner take the index
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + literal))
        approx = conn.execute(literal).fetchall()
    assert "Index Scan using chunks_embedding" in plan
    assert [r[0] for r in exact] == [r[0] for r in approx] and len(exact) == 10
    hits = vector_candidates(store, q, 8, Filters(tags=("odd",)))
    assert len(hits) == 8
    odd = {d.id for d in thirty.documents() if int(d.name[3:-3]) % 2}
    rows = {h.chunk_id: h.doc_id for h in hits_for(store, [c for c, _ in hits]).values()}
    assert set(rows.values()) <= odd
    sims = [s for _, s in hits]
    assert sims == sorted(sims, reverse=True)
    vecs = {c: thirty.index.vector(c) for c in rows}
    assert np.allclose([float(vecs[c] @ q) for c, _ in hits], sims, atol=1e-5)


def test_similar_neighbours_and_delete_on_postgres(thirty):
    cid = thirty.index.store.query("SELECT min(id) FROM chunks")[0][0]
    near = thirty.similar(cid, 5)
    assert len(near) == 5 and cid not in [h.chunk_id for h in near]
    assert [h.chunk_id for h in thirty.neighbours(cid, 1, 1)] == [cid]
    assert thirty.index.integrity() == "ok"
    # One document by its id (the page's list after an add), as the whole list has it.
    listed = thirty.documents()
    assert thirty.documents([listed[3].id, -1, listed[0].id]) == [listed[3], listed[0]]


def test_cli_on_postgres_with_a_workspace_file_and_export_to_the_page_file(postgres, cli, tmp_path):
    url = postgres.new_database()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tea.md").write_text("# Tea\n\nGreen tea is steamed; black tea is oxidised.\n")
    (docs / "fan.txt").write_text("The controller reports error code E4711 when the cooling fan stalls.\n")
    (tmp_path / "readingroom.toml").write_text(f'database = "{url}"\n[search]\nweights = [1.0, 1.0]\n')
    assert "2 indexed" in cli("index", "docs").stdout
    out = cli("search", '"green tea" -coffee').stdout
    assert "tea.md" in out and "fan.txt" not in out
    status = cli("status").stdout
    assert "documents: 2" in status and "postgresql://127.0.0.1" in status and "@" not in status
    cli("export", "page.sqlite")
    with sqlite3.connect(tmp_path / "page.sqlite") as db:
        assert db.execute("SELECT count(*) FROM documents").fetchone()[0] == 2
        assert dict(db.execute("SELECT key, value FROM meta"))["dim"] == "384"
    on_file = cli("--index", "page.sqlite", "search", "E4711").stdout
    assert on_file.splitlines()[0].split()[2].endswith("fan.txt")
    assert cli("--index", "page.sqlite", "status").stdout.count("documents: 2") == 1


def test_cli_ask_similar_and_reindex_on_postgres(postgres, cli, tmp_path):
    import json

    import psycopg

    url = postgres.new_database()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fan.txt").write_text("The controller reports error code E4711 when the cooling fan stalls. "
                                  "Replace the fan within a week.\n")
    (docs / "tea.md").write_text("# Tea\n\nGreen tea is steamed; black tea is oxidised.\n")
    assert "2 indexed" in cli("--db", url, "index", "docs").stdout
    answer = json.loads(cli("--db", url, "ask", "Which error code means the cooling fan stalled?", "--json").stdout)
    assert answer["covered"] and "E4711" in answer["quick"][0]["text"]
    assert answer["quick"][0]["doc_name"].endswith("fan.txt")
    assert "E4711" in cli("--db", url, "ask", "Which error code means the cooling fan stalled?").stdout
    fan = json.loads(cli("--db", url, "search", "E4711", "--json").stdout)["results"][0]
    similar = cli("--db", url, "similar", str(fan["chunk_ids"][0]), "--k", "1").stdout
    assert "tea.md" in similar and "fan.txt" not in similar
    # an index made with another model: status says so, reindex re-embeds it, then all is well
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("UPDATE meta SET value = 'someone/else' WHERE key = 'model_id'")
    assert "run `readingroom reindex`" in cli("--db", url, "status").stdout
    assert cli("--db", url, "reindex", "--quiet").stdout.startswith("re-embedded 2 chunks of 2 documents")
    assert "mismatch" not in cli("--db", url, "status").stdout
    assert "nothing to do" in cli("--db", url, "reindex").stdout


def test_cli_with_a_stopped_or_wrong_server_exits_2_with_one_line(cli):
    p = cli("--db", "postgresql://postgres@127.0.0.1:1/x", "search", "tea", check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    assert "cannot reach Postgres at 127.0.0.1:1/x" in p.stderr


def test_statistics_are_refreshed_after_a_bulk_add(postgres, embedder, monkeypatch):
    import readingroom.library as library_module

    monkeypatch.setattr(library_module, "ANALYZE_AFTER", 5)
    lib = Library.open(postgres.new_database(), embedder=embedder)
    count = "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'chunks'"
    run(lib.add(DOCS[:3]))
    assert lib.index.store.query(count)[0][0] == 0
    run(lib.add(DOCS[3:6]))  # 6 chunks since the start
    assert lib.index.store.query(count)[0][0] == 1
    assert lib.index.store.query("SELECT reltuples FROM pg_class WHERE relname = 'chunks'")[0][0] == 6
    lib.close()


def test_a_write_by_another_process_is_seen_by_the_words_kept_in_memory(postgres, embedder):
    url = postgres.new_database()
    reader, writer = Library.open(url, embedder=embedder), Library.open(url, embedder=embedder)
    run(writer.add(DOCS[:2]))
    assert run(reader.retrieve("zanzibar", {"mode": "lexical"})).results == []
    assert reader.index.lexical_index() is not None  # BM25's lengths and postings now kept
    run(writer.add([NewDocument("zanzibar.md", text="Zanzibar kettles are descaled yearly.")]))
    r = run(reader.retrieve("zanzibar", {"mode": "lexical"}))
    assert [s.doc_name for s in r.results] == ["zanzibar.md"]
    writer.delete(next(d.id for d in writer.documents() if d.name == "zanzibar.md"))
    assert run(reader.retrieve("zanzibar", {"mode": "lexical"})).results == []
    reader.close()
    writer.close()


def test_words_first_on_postgres_a_half_embedded_document_is_searched_by_words_and_finished(
        postgres, embedder, tmp_path):
    """The same flag as SQLite's: stored by its words, pending chunks have no vector and the
    vector leg skips them (HNSW and exact), reads say what is covered, an export keeps them
    pending, and the next pass embeds each once."""
    from readingroom.ingest import add as ingest
    from readingroom.errors import EmbedderError
    from readingroom.store.export import to_sqlite

    class Once:
        model_id, dim, max_tokens = embedder.model_id, embedder.dim, embedder.max_tokens

        def __init__(self):
            self.calls = 0

        async def embed(self, texts):
            self.calls += 1
            if self.calls > 1:
                raise EmbedderError("The embedding model stopped.")
            return await embedder.embed(texts)

    lib = Library.open(postgres.new_database(), embedder=embedder)
    outcomes = ingest.add_words(lib.index, DOCS[:6])
    assert [o.status for o in outcomes] == ["added"] * 6
    run(ingest.embed_pending(lib.index, Once(), size=4))
    q = lib.index.store.query
    pending = {int(r[0]) for r in q("SELECT id FROM chunks WHERE NOT embedded")}
    with_vec = {int(r[0]) for r in q("SELECT id FROM chunks WHERE embedding IS NOT NULL")}
    assert len(pending) == 2 and len(with_vec) == 4 and not pending & with_vec
    assert lib.index.integrity() == "ok"
    qvec = run(embedder.embed(["kettle citric acid"]))[0]
    for exact in (False, True):
        rows = lib.index.store.knn(pg_sql.KNN, (pg_dialect.vector_param(qvec), 10), 40, exact)
        assert {int(r[0]) for r in rows} == with_vec
    words = run(lib.retrieve("teapot glazed", {"mode": "lexical", "k": 10, "cap_key": None}))
    assert {c for s in words.results for c in s.chunk_ids} & pending
    r = run(lib.retrieve("kettle descales")).to_dict()
    assert r["stats"]["meaning"]["pending_chunks"] == 2 and r["stats"]["meaning"]["message"]
    assert lib.status()["pending"]["pending_chunks"] == 2
    out = tmp_path / "copy.sqlite"
    to_sqlite(lib.index, out)
    copy = Library.open(out, embedder=embedder)
    assert copy.status()["pending"]["pending_chunks"] == 2
    assert run(copy.embed_pending()).embedded == 2 and copy.status()["pending"] is None
    copy.close()
    assert run(lib.embed_pending()).embedded == 2
    assert lib.status()["pending"] is None and lib.index.integrity() == "ok"
    assert q("SELECT count(*) FROM chunks WHERE embedding IS NULL")[0][0] == 0
    lib.close()


def test_a_library_from_before_term_counts_gets_them_and_ranks_as_before(postgres, embedder):
    """BM25 reads a term's counts from ``term_counts`` (Postgres computes it from the tsvector);
    a library written before that column is brought up to date when it is opened, and a word
    in a heading and repeated in the text is weighted as FTS5 weights it."""
    url = postgres.new_database()
    lib = Library.open(url, embedder=embedder)
    run(lib.add(DOCS[:6] + [NewDocument("kettle.md", text="# Kettle kettle\n\nThe kettle, the kettle, the kettle.")]))
    kettle = pg_dialect.term_postings(lib.index.store, "kettl")
    counts = dict(zip(kettle[0].tolist(), kettle[1].tolist()))
    unnested = lib.index.store.query(
        "SELECT c.id, cardinality(array_positions(u.weights, 'A')) + 0.5 * cardinality(array_positions(u.weights, 'B'))"
        " FROM chunks c, unnest(c.tsv) u WHERE u.lexeme = 'kettl'")
    assert counts == {i: float(f) for i, f in unnested} and len(counts) == 7
    assert sorted(counts.values())[-1] > 5  # kettle.md: in its text five times, in its heading twice
    before = [(h.doc_name, round(h.score, 9)) for h in run(lib.retrieve("kettle", {"mode": "lexical"})).results]
    lib.index.store.execute_script("ALTER TABLE chunks DROP COLUMN term_counts")
    lib.close()
    again = Library.open(url, embedder=embedder)
    assert again.index.store.query(pg_sql.HAS_TERM_COUNTS)
    after = [(h.doc_name, round(h.score, 9)) for h in run(again.retrieve("kettle", {"mode": "lexical"})).results]
    assert after == before and before[0][0] == "kettle.md"
    again.close()
