"""``bench answers``: the question sets are sound, and the command runs end to end on a
fixture-sized subset over the bundled corpus."""

from __future__ import annotations

import json

import pytest

from readingroom.bench import answer_scores, answers


def _topics() -> dict[str, str]:
    from readingroom.demo import documents

    return {d.name: d.text for d in documents()}


def test_every_answer_phrase_is_in_an_expected_topic_of_the_bundled_corpus():
    topics = _topics()
    for name in ("answerable", "followups"):
        for item in answers.load_set(name):
            assert item["expected_topics"], item["id"]
            for t in item["expected_topics"]:
                assert t in topics, f"{item['id']}: {t} is not a bundled document"
            for phrase in item["answer_phrases"]:
                assert any(answer_scores.phrase_found(topics[t], [phrase]) for t in item["expected_topics"]), \
                    f"{item['id']}: {phrase!r} is in none of {item['expected_topics']}"


def test_sets_are_the_sizes_the_issue_asks_for_with_a_held_out_test_split():
    sizes = {"answerable": 70, "followups": 20, "unanswerable": 25}
    for name, least in sizes.items():
        items = answers.load_set(name)
        assert len(items) >= least, name
        assert len({i["id"] for i in items}) == len(items), f"{name}: duplicate ids"
        test = sum(i["split"] == "test" for i in items)
        assert {i["split"] for i in items} == {"dev", "test"}
        assert 0.2 <= test / len(items) <= 0.4, f"{name}: {test}/{len(items)} held out"
    covered = {t for i in answers.load_set("answerable") for t in i["expected_topics"]}
    assert len(covered) >= 40
    questions = [i["question"] for i in answers.load_set("answerable")] + \
        [i["followup"] for i in answers.load_set("followups")] + [i["question"] for i in answers.load_set("unanswerable")]
    assert len(set(questions)) == len(questions)


def test_answer_phrases_match_across_line_breaks_quotes_and_emphasis():
    source = 'the saved\n   exception is discarded; "__exit__()" is *not* re-\n   raised'
    assert answer_scores.phrase_found(source, ["Saved exception is discarded"])
    assert answer_scores.phrase_found(source, ["__exit__() is not re-raised"])
    assert not answer_scores.phrase_found(source, ["exception is kept"])


def test_an_unknown_set_name_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="answerable, paraphrased, followups, unanswerable"):
        answers.load_set("answerble")


def test_refusal_precision_and_recall_count_refusals_of_each_kind():
    def answer(covered: bool, doc: str) -> dict:
        quick = [{"text": "It is discarded.", "n": 1, "doc_name": doc}] if covered else []
        return {"covered": covered, "quick": quick, "documents": [{"name": doc}], "standalone_query": "q"}

    yes = [answer_scores.record({"id": "a1", "split": "dev"}, answer(True, "t.txt"), 5, ["t.txt"], ["discarded"]),
           answer_scores.record({"id": "a2", "split": "test"}, answer(False, "u.txt"), 7, ["t.txt"], ["discarded"])]
    no = [answer_scores.record({"id": "u1", "split": "dev"}, answer(False, "u.txt"), 3),
          answer_scores.record({"id": "u2", "split": "test"}, answer(False, "u.txt"), 4)]
    ref = answer_scores.refusal(yes, no)
    assert ref["all"]["precision"] == 66.7 and ref["all"]["recall"] == 100.0
    assert ref["dev"]["precision"] == 100.0 and ref["test"]["precision"] == 50.0
    assert answer_scores.rate(yes, "phrase") == {"all": 50.0, "n_all": 2, "dev": 100.0, "n_dev": 1,
                                                 "test": 0.0, "n_test": 1}
    assert answer_scores.latency(yes + no)["p50"] == 4


def test_an_unknown_set_on_the_command_line_names_the_choices(tmp_path):
    import subprocess
    import sys

    from helpers import ROOT

    proc = subprocess.run([sys.executable, "-m", "readingroom.bench", "answers", "--set", "answerable,faq",
                           "--json", str(tmp_path / "a.json")], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "py_src"), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    assert "faq" in proc.stderr and "answerable, paraphrased, followups, unanswerable, conversation, scifact" in proc.stderr
    assert not (tmp_path / "a.json").exists()


LIMIT = 6


def test_the_command_runs_natively_on_a_few_questions_of_every_set(tmp_path, model_dir):
    import beir_fixture

    proc, res = beir_fixture.run_bench(tmp_path, model_dir, "answers", "--native", "--limit", str(LIMIT), timeout=600)
    native = res["answers"]["native"]
    assert "browser" not in res["answers"]

    def is_rate(r: dict, n: int):
        assert r["n_all"] == n and r["n_dev"] + r["n_test"] == n
        for s in ("all", "dev", "test"):
            assert r[s] is None if r[f"n_{s}"] == 0 else 0 <= r[s] <= 100

    for key in ("phrase", "cited_expected", "top3_expected", "covered"):
        is_rate(native["answerable"][key], LIMIT)
        is_rate(native["paraphrased"][key], LIMIT)
    for key in ("with_history", "alone", "phrase_with_history", "cited_with_history"):
        is_rate(native["followups"][key], LIMIT)
    is_rate(native["unanswerable"]["covered"], LIMIT)
    # each answerable and paraphrased question but the first asked after the one before it
    is_rate(native["conversation"]["phrase"], 2 * (LIMIT - 1))
    is_rate(native["conversation"]["rewritten"], 2 * (LIMIT - 1))
    ref = native["refusal"]["all"]
    assert ref["answerable"] == 2 * LIMIT and ref["unanswerable"] == LIMIT  # both answerable sets
    for k in ("precision", "recall"):
        assert ref[k] is None or 0 <= ref[k] <= 100
    # Every question asked once, in set order: answerable, (first, with history, alone) per pair, unanswerable.
    recs = native["records"]
    assert [r["id"] for r in recs["answerable"]] == [i["id"] for i in answers.load_set("answerable")[:LIMIT]]
    assert [r["id"] for r in recs["paraphrased"]] == [i["id"] for i in answers.load_set("paraphrased")[:LIMIT]]
    assert [r["id"] for r in recs["followups_with_history"]] == [i["id"] for i in answers.load_set("followups")[:LIMIT]]
    assert [r["id"] for r in native["records"]["conversation"]] == [
        i["id"] for name in ("answerable", "paraphrased") for i in answers.load_set(name)[1:LIMIT]]
    assert native["latency_ms"]["n"] == LIMIT * 6 + 2 * (LIMIT - 1) and 0 < native["latency_ms"]["p50"] <= native["latency_ms"]["p95"]
    assert native["chunks"] > 79  # the whole bundled corpus, every topic at least one chunk
    # Follow-ups asked with the conversation search something other than the bare follow-up.
    assert any(r["standalone_query"] != i["followup"]
               for r, i in zip(recs["followups_with_history"], answers.load_set("followups")))
    # The sources-only transport: first token is the quick answer; its sentences are checked.
    so = native["transports"]["sources_only"]
    assert so["first_token_ms"]["n"] == LIMIT and so["first_token_ms"]["p50"] > 0
    assert so["answers"] <= LIMIT and 0 <= so["unsupported"] <= so["sentences"]
    assert "server" not in native["transports"]
    # SciFact claims over the fixture's corpus: four claims, each with one clearly right abstract.
    sf = native["scifact"]
    assert sf["cited_expected"]["n_all"] == 4 and 0 <= sf["cited_expected"]["all"] <= 100
    assert sf["top3_expected"]["all"] == 100.0
    for label in ("answer phrase in the quick answer", "expected topic cited by the quick answer",
                  "expected topic in top-3 sources", "follow-up hit@3 with the conversation",
                  "follow-up hit@3 asked alone", "asked after another question: answer phrase", "refusal precision", "refusal recall",
                  "SciFact claims: quick answer cites a qrels document", "quick answer (",
                  "sources_only: first token from asking"):
        assert label in proc.stdout, label
    report = (tmp_path / "report" / "report.md").read_text()
    assert "## Answers (issue 12)" in report and "refusal precision" in report
    assert res["machine"]["load_average_at_start"] and res["answers"]["native"]["answerable"]["load"][0]


def test_a_server_transport_is_sent_the_answer_messages_and_its_sentences_are_checked(tmp_path, model_dir):
    """``--llm`` against a stand-in OpenAI-compatible server on 127.0.0.1 (real HTTP, real
    server-sent events) whose answer cites one real passage and one that does not exist."""
    import beir_fixture
    from stand_in_chat import StandInChat

    with StandInChat(["The saved exception is discarded [1].", " Penguins fly to the moon [9]."]) as server:
        proc, res = beir_fixture.run_bench(tmp_path, model_dir, "answers", "--native", "--set", "answerable",
                                           "--limit", "2", "--llm", f"{server.url}/v1", timeout=600)
    received = [(r["path"], r["json"]) for r in server.requests]
    questions = [i["question"] for i in answers.load_set("answerable")[:2]]
    native = res["answers"]["native"]
    brief_n = native["transports"]["server_brief"].get("answers", 0)
    assert [r[0] for r in received] == ["/v1/chat/completions"] * (2 + brief_n)
    # first the whole packed context (answer.messages), then the quick answer's sentences as
    # notes (answer.brief_messages, what the in-page model is sent)
    for (_, body), q in zip(received, questions + questions[:brief_n]):
        assert body["stream"] is True and body["messages"][0]["role"] == "system"
        assert "[1]" in body["messages"][0]["content"] and body["messages"][-1] == {"role": "user", "content": q}
    assert all("Notes:" in body["messages"][0]["content"] for _, body in received[2:])
    srv = native["transports"]["server"]
    assert srv["answers"] == 2 and srv["errors"] == [] and srv["sentences"] >= 4
    assert srv["invalid_citations"] == 2 and 2 <= srv["unsupported"] <= srv["sentences"]
    assert 0 < srv["first_token_ms"]["p50"] <= srv["total_ms"]["p50"]
    assert "server: first token from asking" in proc.stdout and "scifact" not in native


def _qa_line(id_, source, title, question, context, sentences=None, labels=None, answers=()):
    return json.dumps({"id": id_, "source": source, "split": "x", "question": question, "title": title,
                       "context": context, "sentences": sentences, "labels": labels, "answers": list(answers),
                       "impossible": False, "yesno": None})


def test_public_sets_run_on_a_small_copy_of_their_format(tmp_path, model_dir):
    """``--qa-data`` with files of the public sets' format made here (the real ones are fetched
    at development time and never live in the repository): every public set is asked through
    Library.ask and scored by whether the quick answer holds the labelled answer."""
    import beir_fixture

    qa = tmp_path / "qa"
    kettle = "The kettle is descaled every month with citric acid. It boils water in two minutes."
    garden = "Roses are pruned in early spring. Tomatoes need water every day in summer."
    rows = {
        "squad11-dev/dev.jsonl": [_qa_line("s1", "squad11-dev", "Kettle", "How often is the kettle descaled?", kettle,
                                           answers=["every month"]),
                                  _qa_line("s2", "squad11-dev", "Garden", "When are roses pruned?", garden,
                                           answers=["early spring"])],
        "wikiqa/test.jsonl": [_qa_line("w1", "wikiqa", "Garden", "when to prune roses", garden,
                                       ["Roses are pruned in early spring.", "Tomatoes need water every day in summer."], [1, 0])],
    }
    for f in ("selqa/dev.jsonl", "selqa/test.jsonl", "wikiqa/train.jsonl", "wikiqa/dev.jsonl"):
        rows[f] = [_qa_line(f"{f}-{i}", "selqa", f"T{i}", "How fast does the kettle boil water?", kettle,
                            kettle.split(". "), [0, 1]) for i in range(8)]
    for f, lines in rows.items():
        (qa / f).parent.mkdir(parents=True, exist_ok=True)
        (qa / f).write_text("\n".join(lines) + "\n")
    proc, res = beir_fixture.run_bench(tmp_path, model_dir, "answers", "--native", "--set", "unanswerable",
                                       "--limit", "2", "--qa-data", str(qa), timeout=600)
    pub = res["answers"]["public"]
    assert set(pub) == {"squad", "wikiqa", "heldback"}
    assert pub["squad"]["questions"] == 2 and pub["wikiqa"]["questions"] == 1
    for name, d in pub.items():
        assert 0 <= d["phrase"] <= 1 and 0 <= d["false_refusals"] <= 1, (name, d)
        assert d["latency_ms"]["n"] == d["questions"] and d["load"][0]
    assert pub["squad"]["phrase"] == 1.0 and pub["squad"]["top3_expected"] == 1.0  # two plain questions
    assert "answer in quick answer" in proc.stdout and "heldback" in proc.stdout


def test_the_r_manuals_set_is_sound_and_names_what_is_missing(tmp_path):
    from readingroom.bench import answers_manuals as am

    items = am.load_items()
    assert len(items) >= 30 and len({i["id"] for i in items}) == len(items)
    assert 0.4 <= sum(i["split"] == "test" for i in items) / len(items) <= 0.6
    names = {am.PREFIX + m for m in am.MANUALS}
    for it in items:
        assert it["answer_phrases"] and set(it["expected_topics"]) <= names, it["id"]
    with pytest.raises(am.ManualsMissing, match="apt-get install r-doc-pdf"):
        am.manual_files(tmp_path)
    assert "manuals" in answers.parse_sets("answerable,manuals")


def test_the_r_manuals_are_indexed_and_asked_natively(tmp_path, model_dir):
    """The CI-sized run of the real-PDF set: the manuals its first questions name indexed through
    ingestion (as ``readingroom index`` would) and those questions asked; and every answer phrase
    of the whole set found in a manual it names, as ingestion chunks it (words only: embedding all
    five manuals is the full run's work, not this check's)."""
    import sqlite3

    import beir_fixture
    from readingroom import Library
    from readingroom.bench import answers_manuals as am
    from readingroom.ingest.add import NewDocument, add_words

    first = am.load_items()[:4]
    proc, res = beir_fixture.run_bench(tmp_path, model_dir, "answers", "--native", "--set", "manuals",
                                       "--limit", "4", timeout=900)
    m = res["answers"]["native"]["manuals"]
    assert m["manuals"] == am.named(first) and 1 <= len(m["manuals"]) < len(am.MANUALS) and m["partial"]
    assert m["chunks"] > 500 and [r["id"] for r in m["records"]] == [i["id"] for i in first]
    assert m["phrase"]["n_all"] == 4 and m["top3_expected"]["all"] >= 50
    assert f"R manuals (real PDFs over {', '.join(m['manuals'])} only): answer phrase in the quick answer" in proc.stdout
    assert "quick answer, R manuals (" in proc.stdout
    [index] = (tmp_path / "cache").glob("r-manuals-*.sqlite")
    db = sqlite3.connect(index)
    assert {n for (n,) in db.execute("SELECT name FROM documents")} == {am.PREFIX + f for f in m["manuals"]}
    db.close()

    words = Library.open(tmp_path / "words.sqlite", model_dir=str(model_dir))
    try:
        outcomes = add_words(words.index, [NewDocument(name=am.PREFIX + f.name, data=f.read_bytes(), doc_type="pdf")
                                           for f in am.manual_files()], words.chunking)
        assert [o.status for o in outcomes] == ["added"] * len(am.MANUALS)
    finally:
        words.close()
    db = sqlite3.connect(tmp_path / "words.sqlite")
    text = {name: "\n".join(t for (t,) in db.execute(
        "SELECT c.text FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.name = ? ORDER BY c.idx", (name,)))
        for (name,) in db.execute("SELECT name FROM documents")}
    assert set(text) == {am.PREFIX + f for f in am.MANUALS}
    for it in am.load_items():
        for phrase in it["answer_phrases"]:
            assert any(answer_scores.phrase_found(text[t], [phrase]) for t in it["expected_topics"]), (it["id"], phrase)
