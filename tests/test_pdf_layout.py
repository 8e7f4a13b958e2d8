"""PDFs as a person reads them (``extract.pdfclean``): running heads, footers and page numbers
gone, broken words joined, ligatures undone, the outline as heading paths, two columns in
order. The page hands pdf.js's pages and outline to the same function (tests/browser)."""

from __future__ import annotations

import formats
import formats_extra
from readingroom.extract import extract
from readingroom.extract.pdfclean import document


def test_a_generated_report_reads_cleanly_with_its_outline():
    doc = extract("guide.pdf", formats.report_pdf(two_column=True))
    text = doc.text()
    assert "Field Guide to Northern Birds" not in text and "Page " not in text
    assert "differ-" not in text and text.count("differences") == 5
    assert [(s.heading_path, s.page) for s in doc.sections] == [
        ((f"{n} {bird}",), n) for n, bird in enumerate(["Owls", "Gulls", "Puffins", "Terns", "Ravens"], 1)
    ] + [(("6 Two columns",), 6)]
    columns = doc.sections[-1].text
    assert columns.index("RIGHTCOLUMN") > columns.rindex("Waders")


def test_running_heads_with_the_page_number_ligatures_and_words_across_pages():
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    pages = [f"Chapter {1 + n // 4}: Methods {n + 5}\nThe {words[n]} ﬁrst result is a broad ﬁnding\n"
             f"that the case needs more obser-\nvation of {words[n]}.\n{n + 5}" for n in range(12)]
    pages[3] = pages[3].replace("more obser-\nvation of delta.", "many obser-")
    pages[4] = pages[4].replace("Chapter 2: Methods 9\n", "Chapter 2: Methods 9\nvations here.\n")
    doc = document("m.pdf", pages, [(1, "Methods", 1), (2, "Later", 7)])
    text = doc.text()
    assert "Chapter" not in text and "\n5\n" not in text and "ﬁ" not in text
    flat = " ".join(text.split())
    assert "first result" in flat and "observation of alpha." in flat and "many observations here." in flat
    assert {s.heading_path for s in doc.sections} == {("Methods",), ("Methods", "Later")}


def test_pages_that_all_say_the_same_are_text_not_running_heads():
    """One page printed four ways (pypdf's sample of a rotated page), a form repeated: every
    line repeats on every page, and dropping them as running heads left nothing at all."""
    doc = document("notice.pdf", ["Closed on Monday\nfor the harvest fair"] * 4)
    assert [s.text for s in doc.sections] == ["Closed on Monday\nfor the harvest fair"] * 4


def test_characters_a_font_maps_to_nothing_are_spaces_not_a_refusal():
    """pdflatex's math minus comes out of pypdf as NUL: the page is text with a gap, never
    "a binary file"."""
    from readingroom.ingest.chunking import ChunkSettings
    from readingroom.ingest.documents import prepare_document
    from readingroom import NewDocument
    from unittest import mock

    import readingroom.extract.pdf as pdf

    pages = ["The map \u03c0\x001(U) is open when U is.\nIt holds for a\x00b in Z."]
    with mock.patch.object(pdf, "pdf_pages", return_value=(pages, [])):
        _doc, text, chunks = prepare_document(NewDocument("topo.pdf", data=b"%PDF-1.4"), ChunkSettings())
    assert "\x00" not in text and "\u03c0 1(U)" in text and chunks


def test_a_pdf_without_text_is_refused_with_a_reason(library):
    from helpers import run
    from readingroom import NewDocument
    from badinput import pdf_bytes

    [out] = run(library.add([NewDocument("scan.pdf", data=pdf_bytes(["x"], image_only=True))]))
    assert out.error["type"] == "empty_document" and "no text layer" in out.error["message"]


def test_split_ligatures_are_joined_when_the_document_knows_the_word():
    from readingroom.extract.pdfclean import join_split_ligatures

    pages = ["Use f ixed width f ormatted files for the of f ice.", "A fixed layout; f is a function, f form is a form.",
             "The e ffi cient way is to keep the office open: f irst things first."]
    out = join_split_ligatures(pages)
    assert out[0] == "Use fixed width formatted files for the office."  # "ormatted" is no word here
    assert out[1] == pages[1]  # "f is", "f form": a name, then words the document has on their own
    assert out[2] == "The efficient way is to keep the office open: first things first."


def test_a_split_ligature_is_joined_in_a_pdf_read_on_either_side():
    doc = document("m.pdf", ["Reading f ixed width f ormatted files.\nThe fixed kind is common."])
    assert "Reading fixed width formatted files." in doc.text()


def test_without_an_outline_larger_type_becomes_the_heading_path():
    doc = extract("survey.pdf", formats_extra.headed_pdf())
    paths = [s.heading_path for s in doc.sections]
    assert paths == [("Coastal Birds Survey",), ("Coastal Birds Survey", "Gulls and terns"),
                     ("Coastal Birds Survey", "Gulls and terns", "Nesting sites"),
                     ("Coastal Birds Survey", "Puffins"), ("Coastal Birds Survey", "Puffins", "Burrows")]
    assert "Puffins: The survey counted" in doc.sections[3].text


def test_font_outline_is_a_pure_decision_on_runs():
    from readingroom.extract.pdffonts import font_outline

    body = ("Plain words of the body, set at the usual size of the text.\n", 10.0)
    pages = [[("Introduction\n", 18.0), body, body, ("A small caption\n", 8.0)],
             [("Methods", 14.0), (" and data\n", 14.0), body, ("Page 2 of 2\n", 10.0)]]
    assert font_outline(pages) == [(1, "Introduction", 1), (2, "Methods and data", 2)]
    assert font_outline([[body, body]]) == []  # one size: no headings
    toc = [("Contents\n", 18.0), ("1 Methods . . . . . . . . 3\n", 14.0), ("B\n", 14.0), body, body]
    assert font_outline([toc]) == [(1, "Contents", 1)]  # no entry with dot leaders, no lone letter
    assert font_outline([[("A paragraph set large " * 6 + "\n", 16.0), body, body]]) == []  # too long


def test_a_heading_wrapped_onto_two_lines_is_one_title():
    from readingroom.extract.pdffonts import font_outline

    body = ("Plain words of the body, set at the usual size of the text.\n", 10.0)
    wrapped = [("Effects of winter storms on the\n", 16.0), ("nesting colonies\n", 16.0), body, body]
    assert font_outline([wrapped]) == [(1, "Effects of winter storms on the nesting colonies", 1)]
    # two headings one under the other stay two: the second numbered, or the first a sentence
    numbered = [("Results\n", 16.0), ("2 Methods\n", 16.0), body, body]
    assert font_outline([numbered]) == [(1, "Results", 1), (1, "2 Methods", 1)]
    ended = [("What we found.\n", 16.0), ("Gulls\n", 16.0), body, body]
    assert font_outline([ended]) == [(1, "What we found.", 1), (1, "Gulls", 1)]


def test_a_wrapped_heading_in_a_pdf_heads_its_section_once():
    doc = extract("storms.pdf", formats_extra.wrapped_heading_pdf())
    paths = [s.heading_path for s in doc.sections]
    assert paths == [("Effects of winter storms on the nesting colonies",), ("Counts",)], paths
    assert "The storms of January flooded" in doc.sections[0].text
    assert "Four hundred pairs" in doc.sections[1].text


def test_an_accent_set_as_its_own_glyph_joins_its_letter():
    """TeX-made PDFs give "Fran¸cois" and "Universit¨at": the reader sees François and Universität."""
    from readingroom.extract.pdfclean import clean_pages

    pages = ["Suggested by Fran\u00b8cois Pinard at the Universit\u00a8at Wien.\nA caf\u00b4e.\n"]
    text = clean_pages(pages)[0]
    assert "François Pinard at the Universität Wien" in text and "café" in text and "\u00b8" not in text


def test_the_layout_bench_tells_a_running_head_from_a_label_the_text_repeats():
    from readingroom.bench.layout import running_shapes
    from readingroom.extract.pdfclean import _shape

    body = ["The plot command draws functions.", "Syntax:", "plot {<ranges>} <function>", "Example:",
            "plot sin(x)", "Syntax:", "replot", "Some prose about it."]
    pages = []
    for n in range(1, 9):
        lines = ["Chapter 3: Plotting", *body, *body[: n % 3], "Syntax:" if n % 2 else "more text", str(n)]
        pages.append("\n".join(lines))
    shapes = running_shapes(pages)
    assert _shape("Chapter 3: Plotting") in shapes  # the head on every page
    assert _shape("Syntax:") not in shapes  # at the foot of some pages, but mostly inside them


def test_the_layout_bench_measures_a_pdf_without_an_outline_as_ingestion_reads_it(tmp_path):
    # Ingestion gives a PDF without bookmarks headings by font size; the bench chunked its
    # "after" side without the font sizes and measured 0 % with a heading path.
    from readingroom.bench.layout import measure

    path = tmp_path / "headed.pdf"
    path.write_bytes(formats_extra.headed_pdf())
    m = measure(path)
    assert m["outline"] == 0 and m["after"]["chunks"]
    assert m["after"]["with_heading"] == m["after"]["chunks"]
