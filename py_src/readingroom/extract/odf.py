"""OpenDocument (.odt, .odp, .ods) from ``content.xml``: text headings by outline level,
lists with markers, tables; presentation pages titled, with their notes; spreadsheets as
``sheets`` does them. Footnotes and comments stay at the end of their section."""

from __future__ import annotations

from dataclasses import dataclass
from xml.etree import ElementTree as ET

from .. import places
from ..errors import EmptyDocument, Encrypted
from .document import Document, Section, picture_text, set_in, table_blocks
from .numbering import label
from .sheets import Budget, sheet_sections
from .zipped import Package, local

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
PRES = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
KINDS = {"odt": "an OpenDocument text", "odp": "an OpenDocument presentation", "ods": "an OpenDocument spreadsheet"}
MAX_REPEAT = 1000  # repeated empty rows and columns pad a sheet to its full size


def _inline(el: ET.Element, notes: list[str]) -> str:
    """Text of a paragraph or heading; notes and comments go to ``notes``."""
    out = [el.text or ""]
    for child in el:
        tag = local(child.tag)
        if tag == "s":
            out.append(" " * int(child.get(f"{TEXT}c", "1")))
        elif tag == "tab":
            out.append("\t")
        elif tag == "line-break":
            out.append("\n")
        elif tag == "note":
            cite = child.find(f"{TEXT}note-citation")
            mark = (cite.text or "").strip() if cite is not None else ""
            body = child.find(f"{TEXT}note-body")
            out.append(f"[^{mark}]")
            if body is not None:
                notes.append(f"[^{mark}]: " + " ".join(_inline(p, notes) for p in body.iter(f"{TEXT}p")).strip())
        elif tag == "annotation":
            notes.append("Comment: " + " ".join(_inline(p, notes) for p in child.iter(f"{TEXT}p")).strip())
        elif child.tag in (f"{SVG}title", f"{SVG}desc"):
            pass  # a frame's name and alternative text: below, for a picture
        elif tag not in ("annotation-end", "bookmark", "bookmark-start", "bookmark-end"):
            if tag == "frame" and any(local(c.tag) == "image" for c in child):
                words = child.find(f"{SVG}desc")
                words = words if words is not None else child.find(f"{SVG}title")
                if alt := picture_text("".join(words.itertext()) if words is not None else ""):
                    out.append(set_in("".join(out)[-1:], alt, child.tail or ""))
            out.append(_inline(child, notes))
        out.append(child.tail or "")
    return "".join(out)


def _cells(row: ET.Element, notes: list[str]) -> list[str]:
    out: list[str] = []
    for cell in row:
        if local(cell.tag) not in ("table-cell", "covered-table-cell"):
            continue
        text = " ".join(_inline(p, notes).strip() for p in cell.iter(f"{TEXT}p")).strip()
        repeat = int(cell.get(f"{TABLE}number-columns-repeated", "1"))
        out += [text] * min(repeat, MAX_REPEAT)
    while out and not out[-1]:
        out.pop()
    return out


def _rows(table: ET.Element, notes: list[str], budget: Budget | None = None) -> list[tuple[int, list[str]]]:
    rows, number = [], 0
    for row in table.iter(f"{TABLE}table-row"):
        cells = _cells(row, notes)
        repeat = int(row.get(f"{TABLE}number-rows-repeated", "1"))
        copies = min(repeat, MAX_REPEAT) if cells else 0
        for _ in range(copies):
            number += 1
            if budget is not None and not budget.take(cells):
                return rows
            rows.append((number, cells))
        number += repeat - copies
    return rows


@dataclass(frozen=True)
class Numbered:
    """A numbered level of a list style: its first number, its format ("1", "a", "A", "i", "I"
    or "" for none), what stands before and after the number, and how many levels' numbers
    the marker shows ("1.2." shows two)."""
    start: int = 1
    fmt: str = "1"
    prefix: str = ""
    suffix: str = "."
    shown: int = 1


def _numbered(lvl: ET.Element) -> Numbered:
    start = lvl.get(f"{TEXT}start-value", "1")
    shown = lvl.get(f"{TEXT}display-levels", "1")
    prefix, suffix = lvl.get(f"{STYLE}num-prefix"), lvl.get(f"{STYLE}num-suffix")
    return Numbered(start=int(start) if start.isdigit() else 1, fmt=lvl.get(f"{STYLE}num-format", "1"),
                    # neither given: "1." as before, rather than a bare number run into the text
                    prefix=prefix or "", suffix="." if prefix is None and suffix is None else suffix or "",
                    shown=int(shown) if shown.isdigit() else 1)


def list_styles(*roots: ET.Element | None) -> dict[str, dict[int, Numbered | None]]:
    """List style name -> {level: how its items are numbered, or None where the level is drawn
    with a bullet or a picture} from ``text:list-style`` definitions."""
    out: dict[str, dict[int, Numbered | None]] = {}
    for root in roots:
        for st in (root.iter(f"{TEXT}list-style") if root is not None else ()):
            levels: dict[int, Numbered | None] = {}
            for lvl in st:
                if local(lvl.tag).startswith("list-level-style-") and lvl.get(f"{TEXT}level", "").isdigit():
                    levels[int(lvl.get(f"{TEXT}level"))] = (
                        _numbered(lvl) if local(lvl.tag) == "list-level-style-number" else None)
            out[st.get(f"{STYLE}name", "")] = levels
    return out


class _Text:
    def __init__(self, numbered: dict[str, dict[int, Numbered | None]] | None = None):
        self.sections: list[Section] = []
        self.path: list[tuple[int, str]] = []
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.numbered = numbered or {}
        self.style = ""  # the outermost list's style: a nested list is drawn by its levels
        self.counted: dict[str, int] = {}  # a list style's or a list's (xml:id) last number
        self.numbers: list[tuple[int, str]] = []  # the open lists' current numbers and formats

    def flush(self) -> None:
        text = "\n\n".join(x for x in self.lines + self.notes if x.strip()).strip()
        if text:
            self.sections.append(Section(tuple(t for _, t in self.path), text))
        self.lines, self.notes = [], []

    def walk(self, parent: ET.Element, depth: int = 0) -> None:
        for el in parent:
            tag = local(el.tag)
            if tag == "h":
                text = " ".join(_inline(el, self.notes).split())
                if not text:
                    continue
                self.flush()
                level = int(el.get(f"{TEXT}outline-level", "1"))
                self.path = [(lv, t) for lv, t in self.path if lv < level] + [(level, text)]
                self.lines.append(text)
            elif tag == "p":
                text = _inline(el, self.notes).strip()
                if text:
                    self.lines.append(text)
            elif tag == "list":
                self.items(el, depth)
            elif tag == "table":
                rows = [c for _, c in _rows(el, self.notes) if any(c)]
                if rows:
                    self.lines.append(table_blocks(rows))
            elif tag in ("section", "index-body", "frame", "text-box"):
                self.walk(el, depth)


    def items(self, lst: ET.Element, depth: int) -> None:
        """A list's items with their markers ("1.", "a)", "1.2." at a numbered level as its
        style draws them, "-" else); a list header (an item without a marker) indented as the
        items are. A list that continues the numbering of an earlier one
        (``continue-numbering``, ``continue-list``) counts on."""
        outer = depth == 0
        if outer:
            self.style = lst.get(f"{TEXT}style-name", "")
        style = lst.get(f"{TEXT}style-name") or self.style
        numbered = self.numbered.get(style, {}).get(depth + 1)
        count = 0 if numbered is None else numbered.start - 1
        if outer and numbered is not None:
            if lst.get(f"{TEXT}continue-list") in self.counted:
                count = self.counted[lst.get(f"{TEXT}continue-list")]
            elif lst.get(f"{TEXT}continue-numbering") == "true" and style in self.counted:
                count = self.counted[style]
        self.numbers.append((count, numbered.fmt if numbered else ""))
        for item in lst:
            kind = local(item.tag)
            if kind not in ("list-item", "list-header"):
                continue
            marker = ""
            if kind == "list-item":
                count += 1
                self.numbers[-1] = (count, self.numbers[-1][1])
                marker = "- " if numbered is None else self.marker(numbered) + " "
            for p in item:
                if local(p.tag) in ("p", "h"):
                    text = _inline(p, self.notes).strip()
                    if text:
                        self.lines.append("  " * depth + marker + text)
                        marker = " " * len(marker)  # the item's next paragraphs: under its text
                elif local(p.tag) == "list":
                    self.items(p, depth + 1)
        self.numbers.pop()
        if outer:
            self.style = ""
            if numbered is not None:
                self.counted[style] = count
                self.counted[lst.get(XML_ID, "")] = count

    def marker(self, numbered: Numbered) -> str:
        """This item's number, with those of the levels above it its style shows ("1.2.")."""
        shown = [label(n, fmt or "none") for n, fmt in self.numbers[-max(1, numbered.shown):]]
        return f"{numbered.prefix}{'.'.join(x for x in shown if x)}{numbered.suffix}"


def read(name: str, data: bytes, doc_type: str) -> Document:
    pkg = Package(name, data, KINDS[doc_type])
    pkg.expect("content.xml")
    if pkg.has("META-INF/manifest.xml") and b"encryption-data" in pkg.raw("META-INF/manifest.xml"):
        raise Encrypted(f"{name} is protected by a password; open it in its program, remove the "
                        "password, save it and add it again")
    content = pkg.xml("content.xml")
    body = content.find(f"{OFFICE}body")
    if body is None:
        raise EmptyDocument(f"{name} has no text to index")
    if doc_type == "ods":
        budget = Budget(name)
        sections, sheets = [], list(body.iter(f"{TABLE}table"))
        for table in sheets:
            sections += sheet_sections(table.get(f"{TABLE}name", "?"), _rows(table, [], budget))
        doc = Document("ods", sections, notes=budget.note(), pages=len(sheets))
    elif doc_type == "odp":
        doc = Document("odp", [], pages=0)
        for number, page in enumerate(body.iter(f"{DRAW}page"), start=1):
            doc.pages = number
            notes_el = page.find(f"{PRES}notes")
            title, blocks = "", []
            for frame in page.findall(f"{DRAW}frame"):
                reader = _Text()
                reader.walk(frame)
                text = "\n\n".join(reader.lines)
                if frame.get(f"{PRES}class") == "title" and not title:
                    title = " ".join(text.split())
                elif text.strip():
                    blocks.append(text)
            head = places.slide_heading(number, title)
            if title or blocks:
                doc.sections.append(Section((head,), "\n\n".join(([title] if title else []) + blocks)))
            if notes_el is not None:
                reader = _Text()
                for frame in notes_el.findall(f"{DRAW}frame"):
                    if frame.get(f"{PRES}class") == "notes":
                        reader.walk(frame)
                if reader.lines:
                    doc.sections.append(Section((head, places.NOTES), "\n\n".join(reader.lines)))
    else:
        reader = _Text(list_styles(content, pkg.optional_xml("styles.xml")))
        text_root = body.find(f"{OFFICE}text")
        reader.walk(text_root if text_root is not None else body)
        reader.flush()
        doc = Document("odt", reader.sections)
    if not doc.sections:
        raise EmptyDocument(f"{name} has no text to index")
    return doc
