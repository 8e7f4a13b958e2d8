"""A shipped index merged into the user's library as its bundled set, natively."""

import pytest

from helpers import OtherModel, run
from readingroom import Library, NewDocument
from readingroom.errors import ModelMismatch

MINE = NewDocument("my-notes.md", text="# Garden\n\nTomatoes need sun and regular watering.")


def _bundle(path, embedder, docs):
    lib = Library.open(path, embedder=embedder)
    run(lib.add(docs))
    lib.close()
    return path


V1 = [NewDocument("tea.txt", text="Green tea is steamed; black tea is oxidised."),
      NewDocument("coffee.md", text="# Coffee\n\nEspresso is brewed under pressure.")]
V2 = [NewDocument("tea.txt", text="Oolong tea is partly oxidised, between green and black."),
      NewDocument("cocoa.txt", text="Cocoa beans are fermented, dried and roasted."),
      NewDocument("my-notes.md", text="The bundle's own notes, which the user's copy overrides.")]


def test_bundle_is_kept_apart_from_the_users_documents_and_replaced_by_a_new_version(tmp_path, embedder):
    lib = Library.open(tmp_path / "mine.sqlite", embedder=embedder)
    run(lib.add([MINE]))
    m1 = lib.merge_bundle_file(_bundle(tmp_path / "v1.sqlite", embedder, V1), "v1")
    assert (m1.documents, m1.replaced, m1.skipped) == (2, 0, [])
    assert {d.name for d in lib.documents()} == {"my-notes.md", "tea.txt", "coffee.md"}
    r = run(lib.retrieve("espresso machine pressure"))
    assert r.results[0].doc_name == "coffee.md" and r.evidence[0].vector_rank == 1  # vectors came along
    r = run(lib.retrieve("bundled tea", {"filters": {"source_types": ["bundle"]}}))
    assert {s.doc_name for s in r.results} <= {"tea.txt", "coffee.md"}

    m2 = lib.merge_bundle_file(_bundle(tmp_path / "v2.sqlite", embedder, V2), "v2")
    assert (m2.documents, m2.replaced, m2.skipped) == (2, 2, ["my-notes.md"])
    assert {d.name for d in lib.documents()} == {"my-notes.md", "tea.txt", "cocoa.txt"}
    assert "Tomatoes" in run(lib.retrieve("tomatoes sun")).results[0].text  # the user's copy won
    assert run(lib.retrieve("espresso", {"mode": "lexical"})).results == []  # v1's coffee is gone
    assert run(lib.retrieve("oolong")).results[0].doc_name == "tea.txt"
    store = lib.index.store
    n_chunks = lib.index.counts()[1]
    assert store.query("SELECT count(*) FROM chunks_vec")[0][0] == n_chunks
    assert store.query("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'espresso'")[0][0] == 0
    assert lib.index.integrity() == "ok" and lib.status()["bundle_version"] == "v2"


def test_a_bundle_from_another_model_is_refused_and_nothing_changes(tmp_path, embedder):
    other = Library.open(tmp_path / "other.sqlite", embedder=OtherModel(dim=8))
    run(other.add(V1))
    other.close()
    lib = Library.open(tmp_path / "mine.sqlite", embedder=embedder)
    run(lib.add([MINE]))
    with pytest.raises(ModelMismatch, match="other/model"):
        lib.merge_bundle_file(tmp_path / "other.sqlite", "v1")
    assert lib.index.counts() == (1, 1) and lib.status()["bundle_version"] is None
