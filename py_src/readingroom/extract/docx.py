"""Word (.docx, .docm): headings from paragraph styles or outline levels, lists with their
markers, tables as pipe tables, footnotes and comments at the end of their section.
Macros in a .docm are never run: only its XML is read."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from ..errors import EmptyDocument
from .document import Document, Section, picture_text, set_in, table_blocks
from .docx_lists import Lists
from .smartart import diagram_lines, is_diagram
from .zipped import Package, local, main_part, relationships

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MAIN = "word/document.xml"


def _styles(pkg: Package) -> tuple[dict[str, int], dict[str, ET.Element]]:
    """styleId -> heading level (1-based; "Title" is 1), and styleId -> the list numbering
    (``numPr``) a list style such as "List Bullet" carries."""
    root = pkg.optional_xml("word/styles.xml")
    out: dict[str, int] = {}
    lists: dict[str, ET.Element] = {}
    if root is None:
        return out, lists
    for st in root.iter(f"{W}style"):
        sid = st.get(f"{W}styleId", "")
        num = st.find(f"{W}pPr/{W}numPr")
        if num is not None:
            lists[sid] = num
        name_el = st.find(f"{W}name")
        name = (name_el.get(f"{W}val", "") if name_el is not None else "").lower()
        lvl = st.find(f"{W}pPr/{W}outlineLvl")
        if name.startswith("heading ") and name[8:].isdigit():
            out[sid] = int(name[8:])
        elif name == "title":
            out[sid] = 1
        elif lvl is not None and lvl.get(f"{W}val", "").isdigit() and int(lvl.get(f"{W}val")) < 9:
            out[sid] = int(lvl.get(f"{W}val")) + 1
    return out, lists


def _notes(pkg: Package, member: str, tag: str) -> dict[str, str]:
    root = pkg.optional_xml(member)
    if root is None:
        return {}
    return {n.get(f"{W}id", ""): " ".join(_run_text(p) for p in n.iter(f"{W}p")).strip()
            for n in root.iter(f"{W}{tag}")}


_GONE = (f"{W}del", f"{W}moveFrom")  # tracked changes read as accepted: deleted and moved-away text left out
_SKIPPED = (*_GONE, f"{W}pPr",  # a paragraph's properties: its tab stops are not tabs in its text
            "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback")  # a text box's older copy


def _live(el: ET.Element):
    """``el`` and everything under it, in document order, except tracked deletions, the old
    place of moved text (their text is in ``delText``, or in ``t`` under ``moveFrom``), hidden
    runs and the fallback copy Word keeps of a text box or shape for older readers."""
    yield el
    for child in el:
        if child.tag not in _SKIPPED and not _hidden(child):
            yield from _live(child)


def _hidden(el: ET.Element) -> bool:
    """A run of hidden text (``w:vanish``): Word neither shows nor prints it."""
    if el.tag != f"{W}r":
        return False
    v = el.find(f"{W}rPr/{W}vanish")
    return v is not None and v.get(f"{W}val", "true") not in ("0", "false", "off")


def _runs_on(p: ET.Element) -> str | None:
    """How the paragraph runs on into the next one: " " when its own mark is a tracked
    deletion, "" when it is a drop cap (the first letter of the next); None: it does not."""
    mark = p.find(f"{W}pPr/{W}rPr")
    if mark is not None and any(mark.find(t) is not None for t in _GONE):
        return " "
    frame = p.find(f"{W}pPr/{W}framePr")
    return "" if frame is not None and frame.get(f"{W}dropCap", "none") != "none" else None


def _run_text(p: ET.Element, refs: list | None = None, diagram=None) -> str:
    """A paragraph's text: runs, tabs and breaks; deleted text left out; footnote and
    comment references noted in ``refs`` as (kind, id) and marked in the text."""
    out: list[str] = []
    pictures = []  # where in ``out`` a picture's alt text stands, to be set in once its neighbours are known
    for el in _live(p):
        tag = local(el.tag)
        if tag == "p" and el is not p:
            out.append("\n")  # a paragraph of a text box in this one: a line of its own
        elif tag == "t" and el.text:
            out.append(el.text)
        elif tag == "tab":
            out.append("\t")
        elif tag == "noBreakHyphen":
            out.append("-")
        elif tag in ("br", "cr"):
            out.append("\n")
        elif diagram is not None and is_diagram(el) and (lines := diagram(el)):  # SmartArt: its lines
            out.append("\n" + "\n".join(lines) + "\n")
        elif tag == "docPr" and (alt := picture_text(el.get("descr"))):  # a picture's alt text
            pictures.append(len(out))
            out.append(alt)
        elif tag in ("footnoteReference", "endnoteReference", "commentReference") and refs is not None:
            kind = tag.replace("Reference", "")
            refs.append((kind, el.get(f"{W}id", "")))
            out.append(f"[^{el.get(f'{W}id', '')}]" if kind != "comment" else "")
    for i in pictures:
        out[i] = set_in("".join(out[:i])[-1:], out[i], "".join(out[i + 1:])[:1])
    return "".join(out)


def _val(el: ET.Element | None, default: int, most: int = 50) -> int:
    """An element's whole-number ``w:val`` (a span, a count), at most ``most``."""
    v = el.get(f"{W}val", "") if el is not None else ""
    return min(most, int(v)) if v.isdigit() and int(v) > 0 else default


_WRAPPERS = (f"{W}sdt", f"{W}sdtContent", f"{W}customXml")  # content controls, custom XML: their content is the document's


def _within(parent: ET.Element, tag: str):
    """``parent``'s children named ``tag`` (rows of a table, cells of a row), also those a
    content control or custom XML element wraps."""
    for child in parent:
        if child.tag == f"{W}{tag}":
            yield child
        elif child.tag in _WRAPPERS:
            yield from _within(child, tag)


class _Reader:
    def __init__(self, pkg: Package, main: str = MAIN):
        links = relationships(pkg, main)
        self.diagram = lambda el: diagram_lines(pkg, el, links)
        self.styles, self.list_styles = _styles(pkg)
        self.lists = Lists(pkg, self.list_styles)
        self.notes = {"footnote": _notes(pkg, "word/footnotes.xml", "footnote"),
                      "endnote": _notes(pkg, "word/endnotes.xml", "endnote"),
                      "comment": _notes(pkg, "word/comments.xml", "comment")}
        self.sections: list[Section] = []
        self.path: list[tuple[int, str]] = []
        self.lines: list[str] = []
        self.refs: list[tuple[str, str]] = []
        self.joined = ""  # the text of paragraphs whose mark was deleted, run on into the next

    def end_run_on(self) -> None:
        """A paragraph left running on (its mark deleted, a drop cap) with nothing after it to
        join: it stands as it is."""
        if self.joined.strip():
            self.lines.append(self.joined.strip())
        self.joined = ""

    def flush(self) -> None:
        self.end_run_on()
        tail = []
        for kind, ref in self.refs:
            note = self.notes[kind].get(ref)
            if note:
                tail.append(f"[^{ref}]: {note}" if kind != "comment" else f"Comment: {note}")
        text = "\n\n".join(x for x in self.lines + tail if x.strip()).strip()
        if text:
            self.sections.append(Section(tuple(t for _, t in self.path), text))
        self.lines, self.refs = [], []

    def paragraph(self, p: ET.Element) -> None:
        ppr = p.find(f"{W}pPr")
        style = ppr.find(f"{W}pStyle") if ppr is not None else None
        level = self.styles.get(style.get(f"{W}val", "")) if style is not None else None
        own = ppr.find(f"{W}outlineLvl") if ppr is not None else None
        if level is None and own is not None and own.get(f"{W}val", "").isdigit() and int(own.get(f"{W}val")) < 9:
            level = int(own.get(f"{W}val")) + 1
        text = self.joined + _run_text(p, self.refs, self.diagram).strip()
        self.joined = ""
        glue = _runs_on(p)
        if glue is not None:
            self.joined = text + glue if text else ""
            return
        text = text.strip()
        if not text:
            return
        if level:
            self.flush()
            self.path = [(lvl, t) for lvl, t in self.path if lvl < level] + [(level, " ".join(text.split()))]
            self.lines.append(text)
            return
        num = ppr.find(f"{W}numPr") if ppr is not None else None
        if num is None and style is not None:
            num = self.list_styles.get(style.get(f"{W}val", ""))
        if num is not None and num.find(f"{W}numId") is not None:
            nid = num.find(f"{W}numId").get(f"{W}val", "")
            ilvl = num.find(f"{W}ilvl").get(f"{W}val", "0") if num.find(f"{W}ilvl") is not None else "0"
            depth = int(ilvl) if ilvl.isdigit() else 0
            marker = self.lists.marker(nid, depth)
            self.lines.append("  " * depth + (f"{marker} {text}" if marker else text))
            return
        self.lines.append(text)

    def table(self, tbl: ET.Element) -> None:
        self.end_run_on()
        rows = []
        above: dict[int, str] = {}  # grid column -> the text of the merged cell that starts above
        for tr in _within(tbl, "tr"):
            if tr.find(f"{W}trPr/{W}del") is not None:
                continue  # a row deleted with tracked changes
            row = [""] * _val(tr.find(f"{W}trPr/{W}gridBefore"), 0)  # grid columns the row skips
            for tc in _within(tr, "tc"):
                text = " ".join(self.cell(tc)).strip()
                merge = tc.find(f"{W}tcPr/{W}vMerge")
                if merge is not None and merge.get(f"{W}val", "continue") == "continue":
                    text = above.get(len(row), text)  # a cell merged with the one above: its value
                elif merge is not None:
                    above[len(row)] = text
                else:
                    above.pop(len(row), None)
                # a cell spanning grid columns stands in the first, the rest left empty (as HTML's)
                row += [text] + [""] * (_val(tc.find(f"{W}tcPr/{W}gridSpan"), 1) - 1)
            rows.append(row)
        rows = [r for r in rows if any(c for c in r)]
        if rows:
            self.lines.append(table_blocks(rows))

    def cell(self, el: ET.Element):
        """A table cell's paragraphs' texts, a table inside it read cell by cell (a text box's
        paragraphs are read with the paragraph that holds it, once)."""
        for child in el:
            if child.tag == f"{W}p":
                yield _run_text(child, self.refs, self.diagram).strip()
            elif child.tag in _WRAPPERS or child.tag in (f"{W}tbl", f"{W}tr", f"{W}tc"):
                yield from self.cell(child)

    def block(self, parent: ET.Element) -> None:
        for el in parent:
            tag = local(el.tag)
            if tag == "p":
                self.paragraph(el)
            elif tag == "tbl":
                self.table(el)
            elif el.tag in _WRAPPERS:
                self.block(el)


def read(name: str, data: bytes, kind: str = "a Word document") -> Document:
    pkg = Package(name, data, kind)
    main = main_part(pkg, MAIN)
    body = pkg.xml(main).find(f"{W}body")
    reader = _Reader(pkg, main)
    if body is not None:
        reader.block(body)
    reader.flush()
    if not reader.sections:
        raise EmptyDocument(f"{name} has no text to index")
    return Document("docx", reader.sections)
