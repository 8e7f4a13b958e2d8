"""The library end to end on real SQLite + sqlite-vec + FTS5 and the real model."""

import apsw
import pytest

from helpers import OtherModel, run
from readingroom import Library, NewDocument, Options
from readingroom.errors import ExtensionMissing
from readingroom.store.index import Index, Provenance

BRCA = NewDocument("genetics.md", text="# Oncology\n\nBRCA1 mutation analysis in families with "
                   "hereditary ovarian and mammary tumours.\n")
BREAD = NewDocument("bread.txt", text="How to bake sourdough bread with a crisp crust: flour, water, salt.")
ERRORS = NewDocument("errors.txt", text="The device reports error code E4711 when the fan stalls.")


def test_query_by_meaning_finds_the_right_passage(library):
    run(library.add([BRCA, BREAD]))
    r = run(library.retrieve("breast cancer gene"))
    assert r.reason is None
    assert r.results[0].doc_name == "genetics.md"
    assert "BRCA1" in r.results[0].text
    top = r.evidence[0]
    assert top.vector_rank == 1 and top.vector_sim > 0.25 and top.lexical_rank is None


def test_exact_terms_found_by_the_lexical_leg(library):
    run(library.add([BRCA, BREAD, ERRORS]))
    r = run(library.retrieve("E4711"))
    assert r.results[0].doc_name == "errors.txt"
    assert r.evidence[0].lexical_rank == 1


def test_readding_unchanged_is_a_no_op_and_changed_replaces_atomically(library):
    [first] = run(library.add([BREAD]))
    [again] = run(library.add([BREAD]))
    assert (first.status, again.status) == ("added", "unchanged")
    changed = NewDocument("bread.txt", text="Rye bread needs a long, slow proof.")
    [third] = run(library.add([changed]))
    assert third.status == "replaced"
    assert library.index.counts() == (1, 1)
    store = library.index.store
    assert store.query("SELECT count(*) FROM chunks_vec")[0][0] == 1
    assert store.query("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'sourdough'")[0][0] == 0
    assert store.query("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'rye'")[0][0] == 1


def test_documents_by_id_are_the_listed_ones_in_the_order_asked(library):
    run(library.add([BRCA, BREAD, ERRORS]))
    listed = library.documents()
    assert [d.name for d in listed] == ["bread.txt", "errors.txt", "genetics.md"]
    by_name = {d.name: d for d in listed}
    wanted = [by_name["genetics.md"].id, 10**9, by_name["bread.txt"].id]
    assert library.documents(wanted) == [by_name["genetics.md"], by_name["bread.txt"]]
    assert library.documents([]) == []


def test_delete_removes_chunks_vectors_and_fts_rows(library):
    out = run(library.add([BRCA, BREAD]))
    assert library.delete(out[0].doc_id)
    store = library.index.store
    assert library.index.counts() == (1, 1)
    assert store.query("SELECT count(*) FROM chunks_vec")[0][0] == 1
    assert store.query("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'brca1'")[0][0] == 0
    assert library.index.integrity() == "ok"


def test_bad_documents_get_reasons_and_leave_the_rest(library):
    docs = [NewDocument("bin.txt", data=b"\x00\x01\x02binary"), NewDocument("ru.txt", data="Привет, мир".encode("cp1251")),
            NewDocument("empty.md", text="   \n"), NewDocument("u16.txt", data="hi".encode("utf-16-le")),
            NewDocument("zip.exe", text="MZ"), BREAD]
    out = run(library.add(docs))
    assert [o.status for o in out] == ["error"] * 5 + ["added"]
    assert [o.error["type"] for o in out[:5]] == ["not_text", "not_text", "empty_document", "not_text", "unsupported"]
    assert "not UTF-8" in out[1].error["message"]
    assert library.index.counts() == (1, 1)


def test_text_in_windows_1252_or_utf_16_is_read_and_says_how(library):
    """Excel's "CSV" on Western Windows is Windows-1252 (and ";"-separated where the comma is
    the decimal mark); its "Unicode text" is UTF-16 with a BOM. Both are read; the first says
    how it was read."""
    out = run(library.add([NewDocument("kasse.csv", data="Name;Stadt;Betrag\nMüller;Köln;1.234,50\n".encode("cp1252")),
                            NewDocument("export.txt", data="Tea and scones at four.".encode("utf-16")),
                            NewDocument("agencies.txt", data=b"Prince George\x9ds County and " + b"plain words " * 2000)]))
    assert [o.status for o in out] == ["added", "added", "added"], out
    assert out[0].notes == ("kasse.csv is not UTF-8; it was read as Windows-1252 (Western European) text",)
    assert not out[1].notes
    assert out[2].notes[0].endswith("and 1 byte that it does not define became \ufffd")  # one stray byte in 24 KB
    hit = run(library.retrieve("Müller Köln", {"k": 1})).results[0]
    assert hit.doc_name == "kasse.csv" and "| Müller | Köln | 1.234,50 |" in hit.text


class Broken:
    """An embedder whose worker has died: every call fails, as the page's does."""

    def __init__(self, like):
        self.model_id, self.dim, self.max_tokens = like.model_id, like.dim, like.max_tokens

    async def embed(self, texts):
        raise __import__("readingroom").EmbedderError("worker died")

    async def count_tokens(self, texts):
        return [1] * len(texts)


def test_a_failing_embedder_leaves_the_document_searchable_by_words_and_pending(library, embedder):
    run(library.add([BREAD]))

    broken = Library(library.index, Broken(embedder))
    [o] = run(broken.add([BRCA]))
    # Words first: stored and found by its words at once; its vector waits, and it says so.
    assert o.status == "added" and o.pending == o.chunks == 1 and "meaning search covers 0 %" in o.notes[-1]
    assert library.index.counts() == (2, 2) and library.index.integrity() == "ok"
    r = run(broken.retrieve("sourdough bread"))  # fail-open: lexical still answers
    assert r.reason == "embed_failed" and r.results[0].doc_name == "bread.txt"
    assert r.stats["meaning"]["documents"][0]["name"] == "genetics.md"
    assert run(broken.retrieve("BRCA1", {"mode": "lexical"})).results[0].doc_name == "genetics.md"
    assert run(library.embed_pending()).embedded == 1 and library.status()["pending"] is None


def test_a_name_only_a_half_embedded_document_holds_is_not_missing(library, embedder):
    """Words first: a document whose vectors are still pending is found by its words, so a name
    only it holds counts as mentioned, and asking about it is answered from it, not refused."""
    run(library.add([BREAD]))

    fan = NewDocument("fan.txt", text="The Kestrel fan controller reports error code E4711 when the fan stalls.")
    [o] = run(Library(library.index, Broken(embedder)).add([fan]))
    assert o.pending == o.chunks == 1
    a = run(library.ask("What does the Kestrel controller report when the fan stalls?"))
    cov = a.retrieval.stats["answer"]["coverage"]
    assert cov["missing"] == "" and a.covered and a.quick and a.quick[0].doc_name == "fan.txt"
    assert "E4711" in a.quick[0].text
    gone = run(library.ask("How do I reset the device with reset_fan_controller()?"))
    assert gone.retrieval.stats["answer"]["coverage"]["missing"] == "reset_fan_controller()"
    assert not gone.covered and "reset_fan_controller()" in gone.message


def test_empty_and_whitespace_queries_return_empty_at_once(library):
    for q in ("", "   \n\t "):
        r = run(library.retrieve(q))
        assert r.reason == "empty_query" and r.results == []


def test_huge_and_syntax_queries_do_not_raise(library):
    run(library.add([BRCA, BREAD]))
    r = run(library.retrieve("bread " * 20000))
    assert r.stats["query_truncated"] and r.results[0].doc_name == "bread.txt"
    for q in ['"unbalanced', "NEAR(", "-foo", "*", "^", "OR", "(x", "a:b", "\x00\x07"]:
        assert run(library.retrieve(q)).reason is None


def test_selective_filters_still_return_k_results(library):
    docs = [NewDocument(f"note{i:03}.txt", text=f"Note {i} about gardening and tomatoes, entry {i}.",
                        meta={"author": "Ada" if i % 50 == 0 else "Bob", "tags": ["garden"]})
            for i in range(200)]
    docs.append(NewDocument("other.txt", text="Tomatoes in the garden", meta={"author": "Ada"}))
    run(library.add(docs))
    opts = {"k": 5, "cap_key": None, "filters": {"metadata": {"author": "Ada"}}}
    r = run(library.retrieve("tomato garden", opts))
    names = {h.doc_name for h in r.evidence if h.dropped is None}
    assert len(names) == 5 and all(library_author(library, n) == "Ada" for n in names)
    r = run(library.retrieve("tomato garden", {"filters": {"tags": ["garden"], "doc_names": ["note007.txt"]}}))
    assert {s.doc_name for s in r.results} == {"note007.txt"}
    r = run(library.retrieve("tomato garden", {"filters": {"doc_types": ["pdf"]}}))
    assert r.results == [] and r.reason is None


def library_author(library, name):
    import json

    return json.loads(library.index.store.query("SELECT meta FROM documents WHERE name=?", (name,))[0][0])["author"]


def test_same_input_same_output(library):
    run(library.add([BRCA, BREAD, ERRORS]))
    a = run(library.retrieve("bread and genes")).to_dict()
    b = run(library.retrieve("bread and genes")).to_dict()
    # Where the query vector came from differs (the second is the first's, from the cache), as
    # the timings do; everything else is the same.
    assert [d["stats"].pop("query_vector")["source"] for d in (a, b)] == ["embedded", "cache"]
    for d in (a, b):
        d["stats"].pop("timings_ms")
    assert a == b


def test_similar_excludes_the_chunk_itself(library):
    run(library.add([BRCA, BREAD, ERRORS]))
    cid = library.index.store.query("SELECT id FROM chunks ORDER BY id LIMIT 1")[0][0]
    near = library.similar(cid, k=5)
    assert near and cid not in [h.chunk_id for h in near]
    assert near == sorted(near, key=lambda h: -h.vector_sim)


def test_model_mismatch_is_detected_and_answers_lexically(tmp_path, embedder):
    path = tmp_path / "idx.sqlite"
    lib = Library.open(path, embedder=embedder)
    run(lib.add([BREAD]))
    lib.close()

    other = Library.open(path, embedder=OtherModel())
    assert other.status()["mismatch"] and "other/model" in other.status()["mismatch"]
    r = run(other.retrieve("sourdough"))
    assert r.reason == "model_mismatch" and r.results[0].doc_name == "bread.txt"
    [o] = run(other.add([BRCA]))
    assert o.error["type"] == "model_mismatch"
    other.close()


def test_a_sqlite_without_sqlite_vec_is_a_typed_error():
    from readingroom._compat._not_in_pyodide import NativeStore

    store = NativeStore.__new__(NativeStore)
    store._db, store._apsw, store.kind, store.path = apsw.Connection(":memory:"), apsw, "memory", ":memory:"
    with pytest.raises(ExtensionMissing):
        Index(store, Provenance("m", 4))


def test_stats_report_every_stage(library):
    run(library.add([BREAD]))
    r = run(library.retrieve("bread", Options(k=3)))
    assert set(r.stats["timings_ms"]) >= {"embed", "vector", "lexical", "fuse", "rerank", "merge", "pack", "total"}
    assert "[1] bread.txt" in (run(library.get_context("bread")))


def test_citations_map_context_markers_to_results(library):
    run(library.add([BRCA, BREAD, ERRORS]))
    r = run(library.retrieve("bread crust", {"budget": 60})).to_dict()
    for c in r["citations"]:
        assert f"[{c['n']}]" in r["context"]
        if c["result"] is not None:
            assert r["results"][c["result"]]["chunk_ids"] == c["chunk_ids"]
