"""``bench summaries`` end to end on a tiny SumPubMed-shaped fixture (tests/data/summaries: four
short articles of our own, lower-cased with BACKGROUND/RESULTS/CONCLUSIONS, and their
abstracts), natively with the real model; and the ROUGE it computes, on cases worked by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from readingroom.bench import summaries as bench

DATA = Path(__file__).parent / "data" / "summaries"


def test_rouge_on_cases_worked_by_hand():
    for text in ("Owls hunt at night.", "a b c a b"):
        assert bench.scores(text, text) == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    cand, ref = "the cat sat on the mat".split(), "the cat lay on a mat".split()
    assert bench.rouge_n(cand, ref, 1) == pytest.approx(4 / 6)  # the, cat, on, mat
    assert bench.rouge_n(cand, ref, 2) == pytest.approx(1 / 5)  # "the cat"
    assert bench.rouge_l(cand, ref) == pytest.approx(4 / 6)  # the cat on mat
    assert bench.rouge_l("a b c".split(), "c b a".split()) == pytest.approx(1 / 3)  # order counts
    assert bench.scores("", "owls") == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}


def test_the_command_reports_both_parts_with_real_numbers(tmp_path, model_dir, capsys):
    out = tmp_path / "summaries.json"
    assert bench.main(["--data", str(DATA), "--dev-last", "2", "--index-cost", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    res = json.loads(out.read_text())
    s = res["summaries"]
    assert s["documents"] == 4 and s["dev_last"] == 2
    assert {k: v["articles"] for k, v in s["parts"].items()} == {"development": "1-2", "report": "3-4"}
    for part in s["parts"].values():
        assert part["documents"] == 2
        for method in ("ours", "lead", "textrank"):
            assert all(0.0 < part["mean"][method][r] <= 1.0 for r in ("rouge1", "rouge2", "rougeL"))
    rows = {r["n"]: r for r in s["rows"]}
    # the numbers are real: abstract_1 is text_1's first five sentences, and a short note gets five
    assert rows[1]["k"] == 5
    assert rows[1]["lead"] == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    for r in rows.values():
        body = " ".join(bench.readable((DATA / "text" / f"text_{r['n']}.txt").read_text()).split())
        assert len(r["texts"]["ours"]) == r["k"]
        assert all(" ".join(t.split()) in body for t in r["texts"]["ours"])  # verbatim
        assert " ".join(r["texts"]["textrank"].split()) != "" and r["texts"]["textrank"].count(". ") <= r["k"]
        assert bench.scores(" ".join(r["texts"]["ours"]), bench.reference(
            (DATA / "abstract" / f"abstract_{r['n']}.txt").read_text())) == r["ours"]
    assert 0 < s["summary_open_ms_median"] and 0 < s["add_s_median"]
    # the part means are the means of the rows
    dev = [rows[1], rows[2]]
    assert s["parts"]["development"]["mean"]["ours"]["rougeL"] == pytest.approx(
        sum(r["ours"]["rougeL"] for r in dev) / 2)
    # indexing with and without the summary kept: only the first library keeps them
    c = res["index_cost"]
    assert c["documents"] == 2 and c["with_s"] > 0 and c["without_s"] > 0
    assert c["summaries_kept"] == {"with": 3, "without": 0}  # two articles and the warm-up note
    assert 0 < c["keep_s"] < c["with_s"] and c["keep_share"] == pytest.approx(c["keep_s"] / c["with_s"])
    # the printed table: both parts, the split stated, the load average
    assert "development part = articles 1-2" in printed
    assert len(re.findall(r"^\| (development|report) \(", printed, re.M)) == 6
    assert re.search(r"load average: \[[\d., ]+\] -> \[[\d., ]+\]", printed)
    assert res["load_average"]["start"] and res["load_average"]["end"]


def test_routing_share_on_the_written_question_set():
    r = bench.routing()
    assert r["questions"] >= 40 and r["correct"] + len(r["wrong"]) == r["questions"]
    assert r["share"] >= 0.95  # the target
    assert r["share"] == r["correct"] / r["questions"]


def test_routing_counts_a_wrong_decision_as_wrong(tmp_path):
    spec = {"documents": [{"name": "R-data.pdf", "title": "R Data Import/Export"}, {"name": "R-intro.pdf"}],
            "questions": [{"q": "Summarise R-data.pdf", "kind": "summary", "docs": ["R-data.pdf"]},
                          {"q": "Summarise R-data.pdf", "kind": "summary", "docs": ["R-intro.pdf"]},
                          {"q": "What does R-data.pdf say about CSV?", "kind": "passages"}]}
    path = tmp_path / "routing.json"
    path.write_text(json.dumps(spec))
    r = bench.routing(path)
    assert (r["questions"], r["correct"]) == (3, 2)
    assert r["wrong"][0]["want"]["docs"] == ["R-intro.pdf"]
