"""``bench answers``: the question sets are sound, and the command runs end to end on a
fixture-sized subset over the bundled corpus."""

from __future__ import annotations

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
    with pytest.raises(ValueError, match="answerable, followups, unanswerable"):
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
    assert "faq" in proc.stderr and "answerable, followups, unanswerable, scifact" in proc.stderr
    assert not (tmp_path / "a.json").exists()

