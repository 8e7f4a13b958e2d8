"""``text.table_rows``: a pipe table's data rows, each verbatim and read with its header."""

from __future__ import annotations

from readingroom.text.table_rows import cells, reading, rows

TABLE = "| Item | Amount \\| currency |\n|---|---|\n| Printer toner | 120 EUR |\n|  | 7 |\n| Paper |  |"


def test_each_data_row_is_its_own_line_read_with_its_column_names():
    got = rows("Costs.\n\n" + TABLE, 8, 8 + len(TABLE))
    text = "Costs.\n\n" + TABLE
    assert [text[r.start:r.end] for r in got] == ["| Printer toner | 120 EUR |", "|  | 7 |", "| Paper |  |"]
    assert {r.header for r in got} == {"| Item | Amount \\| currency |"}
    assert [r.reads for r in got] == ["Item: Printer toner; Amount | currency: 120 EUR",
                                      "Amount | currency: 7", "Item: Paper"]


def test_a_piece_without_its_header_and_text_that_is_not_a_pipe_table():
    piece = "| Region 7 | Manager 7 | 7000 |\n| Region 8 | Manager 8 | 8000 |"
    got = rows(piece, 0, len(piece))
    assert [(r.header, r.reads) for r in got] == [("", "Region 7; Manager 7; 7000"), ("", "Region 8; Manager 8; 8000")]
    aligned = "Name     Age\nAlice    31\nBob      42"
    assert rows(aligned, 0, len(aligned)) == []
    mixed = "| a | b |\nnot a row"
    assert rows(mixed, 0, len(mixed)) == []


def test_cells_and_reading():
    assert cells("| a | b \\| c |") == ["a", "b | c"]
    assert cells("a | b") == ["a", "b"]
    assert reading("| Part | Count |", "| Flux capacitors | 3 |") == "Part: Flux capacitors; Count: 3"
    assert reading("| x | y |", "| x | 2 | extra |") == "x; y: 2; extra"  # a name equal to its value is said once
