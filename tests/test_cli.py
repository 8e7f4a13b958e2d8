"""The CLI on real files in a temp folder, as a user runs it (a subprocess per command)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest

from helpers import ROOT


def make_pdf(path, pages):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    pdf.output(str(path))


@pytest.fixture
def notes(tmp_path):
    d = tmp_path / "notes"
    d.mkdir()
    (d / "cats.md").write_text("# Cats\n\nCats purr when they are content and safe.\n")
    (d / "dogs.html").write_text("<html><head><script>steal()</script><style>p{}</style></head>"
                                 "<body><h1>Dogs</h1><p>Dogs bark at the mail carrier.</p></body></html>")
    (d / "error.txt").write_text("Firmware error code E4711 means the fan has stalled.")
    make_pdf(d / "manual.pdf", ["Page one is about installation.", "Page two explains the warranty terms."])
    return d


def test_index_search_recall_status(cli, notes, tmp_path):
    out = cli("index", str(notes)).stdout
    assert "4 indexed, 0 unchanged" in out
    r = json.loads(cli("search", "warranty", "--json").stdout)
    top = r["results"][0]
    assert top["doc_name"].endswith("manual.pdf") and top["page"] == 2
    r = json.loads(cli("search", "why do canines make noise", "--json").stdout)
    assert r["results"][0]["doc_name"].endswith("dogs.html")
    assert "steal()" not in json.dumps(r)  # scripts are not text
    assert "E4711" in cli("recall", "E4711", "--budget", "200").stdout
    s = json.loads(cli("status", "--json").stdout)
    assert (s["documents"], s["chunks"], s["model"]["dim"], s["stale"]) == (4, 5, 384, [])  # the PDF is two pages
    assert cli("search", "purring", "--type", "md").stdout.count("cats.md") >= 1


def test_reindex_is_idempotent_and_prune_removes_deleted_files(cli, notes):
    cli("index", str(notes))
    assert "0 indexed, 4 unchanged" in cli("index", str(notes)).stdout
    (notes / "cats.md").write_text("# Cats\n\nCats sleep sixteen hours a day.\n")
    (notes / "error.txt").unlink()
    s = json.loads(cli("status", "--json").stdout)
    assert sorted(x.split(":")[0] for x in s["stale"]) == ["changed", "missing"]
    out = cli("index", str(notes), "--prune").stdout
    assert "1 indexed, 2 unchanged, 1 pruned" in out
    s = json.loads(cli("status", "--json").stdout)
    assert (s["documents"], s["stale"]) == (3, [])


def test_workspaces_are_isolated(cli, notes, tmp_path):
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    cli("--index", str(a), "index", str(notes / "cats.md"))
    cli("--index", str(b), "index", str(notes / "error.txt"))
    ra = json.loads(cli("--index", str(a), "search", "E4711 fan", "--json").stdout)
    assert all(s["doc_name"].endswith("cats.md") for s in ra["results"])
    assert json.loads(cli("--index", str(b), "status", "--json").stdout)["documents"] == 1


def test_similar_export_import(cli, notes, tmp_path):
    cli("index", str(notes))
    lines = cli("similar", "1", "--k", "2").stdout.strip().splitlines()
    assert len(lines) == 2 and all(not line.startswith("1\t") for line in lines)
    cli("export", str(tmp_path / "copy.sqlite"))
    cli("--index", str(tmp_path / "other.sqlite"), "import", str(tmp_path / "copy.sqlite"))
    s = json.loads(cli("--index", str(tmp_path / "other.sqlite"), "status", "--json").stdout)
    assert s["documents"] == 4


@pytest.mark.parametrize("args, message", [
    (("search", "x"), "no index at"),
    (("similar", "1"), "no index at"),
    (("index", "does-not-exist"), "no such file or folder"),
])
def test_errors_are_one_line_and_non_zero(cli, args, message):
    p = cli(*args, check=False)
    assert p.returncode != 0
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_bad_files_are_reported_and_the_rest_indexed(cli, tmp_path):
    d = tmp_path / "bad"
    d.mkdir()
    (d / "ok.txt").write_text("A fine note about tea.")
    (d / "binary.txt").write_bytes(b"\x00\x01\x02\x03")
    (d / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    locked = d / "locked.md"
    locked.write_text("secret")
    locked.chmod(0)
    p = cli("index", str(d), check=False)
    locked.chmod(0o644)
    assert p.returncode == 1
    assert "binary.txt looks like a binary file" in p.stderr
    assert "broken.pdf" in p.stderr
    if os.geteuid() != 0:  # root reads any file
        assert "locked.md" in p.stderr
    assert "1 indexed" in p.stdout or "2 indexed" in p.stdout
    # one line per problem, without blank lines between them or a PDF library's own warnings
    # ("EOF marker not found"); a progress line is rewritten in place (\r) and ended before
    # the next message. Read as bytes: text mode would turn each \r into a line break.
    raw = subprocess.run([sys.executable, "-m", "readingroom", "--index", str(tmp_path / "again.sqlite"), "index", str(d)],
                         env=cli.env, capture_output=True, timeout=300).stderr.decode()
    assert raw.endswith("\n") and "\n\n" not in raw, raw
    for line in raw.split("\n")[:-1]:
        shown = line.split("\r")[-1]
        assert shown.startswith(("error: ", "note: ", "skipped: ")) or "chunks/s" in shown, raw


def test_a_model_mismatch_is_refused(cli, notes, tmp_path):
    cli("index", str(notes / "cats.md"))
    db = apsw.Connection(str(tmp_path / ".readingroom" / "index.sqlite"))
    db.execute("UPDATE meta SET value = 'someone/else' WHERE key = 'model_id'")
    db.close()
    p = cli("index", str(notes / "error.txt"), check=False)
    assert p.returncode == 1 and "re-index" in p.stderr
    p = cli("search", "cats", "--json")  # searching still works, lexically, and says why
    assert json.loads(p.stdout)["reason"] == "model_mismatch"
    assert "run `readingroom reindex`" in cli("status").stdout
    out = cli("reindex", "--quiet").stdout
    assert out.startswith("re-embedded 1 chunks of 1 documents")
    assert "mismatch" not in cli("status").stdout
    cli("index", str(notes / "error.txt"))
    hit = json.loads(cli("search", "fan stalled", "--json").stdout)
    assert hit["reason"] is None and hit["results"][0]["doc_name"].endswith("error.txt")
    assert "nothing to do" in cli("reindex").stdout


@pytest.mark.parametrize("moment", ["between", "during", "half"])
def test_interrupted_indexing_leaves_a_consistent_index_and_can_be_rerun(cli, tmp_path, moment):
    """Killed (SIGKILL) between two files, in the middle of one before its words were stored,
    or with one half-embedded: every chunk has its vector or is marked pending (never a vector
    without its chunk), `status` names every file the run had not stored yet and what is
    still to embed, and running `index` again finishes it: nothing lost, nothing twice."""
    d = tmp_path / "many"
    d.mkdir()
    names = [f"n{i:02}.txt" for i in range(12)]
    for i, name in enumerate(names):
        (d / name).write_text(" ".join(f"Note {i} sentence {j} about topic {i}." for j in range(60)))
    stored = 5
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "kill_cli.py"), moment, str(stored),
                        "index", str(d)], cwd=tmp_path, env=cli.env, capture_output=True, timeout=300)
    assert p.returncode == -signal.SIGKILL, p.stderr
    index = tmp_path / ".readingroom" / "index.sqlite"
    db = apsw.Connection(str(index))
    import sqlite_vec

    db.enable_load_extension(True)
    db.load_extension(sqlite_vec.loadable_path())
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    docs, chunks, vecs, pending = db.execute(
        "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), "
        "(SELECT count(*) FROM chunks_vec), (SELECT count(*) FROM chunks WHERE embedded = 0)").fetchall()[0]
    half = moment == "half"
    assert docs == stored + half and chunks == vecs + pending
    assert (pending > 0) == half and (not half or vecs > 0)
    assert not db.execute("SELECT 1 FROM chunks_vec v WHERE NOT EXISTS "
                          "(SELECT 1 FROM chunks c WHERE c.id = v.rowid AND c.embedded = 1)").fetchall()
    orphans = db.execute("SELECT count(*) FROM documents d WHERE NOT EXISTS "
                         "(SELECT 1 FROM chunks c WHERE c.doc_id = d.id)").fetchall()[0][0]
    assert orphans == 0  # no document without its chunks
    db.close()
    s = json.loads(cli("status", "--json").stdout)
    assert [Path(n).name for n in s["unfinished"]] == names[stored + half:]
    assert "did not finish indexing" in cli("status").stdout
    if half:
        assert [Path(x["name"]).name for x in s["pending"]["documents"]] == [names[stored]]
        assert s["pending"]["pending_chunks"] == pending
        assert f"of {names[stored]} so far" in cli("status").stdout
        hit = json.loads(cli("search", f"Note {stored} sentence", "--json").stdout)
        assert hit["stats"]["meaning"]["pending_chunks"] == pending
    out = cli("index", str(d)).stdout
    assert f"{len(names) - stored - half} indexed, {stored + half} unchanged" in out
    after = json.loads(cli("status", "--json").stdout)
    assert after["unfinished"] == [] and after["pending"] is None
    db = apsw.Connection(str(index))
    db.enable_load_extension(True)
    db.load_extension(sqlite_vec.loadable_path())
    ids = [r[0] for r in db.execute("SELECT id FROM chunks ORDER BY id")]
    vec_ids = [r[0] for r in db.execute("SELECT rowid FROM chunks_vec ORDER BY rowid")]
    assert ids == vec_ids and len(ids) >= chunks  # the half-embedded file's chunks kept, one vector each
    assert not db.execute("SELECT 1 FROM chunks WHERE embedded = 0").fetchall()
    db.close()

def test_every_format_is_indexed_and_unreadable_files_are_listed_as_skipped(cli, tmp_path):
    import formats

    folder = tmp_path / "library"
    folder.mkdir()
    for name, data, *_ in formats.good_files():
        (folder / name).write_bytes(data)
    (folder / "photo.bin").write_bytes(b"\x00\x01")
    (folder / "locked.docx").write_bytes(formats.encrypted_docx())
    proc = cli("index", str(folder), check=False)
    good = len(formats.good_files())
    assert f"{good} indexed, 0 unchanged, 0 pruned, 1 skipped, 1 failed" in proc.stdout
    assert f"skipped: {folder / 'photo.bin'}: .bin files are not read" in proc.stderr
    assert "locked.docx is protected by a password" in proc.stderr
    out = cli("search", "llama sanctuary donation", "--k", "1").stdout
    assert "deck.pptx · slide 2 (notes)" in out
    r = json.loads(cli("search", "Who manages Atlantis?", "--json").stdout)
    assert r["results"][0]["place"].startswith("budget.xlsx · sheet Q3 · rows ")


def test_the_progress_rate_counts_embedding_time_not_extraction(monkeypatch, capsys):
    from readingroom.cli import index as index_cli

    times = iter([10.0, 11.0, 12.0])  # a file read in 10 s, then embedded in 2 s
    monkeypatch.setattr(index_cli.time, "perf_counter", lambda: next(times))
    progress = index_cli.Progress(1, quiet=False)
    progress({"event": "prepared", "name": "big.docx", "chunks": 20})
    progress({"event": "chunks", "name": "big.docx", "done": 10, "total": 20})
    progress({"event": "chunks", "name": "big.docx", "done": 20, "total": 20})
    err = capsys.readouterr().err
    assert "[10.0 chunks/s]" in err and "20/20 chunks" in err
