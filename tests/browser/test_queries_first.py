"""Queries first: a search made while a long import runs is answered during the import, not after
it, and the import still stores every document whole."""

from __future__ import annotations

from pages import wait_for_api, wait_until
from test_faults import consistent, long_document

WAIT_MS = 120_000


def test_a_search_during_a_long_import_is_answered_before_the_import_ends(page):
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)",
                  [{"name": "kettle.md", "text": "# Kettle\n\nThe kettle is descaled every month with citric acid."}])
    docs = [{"name": f"log{i}.md", "text": long_document(f"river {i}", 150)} for i in range(4)]
    page.evaluate("""(docs) => {
        window.__importDone = false;
        window.__import = window.readingroom.addDocuments(docs).finally(() => { window.__importDone = true; });
    }""", docs)
    # The import is embedding its first document's passages.
    page.wait_for_function("() => /of \\d+ passages in log0\\.md/.test("
                           "document.getElementById('ingest-chunks-text').textContent)", timeout=WAIT_MS)
    got = page.evaluate("""async () => {
        const r = await window.readingroom.query('how is the kettle descaled', {mode: 'vector'});
        return {top: r.results[0]?.doc_name, reason: r.reason, importDone: window.__importDone};
    }""")
    assert got == {"top": "kettle.md", "reason": None, "importDone": False}
    # On more than one core, ingestion moved to workers of its own (as many as the embedder's
    # workers) and the first worker's session is kept for queries: a third model session while the
    # import runs (status() follows the embedder's heartbeat).
    if page.evaluate("() => navigator.hardwareConcurrency") >= 2:
        wait_until(page, """async () => { const e = (await window.readingroom.status()).embedder;
            return e?.queryWorker === true && e.ingestWorkers === e.workers && e.workersRunning === e.workers + 1; }""")
    # Then stop the import; what it stored is whole.
    page.evaluate("() => window.readingroom.cancelIngest()")
    report = page.evaluate("() => window.__import")
    stored = consistent(page)
    assert stored["kettle.md"] == 1
    added = [d["name"] for d in report["documents"] if d["status"] == "added"]
    assert set(stored) == {"kettle.md", *added}


def test_a_ready_page_answers_with_two_model_sessions_and_ingests_on_none_yet(page):
    """Once the page is ready, the embedder adds a second session for answers (a quick answer's
    sentences are embedded on both cores; one session on a one-core machine); no ingestion
    session starts before documents come."""
    wait_until(page, """async () => { const e = (await window.readingroom.status()).embedder;
        const want = Math.min(2, navigator.hardwareConcurrency || 1);
        return e?.answerWorkers === want && e.ingestWorkers === 0 && e.workersRunning === want; }""")
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)",
                  [{"name": "kettle.md", "text": "# Kettle\n\nThe kettle is descaled every month with citric acid. "
                    "Descaling takes ten minutes and the first boil afterwards is poured away."}])
    got = page.evaluate("() => window.readingroom.ask('How often is the kettle descaled?')")
    assert "descaled every month" in got["quick"][0]["text"], got


def test_the_answer_helper_waits_for_the_warm_up_and_for_the_first_question(context, site):
    """The answer helper's model compiles on the core a first question needs, so the page asks
    for it only once it is ready, the retrieval worker's warm-up has numpy in and no question is
    in flight (or ten seconds after ready): a question asked the moment the page is ready is
    never shared with it."""
    pg = context.new_page()
    pg.goto(f"{site}/")
    wait_for_api(pg)
    pg.evaluate("(docs) => window.readingroom.addDocuments(docs)",
                [{"name": f"kettle{i}.md", "text": "# Kettle\n\nThe kettle is descaled every month with citric "
                  f"acid. Descaling takes {i + 5} minutes and the first boil afterwards is poured away."}
                 for i in range(3)])
    pg.reload()  # a library that has documents, opened again: a first question at ready searches it
    wait_for_api(pg)
    asked = pg.evaluate("""async () => {
        await window.readingroom.ready;
        const r = await window.readingroom.ask('How often is the kettle descaled?');
        return {quick: r.quick.length};
    }""")
    assert asked["quick"] >= 1, asked
    wait_until(pg, "async () => (await window.readingroom.status()).timings.answerHelper !== undefined")
    t = pg.evaluate("async () => (await window.readingroom.status()).timings")
    helper, numpy = t["answerHelper"], t["retrievalWorker"].get("numpy")
    # The page's own marks of that question (the first asked since the reload) and of its answer.
    asked_at, answered_at = t["firstQuestion"], t["firstAnswer"]
    assert t["ready"] <= asked_at <= answered_at, t
    assert helper >= t["ready"], t
    assert (numpy is not None and helper >= numpy) or helper >= t["ready"] + 10_000, t
    assert not asked_at < helper < answered_at, t  # never while the question was in flight
    if numpy is not None and asked_at <= numpy < answered_at:
        assert helper >= answered_at, t  # warm-up done during the question: after it
    # And then it is there: two sessions answer (one on a one-core machine).
    wait_until(pg, """async () => { const e = (await window.readingroom.status()).embedder;
        return e?.answerWorkers === Math.min(2, navigator.hardwareConcurrency || 1); }""")
    pg.close()


def test_an_answer_helper_that_crashes_is_replaced_and_answers_go_on(page):
    """The second model session dies (an error in its worker): its work goes back to the queue,
    status() says what happened, a new helper takes its place, and answers still come. (One
    core: there is no helper to lose, and the page says so.)"""
    sessions = """async () => { const e = (await window.readingroom.status()).embedder;
        const want = Math.min(2, navigator.hardwareConcurrency || 1);
        return e?.answerWorkers === want && e.workersRunning === want; }"""
    wait_until(page, sessions)
    helper = page.evaluate("() => Math.min(2, navigator.hardwareConcurrency || 1) === 2")
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)",
                  [{"name": "kettle.md", "text": "# Kettle\n\nThe kettle is descaled every month with citric acid."}])
    assert page.evaluate("() => window.readingroom.debug.crashEmbedHelper()") is helper
    # Asked while the helper dies: the answer still comes, from the session left.
    got = page.evaluate("() => window.readingroom.ask('How often is the kettle descaled?')")
    assert "descaled every month" in got["quick"][0]["text"], got
    if helper:
        wait_until(page, """async () => /helper embedding worker stopped \\(.*crashed on purpose.*\\); a new one is starting/
            .test((await window.readingroom.status()).embedder?.threadNote ?? '')""")
        # Replaced: as many helper sessions as wanted run again (ingestion may have asked for
        # more than the answer helper meanwhile).
        wait_until(page, """async () => { const h = (await window.readingroom.status()).embedder?.helpers;
            return h?.restarts === 1 && h.running === h.wanted; }""")
    got = page.evaluate("() => window.readingroom.ask('What is the kettle descaled with?')")
    assert "citric acid" in got["quick"][0]["text"], got
