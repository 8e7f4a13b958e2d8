"""The Sources pane with a library larger than it shows at once: a few hundred rows are in the
page, the rest a "Show more" or a filter away, and Select all / Clear act on every document
the filter matches, shown or not."""

from __future__ import annotations

import os

from helpers import run

N = 320  # more than the 300 rows the pane shows at once


def scope_line(page) -> str:
    return page.locator("#scope-line").inner_text()


def rows(page) -> int:
    return page.evaluate("() => document.querySelectorAll('#document-list .doc-row').length")


def import_logs(page, tmp_path, embedder, n: int, name: str, line: str) -> dict:
    """A library of ``n`` one-line documents ``log-NNNN.txt`` built natively and imported."""
    import build
    from readingroom import Library, NewDocument

    path = tmp_path / f"{name}.sqlite"
    lib = Library.open(str(path), embedder=embedder)
    run(lib.add([NewDocument(f"log-{i:04d}.txt", text=line.format(i=i, hour=i % 24)) for i in range(n)]))
    lib.close()
    served = build.EMPTY_DIST / f"test-{name}-{os.getpid()}.sqlite"
    served.write_bytes(path.read_bytes())
    try:
        return page.evaluate("(u) => window.readingroom.importIndex(u)", served.name)
    finally:
        served.unlink()


def test_a_large_library_shows_a_few_hundred_rows_and_the_filter_reaches_the_rest(page, tmp_path, embedder):
    status = import_logs(page, tmp_path, embedder, N, "sources", "Entry {i}: the ferry left at {hour} o'clock.")
    assert status["documents"] == N
    page.wait_for_function("() => /Showing 300 of 320 documents/.test(document.getElementById('document-list').textContent)")
    assert rows(page) == 300
    assert scope_line(page) == f"Asking all {N} documents"

    # Show more: the other 20.
    page.get_by_role("button", name="Show 20 more").click()
    page.wait_for_function(f"() => document.querySelectorAll('#document-list .doc-row').length === {N}")
    assert page.locator("#document-list .doc-more").count() == 0

    # The filter finds a document past the first 300 rows; a filter matching nothing says so.
    page.fill("#doc-filter", "log-0317")
    page.wait_for_function("() => document.querySelectorAll('#document-list .doc-row').length === 1")
    assert page.locator("#document-list .doc-row .name").text_content() == "log-0317.txt"
    page.fill("#doc-filter", "no-such-name")
    page.wait_for_function("() => /No document matches/.test(document.getElementById('document-list').textContent)")
    assert rows(page) == 0

    # Select all and Clear act on every document the filter matches, shown or past the limit.
    page.fill("#doc-filter", "")
    page.click("#select-none")
    assert scope_line(page).startswith("No document ticked")
    page.fill("#doc-filter", "log-0")
    assert rows(page) == 300  # the limit again after a new filter
    page.click("#select-all")
    assert scope_line(page) == f"Asking all {N} documents"
    page.click("#select-none")
    page.fill("#doc-filter", "log-03")
    page.click("#select-all")
    page.fill("#doc-filter", "")
    assert scope_line(page) == f"Asking 20 of {N} documents"


def test_a_list_longer_than_its_first_page_is_read_whole_in_pages(page, tmp_path, embedder):
    """The pane reads a library's list a page at a time (1,000 documents, then 5,000 a page):
    put together, the pages list every document once, in the library's order, and the scope
    tools work on all of them once the list is complete."""
    n = 1_050
    status = import_logs(page, tmp_path, embedder, n, "pages", "Entry {i}: the tram stopped at {hour} o'clock.")
    assert status["documents"] == n
    page.wait_for_function(f"() => /Showing 300 of {n:,} documents;/.test(document.getElementById('document-list').textContent)")
    assert page.locator("[data-listing]").count() == 0  # complete: no "Listing your documents" line
    assert scope_line(page) == f"Asking all {n} documents"
    assert page.locator("#select-all").is_enabled() and page.locator("#document-list input.pick").first.is_enabled()
    # The documents on both sides of the first page's end, and the last, each listed once.
    for name, found in [("log-0999", 1), ("log-1000", 1), ("log-1049", 1), ("log-10", 50)]:
        page.fill("#doc-filter", name)
        page.wait_for_function(f"() => document.querySelectorAll('#document-list .doc-row').length === {found}")
    page.fill("#doc-filter", "")
    page.click("#select-none")
    page.fill("#doc-filter", "log-10")
    page.click("#select-all")
    assert scope_line(page) == f"Asking 50 of {n} documents"
