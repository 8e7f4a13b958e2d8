"""Checked citations: parsing [n] in every form a model writes them, and the similarity check
against the cited passages with the real embedder, on hand-written calibration pairs."""

from __future__ import annotations

import pytest

from citation_pairs import SUPPORTED, UNSUPPORTED, passage
from helpers import run
from readingroom.answer.ask import check_answer
from readingroom.answer.citations import SUPPORT_THRESHOLD, judge, makes_no_claim, numbers, plan

PASSAGES = [
    {"n": 1, "text": "The kettle switches itself off when the water boils. Descale the kettle every month "
                     "with white vinegar to remove limescale."},
    {"n": 2, "text": "Pump the tyres to 4 bar before every long ride. Oil the chain every 300 km."},
]


@pytest.mark.parametrize("text, expected", [
    ("Oil it [1].", [1]),
    ("Oil it [1, 2].", [1, 2]),
    ("Oil it [1][2].", [1, 2]),
    ("Oil it [2; 1] and [1].", [2, 1]),
    ("Oil it [1-3].", [1, 2, 3]),
    ("Oil it [ 2 ].", [2]),
    ("Oil it [2", []),  # never closed: plain text
    ("Oil it [a] [1.5] [] [-1].", []),
    ("Oil it [1-900].", [1, 900]),  # not a range of 900 citations
])
def test_citation_forms(text, expected):
    assert numbers(text) == expected


def test_numbers_that_are_not_passages_are_missing_never_cited():
    p = plan("Oil the chain every 300 km [2][9]. Descale monthly [99]. Pump the tyres [2", PASSAGES)
    assert [(u.cites, u.missing) for u in p.units] == [([2], [9]), ([], [99]), ([], [])]
    assert p.invalid == [9, 99]
    checked = judge(p, None)
    assert checked["invalid_citations"] == [9, 99]
    assert [s["supported"] for s in checked["sentences"]] == [False, False, False]  # no vectors: unconfirmed


def test_sentences_that_make_no_claim_are_not_flagged():
    for text in ("In short:", "Here is what I found.", "The documents do not say how often to do it.",
                 "The sources don't mention a warranty.", "Sure!"):
        assert makes_no_claim(text), text
    assert not makes_no_claim("The kettle switches off when the water boils.")
    checked = judge(plan("The documents do not say. Sure!", PASSAGES), None)
    assert checked["unsupported"] == 0


def test_code_in_an_answer_counts_only_when_a_passage_has_it():
    docs = [{"n": 1, "text": "Use it like this:\n\n    with open(p) as f:\n        data = f.read()\n"}]
    answer = "Like this [1]:\n\n```\nwith open(p) as f:\n    data = f.read()\n```\n\nOr:\n\n```\nf = open(p); f.close(); os.remove(p)\n```\n"
    checked = judge(plan(answer, docs), None)
    code = [s for s in checked["sentences"] if s["text"].startswith("```")]
    assert [s["supported"] for s in code] == [True, False]


def test_offsets_point_into_the_answer():
    text = "Descale the kettle every month [1].  Chains never need oil."
    checked = judge(plan(text, PASSAGES), None)
    assert [text[s["start"]:s["end"]] for s in checked["sentences"]] == [s["text"] for s in checked["sentences"]]


def test_check_with_the_real_model(embedder):
    text = ("Descale the kettle every month with white vinegar [1]. The kettle can also be used to cook pasta [1]. "
            "Pump the tyres to 4 bar before a long ride [2][9]. Chains never need oil. In short:")
    checked = run(check_answer(embedder, text, PASSAGES))
    assert [s["supported"] for s in checked["sentences"]] == [True, False, True, False, True]
    assert checked["unsupported"] == 2 and checked["invalid_citations"] == [9]
    sims = [s["similarity"] for s in checked["sentences"]]
    assert sims[0] >= SUPPORT_THRESHOLD > sims[1] and sims[3] is None and sims[4] is None


def test_empty_and_odd_inputs(embedder):
    assert run(check_answer(embedder, "", PASSAGES)) == {"sentences": [], "unsupported": 0, "invalid_citations": []}
    assert run(check_answer(embedder, "Anything [1].", []))["invalid_citations"] == [1]
    out = run(check_answer(embedder, "Это чайник [1]. ケトルです [1]。", PASSAGES))
    assert len(out["sentences"]) >= 1  # another script: checked, no crash
    long = " ".join(f"Claim number {i} about kettles [1]." for i in range(500))
    assert len(run(check_answer(embedder, long, PASSAGES))["sentences"]) <= 60  # bounded work


def _similarity(embedder, claim: str, text: str) -> float:
    return run(check_answer(embedder, claim + " [1]", [{"n": 1, "text": text}]))["sentences"][0]["similarity"]


def test_threshold_on_the_calibration_pairs(embedder):
    """Paraphrases of a passage pass; claims about other topics fail. Claims on the same topic
    that the passage does not make are the known weak spot: most, not all, are caught."""
    supported = [_similarity(embedder, claim, passage(t, where)) for t, where, claim in SUPPORTED]
    assert all(s >= SUPPORT_THRESHOLD for s in supported), supported
    other = [_similarity(embedder, claim, passage(t2, w2))
             for i, (t, _, claim) in enumerate(SUPPORTED) for t2, w2, _ in SUPPORTED[i + 1::3] if t2 != t]
    assert sum(s < SUPPORT_THRESHOLD for s in other) >= 0.95 * len(other)
    same_topic = [_similarity(embedder, claim, passage(t, where)) for t, where, claim in UNSUPPORTED]
    assert sum(s < SUPPORT_THRESHOLD for s in same_topic) >= len(same_topic) // 2
