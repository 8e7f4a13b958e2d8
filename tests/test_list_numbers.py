"""Numbered lists keep the numbers their program draws: letters, roman numerals, "(1)", "1.2",
numbering that goes on past an interruption or restarts, and a sub-list that starts again under
each item. Word, OpenDocument, PowerPoint and HTML, natively (the page runs the same readers)."""

from __future__ import annotations

import io

import formats
from readingroom.extract import extract
from readingroom.extract.numbering import label
from readingroom.text import sentences

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _lvl(ilvl: int, fmt: str, text: str, start: int = 1, legal: bool = False) -> str:
    return (f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/>'
            f'{"<w:isLgl/>" if legal else ""}<w:lvlText w:val="{text}"/></w:lvl>')


BULLET = "\uf0b7"  # Symbol font's bullet, as Word writes it
UNCHECKED, CHECKED = "\u2610", "\u2612"  # a task list's boxes
NUMBERING = f"""<w:numbering {W}>
<w:abstractNum w:abstractNumId="0">{_lvl(0, "decimal", "%1.")}{_lvl(1, "lowerLetter", "%2)")}{_lvl(2, "lowerRoman", "(%3)")}</w:abstractNum>
<w:abstractNum w:abstractNumId="1">{_lvl(0, "upperLetter", "%1.", start=3)}{_lvl(1, "decimal", "%1.%2")}</w:abstractNum>
<w:abstractNum w:abstractNumId="2">{_lvl(0, "upperRoman", "Article %1")}{_lvl(1, "decimal", "%1.%2", legal=True)}</w:abstractNum>
<w:abstractNum w:abstractNumId="3">{_lvl(0, "bullet", BULLET)}</w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="1"/></w:num>
<w:num w:numId="4"><w:abstractNumId w:val="2"/></w:num>
<w:abstractNum w:abstractNumId="4">{_lvl(0, "bullet", UNCHECKED)}</w:abstractNum>
<w:abstractNum w:abstractNumId="5">{_lvl(0, "bullet", CHECKED)}</w:abstractNum>
<w:abstractNum w:abstractNumId="6">{_lvl(0, "bullet", " ")}</w:abstractNum>
<w:abstractNum w:abstractNumId="7">{_lvl(0, "none", "%1.")}</w:abstractNum>
<w:num w:numId="5"><w:abstractNumId w:val="3"/></w:num>
<w:num w:numId="6"><w:abstractNumId w:val="4"/></w:num>
<w:num w:numId="7"><w:abstractNumId w:val="5"/></w:num>
<w:num w:numId="8"><w:abstractNumId w:val="6"/></w:num>
<w:num w:numId="9"><w:abstractNumId w:val="7"/></w:num>
</w:numbering>"""


def _p(text: str, num: int | None = None, ilvl: int = 0) -> str:
    ppr = f'<w:pPr><w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num}"/></w:numPr></w:pPr>' if num else ""
    return f"<w:p>{ppr}<w:r><w:t>{text}</w:t></w:r></w:p>"


DOCUMENT = f"""<w:document {W}><w:body>
{_p("Unlock the gate", 1)}{_p("Find the key", 1, 1)}{_p("Under the mat", 1, 2)}{_p("Behind the bell", 1, 2)}
{_p("Turn it twice", 1, 1)}{_p("Climb the stairs", 1)}{_p("Mind the loose step", 1, 1)}
{_p("Then wait for dusk.")}{_p("Light the lamp", 1)}{_p("Log the hour", 2)}
{_p("Keep watch", 3)}{_p("Sweep the glass", 3, 1)}
{_p("Duties", 4)}{_p("Duties", 4)}{_p("Wind the clock", 4, 1)}{_p("Oil the hinge", 5)}
{_p("Paint the rail", 6)}{_p("Fill the tank", 7)}{_p("Done on Monday", 8)}{_p("Unnumbered step", 9)}
</w:body></w:document>"""


def test_word_lists_are_numbered_as_word_draws_them():
    data = formats.with_member(formats.with_member(formats.docx_bytes(), "word/numbering.xml", NUMBERING),
                               "word/document.xml", DOCUMENT)
    lines = extract("keeper.docx", data).text().split("\n\n")
    assert lines == [
        "1. Unlock the gate", "  a) Find the key", "    (i) Under the mat", "    (ii) Behind the bell",
        "  b) Turn it twice", "2. Climb the stairs",
        "  a) Mind the loose step",  # a sub-list starts again under each item
        "Then wait for dusk.",
        "3. Light the lamp",  # the same list goes on past a paragraph between its items
        "1. Log the hour",  # another instance that restarts it (startOverride)
        "C. Keep watch", "  C.1 Sweep the glass",  # starts at 3, drawn as a letter; "%1.%2"
        "Article I Duties", "Article II Duties", "  2.1 Wind the clock",  # isLgl: "2.1", not "II.1"
        "- Oil the hinge",
        "\u2610 Paint the rail", "\u2612 Fill the tank",  # a task list's boxes say what is done
        "Done on Monday",  # a bullet drawn as a space: a paragraph that goes on under its item
        "Unnumbered step",  # numbering "none": no number, and no stray "."
    ], lines


ODT = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
       'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
       'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"')
ODT_LISTS = f"""<office:document-content {ODT} office:version="1.3">
<office:automatic-styles>
  <text:list-style style:name="L1">
    <text:list-level-style-number text:level="1" style:num-format="A" style:num-suffix=")" text:start-value="26"/>
    <text:list-level-style-number text:level="2" style:num-format="i" style:num-prefix="(" style:num-suffix=")" text:display-levels="2"/>
  </text:list-style>
</office:automatic-styles>
<office:body><office:text>
<text:list text:style-name="L1">
  <text:list-item><text:p>Charts</text:p></text:list-item>
  <text:list-item><text:p>Logs</text:p>
    <text:list><text:list-item><text:p>Weather</text:p></text:list-item><text:list-item><text:p>Ships</text:p></text:list-item></text:list>
  </text:list-item>
</text:list>
</office:text></office:body></office:document-content>"""


def test_opendocument_lists_draw_their_style_letters_numerals_prefix_suffix_and_levels():
    text = extract("keeper.odt", formats.with_member(formats.odt_bytes(), "content.xml", ODT_LISTS)).text()
    assert text.split("\n\n") == ["Z) Charts", "AA) Logs", "  (AA.i) Weather", "  (AA.ii) Ships"], text


def test_powerpoint_numbered_paragraphs_count_in_their_scheme():
    from pptx import Presentation
    from pptx.oxml.ns import qn

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "Night watch"
    frame = slide.placeholders[1].text_frame
    rows = [("Check the lens", 0, "alphaUcParenR", "2"), ("Wipe it", 1, "romanLcPeriod", None),
            ("Dry it", 1, "romanLcPeriod", None), ("Trim the wick", 0, "alphaUcParenR", None),
            ("Sign the log", 0, None, None)]
    for i, (text, lvl, scheme, start) in enumerate(rows):
        p = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
        p.text, p.level = text, lvl
        if scheme:
            auto = p._p.get_or_add_pPr().makeelement(qn("a:buAutoNum"), {"type": scheme, **({"startAt": start} if start else {})})
            p._p.get_or_add_pPr().append(auto)
    buf = io.BytesIO()
    prs.save(buf)
    section = extract("watch.pptx", buf.getvalue()).sections[0]
    assert section.text == "Night watch\n\nB) Check the lens\n  i. Wipe it\n  ii. Dry it\nC) Trim the wick\nSign the log", section.text


def test_html_ordered_lists_keep_type_start_and_value():
    html = (b'<ol type="a" start="3"><li>Charts<li>Logs<li value="10">Flags<li>Bells</ol>'
            b'<ol type="I"><li>Winter<ol type="i"><li>Ice</ol></ol>')
    text = extract("duties.html", html).text()
    assert [x.strip() for x in text.split("\n\n") if x.strip()] == [
        "c. Charts", "d. Logs", "j. Flags", "k. Bells", "I. Winter", "i. Ice"], text


def test_numbers_past_the_alphabet_and_the_numerals():
    assert [label(n, "lowerLetter") for n in (1, 26, 27, 28)] == ["a", "z", "aa", "bb"]  # Word
    assert [label(n, "a") for n in (26, 27, 28, 703)] == ["z", "aa", "ab", "aaa"]  # OpenDocument, HTML
    assert [label(n, "I") for n in (4, 9, 14, 1994, 4000)] == ["IV", "IX", "XIV", "MCMXCIV", "4000"]
    assert label(0, "a") == "0" and label(7, "decimalZero") == "07" and label(3, "none") == ""
    assert label(5, "chineseCounting") == "5"  # a scheme not drawn: its number


def test_a_letter_or_numeral_opening_a_list_item_is_not_a_sentence_of_its_own():
    for text in ("b. Find the key under the mat. It is old.", "xiv. Sweep the glass. Then rest."):
        first = sentences.prose(text, 0, len(text))[0].text
        assert first.endswith("mat.") or first.endswith("glass."), first
