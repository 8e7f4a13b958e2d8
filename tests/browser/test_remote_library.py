"""The page with a remote library: `readingroom serve` over a real Postgres on 127.0.0.1,
added in the Sources pane as a source beside the local library. Its answers and citations look
like the local ones and say they are remote, and nothing of the local library (a document's
name or words, an answer quoting it) is ever in a request to it."""

from __future__ import annotations

import json

import pytest

from conftest import OriginGuard
from helpers import run, serving
from pages import wait_ready
from readingroom import Library, NewDocument
from readingroom.serve.app import Config, make_app
from readingroom.serve.tokens import TokenFile

WAIT_MS = 120_000
SECRET = {"name": "vault-notes.md", "text": "# Vault\n\nThe kettle in the vault is descaled with heron-blue vinegar, code 4242."}
SECRET_WORDS = ["vault", "heron", "4242", "vinegar"]


@pytest.fixture(scope="module")
def remote(postgres, embedder, site, tmp_path_factory):
    lib = Library.open(postgres.new_database(), embedder=embedder)
    run(lib.add([NewDocument("team/kettles.md", text="# Kettles\n\nThe office kettle is descaled every month "
                             "with citric acid; the facilities team keeps the log.")]))
    tokens = TokenFile(tmp_path_factory.mktemp("remote") / "tokens.json")
    token = tokens.add("page", writes=False)
    with serving(make_app(lib, tokens, Config(cors_origins=(site,)))) as base:
        yield base, token
    lib.close()


def _ask(pg, text: str, n: int) -> None:
    pg.check("#mode-ask")
    pg.fill("#query", text)
    pg.click("#query-button")
    pg.wait_for_function("(n) => ['answered', 'done', 'error'].includes(document.querySelector(`#chat-${n}`)?.dataset.state)",
                         arg=n, timeout=WAIT_MS)


def test_a_remote_library_answers_beside_the_local_one_and_learns_nothing_of_it(browser, site, remote):
    url, token = remote
    guard = OriginGuard(site, allowed=(url,))
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    ctx.route("**/*", guard.route)
    ctx.on("request", guard.on_request)
    sent = []
    ctx.on("request", lambda r: sent.append({"url": r.url, "body": r.post_data or "",
                                            "headers": r.all_headers()}) if r.url.startswith(url) else None)
    try:
        pg = ctx.new_page()
        pg.goto(f"{site}/")
        pg.evaluate("() => localStorage.setItem('readingroom.chat.settings.v2', JSON.stringify({transport: 'none'}))")
        wait_ready(pg)
        pg.evaluate("(d) => window.readingroom.addDocuments(d)", [SECRET])
        # Added as a person would: the form in Sources, then a reload so the page may connect to it.
        pg.locator("#remote-library summary").click()
        pg.fill("[name=remote-url]", url + "/")
        pg.fill("[name=remote-token]", token)
        pg.click("#remote-library button[type=submit]")
        assert "Reload the page" in pg.locator(".remote-counts").text_content()
        pg.reload()
        wait_ready(pg)
        pg.wait_for_function("() => /1 document/.test(document.querySelector('.remote-counts')?.textContent)",
                             timeout=WAIT_MS)
        row = pg.locator(".remote-row").text_content()
        assert "remote · " + url in row and pg.locator("#remote-active").is_checked()

        _ask(pg, "How often is the kettle descaled?", 1)
        turn = pg.locator("#chat-1")
        assert turn.get_attribute("data-state") in ("answered", "done")
        assert pg.locator("#chat-1 .quick-label").text_content() == f"From the remote library at {url}"
        sources = pg.locator("#chat-1 .chat-source-head").all_text_contents()
        assert sources and all("team/kettles.md" in s and f"remote · {url}" in s for s in sources)
        assert "every month" in pg.locator("#chat-1 .quick").text_content()
        _ask(pg, "And who keeps the log?", 2)  # a follow-up: the earlier question goes along, not its answer
        assert pg.locator("#chat-2").get_attribute("data-state") in ("answered", "done")

        asked = [json.loads(s["body"]) for s in sent if s["url"].endswith("/v1/ask")]
        assert [a["question"] for a in asked] == ["How often is the kettle descaled?", "And who keeps the log?"]
        assert asked[1]["history"] == ["How often is the kettle descaled?"]
        everything = json.dumps(sent).lower()
        assert all(word not in everything for word in SECRET_WORDS), "local library content reached the remote"
        assert all(s["headers"].get("authorization") == f"Bearer {token}" for s in sent if s["url"].endswith("/v1/ask"))

        # Unticked, the local library answers again, and the remote is not asked.
        before = len(sent)
        pg.locator("#remote-active").uncheck()
        _ask(pg, "What is the vault kettle descaled with?", 3)
        assert "vault-notes.md" in " ".join(pg.locator("#chat-3 .chat-source-head").all_text_contents())
        assert pg.locator("#chat-3 .quick-label").text_content() == "From your documents"
        assert not [s for s in sent[before:] if s["url"].endswith(("/v1/ask", "/v1/search"))]
    finally:
        ctx.close()
    assert guard.offending == [], f"requests left the page's origin and the remote library: {guard.offending}"


def test_the_debug_view_says_how_the_query_was_read(page):
    page.evaluate("(d) => window.readingroom.addDocuments(d)", [SECRET])
    page.evaluate("() => { const t = document.getElementById('debug-toggle'); t.checked = true;"
                  " t.dispatchEvent(new Event('change')); }")
    page.check("#mode-search")
    for text, said in [('"vault kettle', "Query read as plain (syntax: web): a quote is not closed"),
                       ('"vault" -bread', "Query read as web (syntax: web)")]:
        page.evaluate("() => { delete document.getElementById('results').dataset.query; }")
        page.fill("#query", text)
        page.click("#query-button")
        page.wait_for_function("(q) => document.getElementById('results').dataset.query === q", arg=text,
                               timeout=WAIT_MS)
        page.wait_for_function("(s) => document.querySelector('.debug-syntax')?.textContent.startsWith(s)",
                               arg=said, timeout=WAIT_MS)
