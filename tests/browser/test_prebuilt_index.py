"""Indexes made by the CLI open in the browser and answer exactly as the CLI does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from driver import BrowserDriver
from helpers import ROOT
from pages import wait_until

QUERIES = ["how do I catch an exception", "what does yield do in a function", "E4711 fan", "sourdough"]


def cli(*args, cwd, model_dir):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py_src"), "READINGROOM_MODEL_DIR": str(model_dir)}
    p = subprocess.run([sys.executable, "-m", "readingroom", *args], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_a_cli_built_index_gives_the_same_top5_in_the_browser(page, tmp_path, model_dir):
    import build

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "errors.md").write_text("# Exceptions\n\nUse try and except to catch an exception; "
                                     "finally always runs.\n\n## Fans\n\nError E4711 means the fan stalled.")
    (notes / "generators.txt").write_text("A function that contains yield is a generator: each "
                                          "yield hands a value back and pauses the function.")
    (notes / "bread.txt").write_text("Sourdough bread rises slowly with wild yeast.")
    cli("index", str(notes), cwd=tmp_path, model_dir=model_dir)
    exported = tmp_path / "export.sqlite"
    cli("export", str(exported), cwd=tmp_path, model_dir=model_dir)
    served = build.EMPTY_DIST / f"test-index-{os.getpid()}.sqlite"
    shutil.copyfile(exported, served)
    try:
        status = page.evaluate("(u) => window.readingroom.importIndex(u)", served.name)
    finally:
        served.unlink()
    assert (status["documents"], status["mismatch"]) == (3, None)
    # The search's in-memory legs load in the background after an import; answers are the
    # same while they load (FTS5 and vec0 answer) and after.
    assert status["search"]["state"] == "warming"
    browser = BrowserDriver(page)
    top = lambda r: [(s["doc_name"], s["chunk_ids"]) for s in r["results"][:5]]  # noqa: E731
    natives = {}
    for q in QUERIES:
        natives[q] = top(json.loads(cli("search", q, "--json", "--k", "5", cwd=tmp_path, model_dir=model_dir)))
        assert top(browser.query(q, {"k": 5})) == natives[q], q
    wait_until(page, "() => window.readingroom.status().then((s) => s.search.state === 'ready')")
    search = page.evaluate("() => window.readingroom.status()")["search"]
    assert search["message"] is None and search["load_ms"]["warm_up"] >= 0
    for q in QUERIES:
        assert top(browser.query(q, {"k": 5})) == natives[q], q


WATCH_IMPORT = """() => {
    window.__importSeen = [];
    const box = document.getElementById('import');
    const bar = document.getElementById('import-bar');
    const note = () => window.__importSeen.push({hidden: box.hidden, max: bar.max,
        value: bar.hasAttribute('value') ? bar.value : null, text: document.getElementById('import-text').textContent});
    new MutationObserver(note).observe(box, {attributes: true, subtree: true, childList: true, characterData: true});
}"""


def test_open_index_file_button_imports_with_a_progress_bar_and_flags_another_model(page, tmp_path, model_dir):
    from readingroom import Library, NewDocument

    from helpers import run
    from pages import screenshot
    from test_ui import OtherModel

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ferry.md").write_text("# Ferry\n\nThe ferry to the island leaves at seven and returns at noon.")
    (notes / "bees.txt").write_text("The beehives are checked for the queen every ten days in summer.")
    cli("index", str(notes), cwd=tmp_path, model_dir=model_dir)
    exported = tmp_path / "team.sqlite"
    cli("export", str(exported), cwd=tmp_path, model_dir=model_dir)

    page.evaluate(WATCH_IMPORT)
    with page.expect_file_chooser() as chooser:
        page.click("#open-index")
    chooser.value.set_files(str(exported))
    page.wait_for_function("() => /^Opened team\\.sqlite: 2 documents/.test(document.getElementById('activity').textContent)",
                           timeout=120_000)
    seen = page.evaluate("() => window.__importSeen")
    size = exported.stat().st_size
    shown = [s for s in seen if not s["hidden"]]
    # A real <progress> filled up to the file's size, then the panel went away.
    assert any(s["max"] == size and s["value"] == size for s in shown), seen
    assert any("MB" in s["text"] for s in shown), seen
    assert seen[-1]["hidden"] and page.locator("#import").is_hidden()
    assert page.locator("#mismatch").is_hidden()
    # textContent: rows off-screen are not laid out (content-visibility), so their innerText is empty
    rows = page.locator("#document-list .doc-row .name").all_text_contents()
    assert sorted(os.path.basename(n) for n in rows) == ["bees.txt", "ferry.md"]  # the CLI names files by path
    r = BrowserDriver(page).query("when does the ferry leave")
    assert r["reason"] is None and r["results"][0]["doc_name"].endswith("/ferry.md")
    screenshot(page, "index-file-opened")

    # An index made with another model opens too, with the mismatch message.
    other = tmp_path / "other.sqlite"
    lib = Library.open(str(other), embedder=OtherModel())
    run(lib.add([NewDocument("tides.md", text="# Tides\n\nSpring tides follow the full and new moon.")]))
    lib.close()
    with page.expect_file_chooser() as chooser:
        page.click("#open-index")
    chooser.value.set_files(str(other))
    banner = page.locator("#mismatch")
    banner.wait_for(state="visible", timeout=120_000)
    assert "indexed differently" in banner.inner_text() and "other-model" in banner.inner_text()
    page.wait_for_function("() => /^Opened other\\.sqlite: 1 document,/.test(document.getElementById('activity').textContent)",
                           timeout=120_000)
    screenshot(page, "index-file-other-model")

    # Not an index at all: the old library stays, and the message says why.
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database" * 100)
    with page.expect_file_chooser() as chooser:
        page.click("#open-index")
    chooser.value.set_files(str(junk))
    notice = page.locator("#notice")
    notice.wait_for(state="visible", timeout=120_000)
    assert "not an SQLite database" in notice.inner_text()
    assert page.evaluate("() => window.readingroom.status()")["documents"] == 1


def test_kept_postings_travel_in_the_index_file_and_follow_a_write_in_the_page(page, tmp_path, model_dir):
    """A large library's common words' postings are kept in the file (store/sqlite_postings.py).
    Here a small one's are kept and one word's row is altered on purpose (its counts swapped), so
    the ranking shows which postings the page read: the kept row, and after a document is added
    in the page, the kept row (still altered) with the new document's own count of the word,
    which the triggers followed in the page's SQLite; after a delete, the kept row without it."""
    from readingroom._compat._not_in_pyodide import open_store
    from readingroom.store import sqlite_dialect, sqlite_postings

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "many.txt").write_text("The lantern lantern lantern hangs by the old mill door.")
    (notes / "once.txt").write_text("A lantern hangs by the new mill door at the bend.")
    cli("index", str(notes), cwd=tmp_path, model_dir=model_dir)
    store = open_store(tmp_path / ".readingroom" / "index.sqlite")
    assert sqlite_postings.keep(store, lambda t: sqlite_dialect.term_instances(store, t), least=2)["words"] >= 4
    n, first, gaps, counts = store.query("SELECT chunks, first, gaps, counts FROM term_postings WHERE term = 'lantern'")[0]
    assert n == 2 and len(counts) == 2
    store.query("UPDATE term_postings SET counts = ? WHERE term = 'lantern'", (counts[::-1],))  # 3 and 1 swapped
    store.close()
    exported = tmp_path / "kept.sqlite"
    cli("export", str(exported), cwd=tmp_path, model_dir=model_dir)
    import build

    served = build.EMPTY_DIST / f"test-kept-{os.getpid()}.sqlite"
    shutil.copyfile(exported, served)
    try:
        assert page.evaluate("(u) => window.readingroom.importIndex(u)", served.name)["documents"] == 2
    finally:
        served.unlink()
    browser = BrowserDriver(page)
    wait_until(page, "() => window.readingroom.status().then((s) => s.search.state === 'ready')")
    names = lambda: [os.path.basename(s["doc_name"]) for s in browser.query("lantern", {"k": 2, "mode": "lexical"})["results"]]  # noqa: E731
    assert names() == ["once.txt", "many.txt"]  # the kept row, as altered, says "once" holds it three times
    browser.add([{"name": "other.txt", "text": "A lantern and a lantern hang by the mill gate."}])
    wait_until(page, "() => window.readingroom.status().then((s) => s.search.state === 'ready')")
    names = lambda: [os.path.basename(s["doc_name"]) for s in browser.query("lantern", {"k": 3, "mode": "lexical"})["results"]]  # noqa: E731
    assert names() == ["once.txt", "other.txt", "many.txt"]  # the kept row as altered (3, 1) and the new 2
    docs = {os.path.basename(d["name"]): d["id"] for d in page.evaluate("() => window.readingroom.documents()")}
    browser.delete(docs["once.txt"])
    wait_until(page, "() => window.readingroom.status().then((s) => s.search.state === 'ready')")
    assert names() == ["other.txt", "many.txt"]
