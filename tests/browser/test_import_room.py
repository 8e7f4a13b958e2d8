"""Importing an index the browser has no room for.

Chromium's OPFS does not throw when a site's storage is full: a FileSystemSyncAccessHandle
write past the quota (or past the ~1.5 GB an incognito profile keeps in memory, which is what
stopped the 2.6 GB million-passage index) returns a bogus byte count and stores nothing, and
sqlite-wasm's importDb ignores the count. Unchecked, the import "succeeded" with a truncated
file and SQLite then said SQLITE_CORRUPT. Here the site's quota is lowered through the DevTools
protocol (the same silent short write, with a file of a few MB) and the import must fail with a
storage error a person can act on, give the space back and leave the library as it was.
"""

from __future__ import annotations

import shutil
import time

import apsw

from helpers import run
from pages import wait_until
from readingroom import Library
from test_library_ops import NOTES, publish  # noqa: F401 (publish is a fixture)

IMPORT = """async (u) => {
  try {
    return {status: await window.readingroom.importIndex(u)};
  } catch (e) {
    return {error: {type: e.type, message: e.message}};
  }
}"""
USAGE = "async () => (await navigator.storage.estimate()).usage"


def settled_usage(page, quiet_s: float = 3.0, timeout_s: float = 60.0) -> int:
    """The origin's storage use once the browser's estimate stops moving: Chromium updates it
    asynchronously, seconds after files are written or removed (on a busy machine, long after
    the import that wrote them has returned)."""
    last, since = page.evaluate(USAGE), time.monotonic()
    deadline = since + timeout_s
    while time.monotonic() - since < quiet_s:
        if time.monotonic() > deadline:
            raise AssertionError(f"the storage estimate kept moving for {timeout_s:.0f} s (last {last})")
        time.sleep(0.25)
        now = page.evaluate(USAGE)
        if now != last:
            last, since = now, time.monotonic()
    return last


def padded(small, path, size: int):
    """A copy of the index `small` grown to `size` bytes with a table of random blobs: the same
    documents, in a file larger than the room the test leaves."""
    shutil.copyfile(small, path)
    db = apsw.Connection(str(path))
    db.execute("CREATE TABLE padding(b BLOB)")
    while path.stat().st_size < size:
        db.execute("INSERT INTO padding VALUES (randomblob(1 << 20))")
    db.close()
    return path


def test_an_index_without_room_is_refused_with_a_storage_error_and_the_library_stays(page, site, tmp_path,
                                                                                        publish, embedder):
    small = tmp_path / "notes.sqlite"
    lib = Library.open(str(small), embedder=embedder)
    run(lib.add(NOTES))
    lib.close()
    big = publish(padded(small, tmp_path / "notes-padded.sqlite", 24_000_000))
    assert page.evaluate(IMPORT, publish(small))["status"]["documents"] == 2
    # The service worker's precache also counts against the site's storage: let it finish first.
    wait_until(page, "async () => (await window.readingroom.status()).offlineReady === true", 120)

    before = settled_usage(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": site, "quotaSize": before + 8_000_000})
    out = page.evaluate(IMPORT, big)
    assert "status" not in out, out
    error = out["error"]
    assert error["type"] == "storage", error
    assert "no room" in error["message"] and "library is unchanged" in error["message"], error
    assert "SQLITE" not in error["message"], error
    notice = page.locator("#notice")
    assert notice.is_visible() and "no room" in notice.inner_text()
    # The part that was written is gone again, and the library answers as before.
    after = settled_usage(page)
    assert after < before + 1_000_000, (before, after)
    status = page.evaluate("() => window.readingroom.status()")
    assert (status["documents"], status["chunks"]) == (2, 2)
    r = page.evaluate("() => window.readingroom.query('sourdough')")
    assert r["reason"] is None and r["results"][0]["doc_name"] == "bread.txt"

    # With room again, the same file imports.
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": site})
    out = page.evaluate(IMPORT, big)
    assert out.get("status", {}).get("documents") == 2, out
