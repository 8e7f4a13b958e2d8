"""The Sources pane follows the library one document at a time: an add, a replace and a delete
change that row only (the page no longer reads the whole list again after each), and what it
shows is always what a fresh read of the library lists, in the library's order."""

from __future__ import annotations

from pages import wait_ready

WAIT_MS = 120_000

ROWS = """() => [...document.querySelectorAll('#document-list .doc-row')].map((r) => ({
    name: r.querySelector('.name').textContent, chunks: Number(r.querySelector('.chunks').textContent),
}))"""


def add(page, name: str, text: str) -> dict:
    report = page.evaluate("([name, text]) => window.readingroom.addDocuments([{name, text}])", [name, text])
    assert [d["status"] for d in report["documents"]] in (["added"], ["replaced"]), report
    return report["documents"][0]


def shows(page, names: list[str]) -> list[dict]:
    """Waits until the pane lists exactly `names` in this order; returns its rows."""
    page.wait_for_function(
        f"(names) => JSON.stringify(({ROWS})().map((r) => r.name)) === JSON.stringify(names)",
        arg=names, timeout=WAIT_MS)
    return page.evaluate(ROWS)


def library(page) -> list[dict]:
    return [{"name": d["name"], "chunks": d["chunks"]} for d in page.evaluate("() => window.readingroom.documents()")]


def by_bytes(names):
    return sorted(names, key=lambda n: n.encode("utf-8"))


def test_the_list_follows_adds_a_replace_and_a_delete_in_the_library_order(page):
    wait_ready(page)
    start = [r["name"] for r in page.evaluate(ROWS)]  # a site without a bundle: empty
    names = list(start)
    # Each name sorts somewhere else in the list: in the middle, after every ASCII name (é is
    # past z in the library's byte order), first, last.
    for name, text in [("m-notes.md", "The kettle is descaled every month with citric acid."),
                       ("émile.md", "Émile waters the ferns on Tuesdays and Fridays."),
                       ("a-log.md", "The boiler log is signed by the caretaker each week."),
                       ("zz-plan.md", "The garden plan puts the beans along the south fence.")]:
        add(page, name, text)
        names = by_bytes(names + [name])
        assert shows(page, names) == library(page)

    # Replaced under the same name with a longer text: one row, its new chunk count.
    longer = "\n\n".join(f"## Part {i}\n\n" + " ".join(f"Paragraph {i} sentence {j} about the kettle and its filter."
                                                        for j in range(40)) for i in range(6))
    out = add(page, "m-notes.md", longer)
    assert out["status"] == "replaced"
    page.wait_for_function(
        f"() => ({ROWS})().find((r) => r.name === 'm-notes.md').chunks > 1", timeout=WAIT_MS)
    rows = shows(page, names)
    assert rows == library(page)
    assert [r["name"] for r in rows].count("m-notes.md") == 1

    # Deleted through its row's button (two clicks): gone from the pane and from the library.
    delete = page.locator("#document-list .doc-row", has_text="a-log.md").locator("button.delete")
    delete.click()
    delete.click()
    names.remove("a-log.md")
    assert shows(page, names) == library(page)

    # A reload reads the whole list: the same rows.
    page.reload()
    wait_ready(page)
    assert shows(page, names) == library(page)
