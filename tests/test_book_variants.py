"""E-books and RTF as other tools make them, natively (the page runs the same readers under
Pyodide): a whole book in one file that the contents list points into, a chapter file whose
entry has its sections under it, headings whose markup spans lines, and RTF as Word writes it."""

from __future__ import annotations

import io
import zipfile

from readingroom.extract import extract
from readingroom.extract.html import html_to_text

CONTAINER = """<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"""


def epub(nav_items: str, chapters: dict[str, str]) -> bytes:
    """An EPUB 3 with a contents nav of ``nav_items`` (<li> elements) and these XHTML bodies."""
    items = "".join(f'<item id="c{i}" href="{n}" media-type="application/xhtml+xml"/>' for i, n in enumerate(chapters))
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    opf = f"""<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">
<metadata/><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>{items}</manifest>
<spine>{spine}</spine></package>"""
    nav = f"""<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body>
<nav epub:type="toc"><ol>{nav_items}</ol></nav>
<nav epub:type="landmarks"><ol><li><a epub:type="bodymatter" href="{next(iter(chapters))}#start">Start of content</a></li></ol></nav>
</body></html>"""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", CONTAINER)
        z.writestr("OEBPS/book.opf", opf)
        z.writestr("OEBPS/nav.xhtml", nav)
        for name, body in chapters.items():
            z.writestr(f"OEBPS/{name}", f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{body}</body></html>')
    return out.getvalue()


POEM = """<h1 id="start">The Tide Book</h1><p>A book of two songs.</p>
<h2 id="one">I. The Ebb</h2><p>The water leaves the harbour twice a day.</p>
<h2 id="two">II. The Flood</h2><p>The water comes back over the sand.</p>"""


def test_a_book_in_one_file_is_titled_by_its_own_headings_not_its_first_entry():
    data = epub('<li><a href="poem.xhtml#one">I. The Ebb</a></li><li><a href="poem.xhtml#two">II. The Flood</a></li>',
                {"poem.xhtml": POEM})
    sections = extract("tide.epub", data).sections
    paths = [s.heading_path for s in sections]
    assert paths == [("The Tide Book",), ("The Tide Book", "I. The Ebb"), ("The Tide Book", "II. The Flood")]
    # each section opens with its heading's words, as a Word file's do: no "#" a person would read
    assert [s.text.split("\n")[0] for s in sections] == ["The Tide Book", "I. The Ebb", "II. The Flood"]


def test_a_chapter_entry_with_its_sections_under_it_titles_its_file():
    chapters = {"ch1.xhtml": '<h2 id="a">Knots</h2><p>A bowline holds.</p><h3 id="b">Hitches</h3><p>A clove hitch slips.</p>',
                "ch2.xhtml": "<p>Sails are reefed in a blow.</p>"}
    nav = ('<li><a href="ch1.xhtml#a">Knots and ropes</a><ol><li><a href="ch1.xhtml#b">Hitches</a></li></ol></li>'
           '<li><a href="ch2.xhtml">Sails</a></li>')
    paths = [s.heading_path for s in extract("sailing.epub", epub(nav, chapters)).sections]
    assert paths[0][0] == "Knots and ropes" and paths[-1] == ("Sails",), paths
    assert ("Knots and ropes", "Knots", "Hitches") in paths or ("Knots and ropes", "Hitches") in paths, paths


def test_preformatted_code_keeps_its_indentation_as_a_code_block():
    """<pre><code> and a <pre> in a code-highlighting block are code, fenced, indentation kept;
    other preformatted text (a plain-text page, an RFC) keeps its lines and stays prose."""
    code = "<p>Code:</p><pre><code>\ndef status():\n    print( 'working' )\n</code></pre><p>After   the\ncode.</p>"
    assert html_to_text(code) == "Code:\n\n```\ndef status():\n    print( 'working' )\n```\n\nAfter the\ncode."
    sphinx = '<div class="highlight-python"><div class="highlight"><pre>x = 1\n    y = 2</pre></div></div><p>Done.</p>'
    assert html_to_text(sphinx) == "```\nx = 1\n    y = 2\n```\n\nDone."
    rfc = "<pre>\n1.  Introduction\n\n   The protocol   runs over TCP.\n</pre>"
    assert html_to_text(rfc) == "1.  Introduction\n\n   The protocol   runs over TCP."


def test_a_line_break_stays_inside_its_paragraph():
    """<br> breaks a line, not a paragraph: a sentence hard-wrapped with it stays one sentence
    (it was cut in two), an address stays one block; in a table cell it is a space."""
    html = "<p>The ferry leaves at nine<br/>and returns at six.</p><p>Ada Byron<br>Marlow</p><table><tr><td>a<br>b</td></tr></table>"
    assert html_to_text(html) == "The ferry leaves at nine\nand returns at six.\n\nAda Byron\nMarlow\n\n| a b |\n|---|"


def test_merged_cells_stand_under_each_column_they_span():
    """colspan and rowspan (Wikipedia's tables are full of them): each later cell stays under
    its own header (they moved left); a value merged down rows stands in each row, one merged
    across columns in the first of them; a malformed span is one cell."""
    html = ("<table><tr><th>Line</th><th colspan=2>Opened</th><th>Zone</th></tr>"
            "<tr><td rowspan=2>District</td><td>1868</td><td>May</td><td>1</td></tr>"
            "<tr><td>1871</td><td>June</td><td colspan='x'>2</td></tr>"
            "<tr><td colspan=4>Closed on Sundays.</td></tr></table>")
    assert html_to_text(html) == ("| Line | Opened | | Zone |\n|---|---|---|---|\n"
                                  "| District | 1868 | May | 1 |\n| District | 1871 | June | 2 |\n"
                                  "| Closed on Sundays. | | | |")


def test_hidden_elements_are_not_read():
    """Text the page does not show (Wikipedia's sort keys in display:none spans, ``hidden``)
    is not the document's text."""
    html = ('<p>Opened <span style="display:none; speak:none" class="sortkey">01879-07-01-0000</span>'
            '<span>1 July 1879</span><span hidden>draft <b>note</b></span>.</p>'
            '<div style="display: none"><div>menu</div><p>more menu</p></div><p>After.</p>')
    assert html_to_text(html) == "Opened 1 July 1879.\n\nAfter."


def test_hidden_elements_nested_in_each_other_or_holding_lists_leave_nothing_behind():
    """A hidden block inside another of the same tag kept the outer one open to the end of the
    page (everything after it was lost); a hidden list left its "-" markers as lines."""
    assert html_to_text('<div hidden><div style="display:none">a</div></div><p>After.</p>') == "After."
    assert html_to_text('<div style="display:none"><ul><li>menu</li></ul><table><tr><td>x</td></tr></table>'
                        '</div><ul><li>kept</li></ul>') == "- kept"


def test_a_sites_menus_are_not_read_unless_the_page_is_nothing_else():
    """``<nav>`` and ``role="navigation"`` (a documentation page's sidebar, its next/previous
    bar) are the site's links, not the page's text: their titles would match every question.
    A page of nothing but menus (a site map) is read with them."""
    page = ('<div class="related" role="navigation"><ul><li><a href="i.html">index</a></li></ul></div>'
            '<nav><ul><li>Home</li><li>About</li></ul></nav><div class="body"><h1>Boats</h1>'
            '<p>A rowing boat costs nine crowns an hour.</p></div>'
            '<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><ul><li>1. Whetting'
            '</li></ul></div><footer><p>Printed 2026</p></footer>')
    doc = extract("boats.html", page.encode())
    assert doc.text() == "Boats\n\nA rowing boat costs nine crowns an hour.\n\nPrinted 2026"
    assert [s.heading_path for s in doc.sections] == [("Boats",)]
    site_map = extract("map.html", b'<nav><ul><li><a href="a.html">Boats</a></li><li><a href="b.html">Tides</a></li></ul></nav>')
    assert site_map.text() == "- Boats\n\n- Tides"


def test_a_heading_whose_markup_spans_lines_stays_one_heading():
    html = "<h2><span>[REQUIRED]</span>\n   <span>test-1</span> Rendering<br/>of sums</h2><p>Sums\nare drawn.</p>"
    assert html_to_text(html) == "## [REQUIRED] test-1 Rendering of sums\n\nSums\nare drawn."


RTF = (rb"{\rtf1\ansi\ansicpg1252{\fonttbl\f0 Helvetica;}"
       rb"{\listtext\tab \u8226 \tab}First item.\par "
       rb"The lease is signed.{\super\chftn}{\footnote \pard\plain {\super\chftn} By both parties.} It runs a year.\par "
       rb"Visible {\v hidden words} text.\par "
       rb"\pard\intbl\itap2 Deep A\nestcell Deep B\nestcell{\*\nesttableprops\trowd\cellx2000\cellx4000\nestrow}"
       rb"{\nonesttables FLAT COPY\par}\pard\intbl\itap1 Outer\cell\row\pard\itap0 After.\par}")


def test_rtf_as_word_writes_it_fallbacks_footnotes_hidden_text_and_nested_tables():
    """After \\uN one fallback character is skipped, and a control word counts as one ("First"
    lost its F); a footnote is set apart from the sentence it follows; hidden text and the
    flat copy of a nested table kept for old readers are not the document's text."""
    from readingroom.extract.rtf import rtf_text

    text = rtf_text("lease.rtf", RTF)
    assert text == ("\u2022First item.\n\nThe lease is signed. (By both parties.) It runs a year.\n\n"
                    "Visible  text.\n\n| Deep A; Deep B; Outer |\n|---|\n\nAfter."), text


WORD_TABLE = (rb"{\rtf1\ansi{\fonttbl\f0 Calibri;}\pard Lights of the coast\par "
              rb"\trowd\cellx3000\cellx6000\pard\intbl Station\cell Keeper\cell\row "
              rb"\trowd\cellx3000\cellx6000\pard\intbl Gull Rock\cell\pard\intbl J. Innes\par "
              rb"\pard\intbl (since 1990)\cell\row "
              rb"{\trowd\cellx3000\cellx6000{\pard\intbl Black Ness\par}\cell{\pard\intbl A. Moray\par}\cell\intbl\row}"
              rb"\pard Both are lit at dusk.\par}")


def test_an_rtf_table_is_a_pipe_table_its_cells_paragraphs_in_their_cell():
    """A table in RTF (Word's, or pandoc's with each cell's paragraph in a group of its own) is
    read as a pipe table like every other format's; it was cells strung on lines with " | "
    between them, a cell of two paragraphs broken across lines."""
    from readingroom.extract.rtf import rtf_text

    assert rtf_text("lights.rtf", WORD_TABLE) == (
        "Lights of the coast\n\n| Station | Keeper |\n|---|---|\n| Gull Rock | J. Innes (since 1990) |\n"
        "| Black Ness | A. Moray |\n\nBoth are lit at dusk.")


def test_an_ebooks_page_break_markers_are_not_read_into_its_sentences_and_xhtml_is_html():
    """EPUB 3 marks where the printed edition's pages break (``epub:type="pagebreak"``,
    ``role="doc-pagebreak"``); their numbers were read into the sentence ("who suffer. 190 I
    will", IDPF's childrens-literature sample). A .xhtml file (a chapter saved on its own) was
    refused as not read."""
    xhtml = ('<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
             'xmlns:epub="http://www.idpf.org/2007/ops"><body><h1>The clover</h1><p>Those who suffer. '
             '<span epub:type="pagebreak" title="190" id="Page_190">190</span> I will help them, '
             'said the <span role="doc-pagebreak" aria-label="191">191</span>fairy.</p></body></html>')
    doc = extract("clover.xhtml", xhtml.encode())
    assert doc.doc_type == "html"
    assert doc.text() == "The clover\n\nThose who suffer. I will help them, said the fairy."
    assert [s.heading_path for s in doc.sections] == [("The clover",)]


def test_rtf_written_on_a_mac_is_read_in_its_character_set():
    """openpreserve's format-corpus lorem-ipsum.rtf says ``\\ansicpg10000`` (Mac Roman), a code
    page Python knows by another name: reading it raised LookupError. An unknown page reads as
    Windows-1252."""
    mac = rb"{\rtf1\ansi\ansicpg10000 Caf\'8e cr\'8fme, \'d2quoted\'d3.\par}"
    assert extract("menu.rtf", mac).text() == "Caf\u00e9 cr\u00e8me, \u201cquoted\u201d."
    assert extract("old.rtf", rb"{\rtf1\mac Caf\'8e.\par}").text() == "Caf\u00e9."
    assert extract("odd.rtf", rb"{\rtf1\ansi\ansicpg99999 caf\'e9.\par}").text() == "caf\u00e9."
