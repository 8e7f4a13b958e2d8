"""``bench.answers_tables`` on a WikiTableQuestions-shaped folder made here (the real one is
fetched at development time and never committed): tables indexed through the CSV reader,
questions asked through ``Library.ask``, the figures and the baseline computed as described."""

from __future__ import annotations

import json

from readingroom.bench import answers_tables as T

PLANETS = "Planet,Moons,Discovered by\nMars,2,ancient\nJupiter,95,ancient\nUranus,28,William Herschel\nNeptune,16,Johann Galle\n"
RIVERS = "River,Country,Length (km)\nDanube,Austria,2850\nLoire,France,1006\nTagus,Portugal,1007\n"


def _checkout(tmp_path):
    (tmp_path / "csv" / "200-csv").mkdir(parents=True)
    (tmp_path / "data").mkdir()
    (tmp_path / "csv" / "200-csv" / "0.csv").write_text(PLANETS)
    (tmp_path / "csv" / "200-csv" / "1.csv").write_text(RIVERS)
    rows = ["id\tutterance\tcontext\ttargetValue",
            "nu-0\twho discovered uranus?\tcsv/200-csv/0.csv\tWilliam Herschel",
            "nu-1\thow many moons does neptune have?\tcsv/200-csv/0.csv\t16",
            "nu-2\thow many planets were known in ancient times?\tcsv/200-csv/0.csv\t2",
            "nu-3\twhich country is the loire in?\tcsv/200-csv/1.csv\tFrance"]
    (tmp_path / T.SPLIT).write_text("\n".join(rows) + "\n")
    return tmp_path


def test_table_questions_are_asked_and_scored(tmp_path, capsys):
    root = _checkout(tmp_path)
    items, tables = T.questions(root, 1)
    assert tables == ["csv/200-csv/0.csv"] and [i["id"] for i in items] == ["nu-0", "nu-1", "nu-2"]
    assert T.main(["--wtq", str(root), "--tables", "2", "--json", str(tmp_path / "out.json")]) == 0
    d = json.loads((tmp_path / "out.json").read_text())
    assert (d["tables"], d["tables_added"], d["all"]["questions"]) == (2, 2, 4)
    by_id = {r["id"]: r for r in d["records"]}
    # a lookup is answered by its row, first; "2" is a cell, but the count it asks for is not one row's
    assert by_id["nu-0"]["first"] and by_id["nu-3"]["first"] and by_id["nu-1"]["answer"]
    assert [by_id[i]["cell"] for i in ("nu-0", "nu-1", "nu-2", "nu-3")] == [True, True, True, True]
    assert d["cell_answers"]["questions"] == 4 and d["all"]["answer"] >= 0.75
    assert "| all | 4 |" in capsys.readouterr().out


def test_the_baseline_and_the_answer_match():
    passage = "| River | Country |\n|---|---|\n| Loire | France |\n| Tagus | Portugal |"
    assert T.baseline_row("which country is the tagus in?", passage) == "| Tagus | Portugal |"
    assert T.baseline_row("nothing shared", passage) == ""
    assert T.holds("| Danube | Austria | 2850 |", ["austria", "2850"]) and not T.holds("x", [])
    assert T.doc_name("csv/203-csv/733.csv") == "203-csv-733.csv"


def test_a_folder_without_the_split_is_refused(tmp_path, capsys):
    assert T.main(["--wtq", str(tmp_path), "--json", str(tmp_path / "o.json")]) == 2
    assert "not found" in capsys.readouterr().err
