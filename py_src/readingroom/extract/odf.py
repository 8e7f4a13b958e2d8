"""OpenDocument (.odt, .odp, .ods) from ``content.xml``: text headings by outline level,
lists with markers, tables; presentation pages titled, with their notes; spreadsheets as
``sheets`` does them. Footnotes and comments stay at the end of their section."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from .. import places
from ..errors import EmptyDocument
from .document import Document, Section, table_lines, table_text
from .sheets import Budget, sheet_sections
from .zipped import Package, local

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
PRES = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
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
        elif tag not in ("annotation-end", "bookmark", "bookmark-start", "bookmark-end"):
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
            if budget is not None and not budget.take(len(cells)):
                return rows
            rows.append((number, cells))
        number += repeat - copies
    return rows


class _Text:
    def __init__(self):
        self.sections: list[Section] = []
        self.path: list[tuple[int, str]] = []
        self.lines: list[str] = []
        self.notes: list[str] = []

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
                for item in el.findall(f"{TEXT}list-item"):
                    for p in item:
                        if local(p.tag) in ("p", "h"):
                            text = _inline(p, self.notes).strip()
                            if text:
                                self.lines.append("  " * depth + "- " + text)
                        elif local(p.tag) == "list":
                            self.walk(_wrap(p), depth + 1)
            elif tag == "table":
                rows = [c for _, c in _rows(el, self.notes) if any(c)]
                if rows:
                    self.lines.append(table_text(table_lines(rows)))
            elif tag in ("section", "index-body", "frame", "text-box"):
                self.walk(el, depth)


def _wrap(el: ET.Element) -> ET.Element:
    wrapper = ET.Element("wrap")
    wrapper.append(el)
    return wrapper


def read(name: str, data: bytes, doc_type: str) -> Document:
    pkg = Package(name, data, KINDS[doc_type])
    pkg.expect("content.xml")
    body = pkg.xml("content.xml").find(f"{OFFICE}body")
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
        reader = _Text()
        text_root = body.find(f"{OFFICE}text")
        reader.walk(text_root if text_root is not None else body)
        reader.flush()
        doc = Document("odt", reader.sections)
    if not doc.sections:
        raise EmptyDocument(f"{name} has no text to index")
    return doc
