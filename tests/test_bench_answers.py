"""``bench answers``: the question sets are sound, and the command runs end to end on a
fixture-sized subset over the bundled corpus."""

from __future__ import annotations

import pytest

from readingroom.bench import answers


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
                assert any(answers.phrase_found(topics[t], [phrase]) for t in item["expected_topics"]), \
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
    assert answers.phrase_found(source, ["Saved exception is discarded"])
    assert answers.phrase_found(source, ["__exit__() is not re-raised"])
    assert not answers.phrase_found(source, ["exception is kept"])


def test_an_unknown_set_name_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="answerable, followups, unanswerable"):
        answers.load_set("answerble")
