"""PowerPoint (.pptx, .pptm): each slide a section titled by its title, its speaker notes a
section of their own under it. Macros in a .pptm are never run."""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

from ..errors import EmptyDocument
from .. import places
from .document import Document, Section, picture_text, table_blocks
from .numbering import label
from .smartart import diagram_lines, is_diagram
from .zipped import Package, local, main_part, relationships

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
NOTES_REL = "notesSlide"


_AUTO_FORMATS = {"arabic": "1", "alphaLc": "a", "alphaUc": "A", "romanLc": "i", "romanUc": "I"}
_AUTO_FRAMES = {"Period": "{}.", "ParenR": "{})", "ParenBoth": "({})", "Plain": "{}"}


def _auto_number(auto: ET.Element, n: int) -> str:
    """A numbered paragraph's marker (``a:buAutoNum type="alphaLcParenR"``: "b)"); a scheme this
    does not draw (East Asian numerals, ...) as "2."."""
    m = re.fullmatch(r"(arabic|alphaLc|alphaUc|romanLc|romanUc)(Period|ParenR|ParenBoth|Plain)", auto.get("type", ""))
    fmt, frame = (_AUTO_FORMATS[m.group(1)], _AUTO_FRAMES[m.group(2)]) if m else ("1", "{}.")
    return frame.format(label(n, fmt))


def _paragraphs(el: ET.Element) -> list[str]:
    """A shape's paragraphs: indented by level, a bulleted one under the top level with "- ", a
    numbered one (at any level) with its number, counted on while the paragraphs at that
    level stay numbered."""
    out = []
    counts: dict[int, int] = {}  # level -> the last numbered paragraph's number
    for p in el.iter(f"{A}p"):
        text = "".join(t.text or "" if local(t.tag) == "t" else "\n" for t in p.iter()
                       if local(t.tag) in ("t", "br")).strip()
        if text:
            level = p.find(f"{A}pPr")
            lvl = int(level.get("lvl", "0")) if level is not None and level.get("lvl", "0").isdigit() else 0
            auto = level.find(f"{A}buAutoNum") if level is not None else None
            for deeper in [k for k in counts if k > lvl or (k == lvl and auto is None)]:
                del counts[deeper]
            if auto is not None:
                start = auto.get("startAt", "1")
                counts[lvl] = counts[lvl] + 1 if lvl in counts else (int(start) if start.isdigit() else 1)
                depth = sum(k < lvl for k in counts)  # under the numbered paragraphs it belongs to
                out.append("  " * depth + _auto_number(auto, counts[lvl]) + " " + text)
                continue
            bullet = level is not None and level.find(f"{A}buNone") is None and lvl > 0
            out.append(("  " * (lvl - 1) + "- " if bullet else "") + text)
    return out


def _placeholder(sp: ET.Element) -> str | None:
    ph = sp.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
    return None if ph is None else ph.get("type", "body")


def _shapes(tree: ET.Element, want_notes: bool = False, diagram=None) -> tuple[str, list[str], int]:
    """(title, blocks of text, pictures) of a slide's shape tree, in document order;
    ``diagram(relIds)`` gives a SmartArt diagram's lines."""
    title, blocks, pictures = "", [], 0
    for el in tree.iter():
        tag = local(el.tag)
        if diagram is not None and is_diagram(el):
            if lines := diagram(el):
                blocks.append("\n".join(lines))
            continue
        if tag == "pic":
            pictures += 1
            props = el.find(f"{P}nvPicPr/{P}cNvPr")
            if alt := picture_text(props.get("descr") if props is not None else None):
                blocks.append(alt)
        elif tag == "sp":
            kind = _placeholder(el)
            if want_notes and kind != "body":
                continue  # a notes page also holds the slide image and its number
            body = el.find(f"{P}txBody")
            if body is None:
                continue
            paras = _paragraphs(body)
            if kind in ("title", "ctrTitle") and not title and not want_notes:
                title = " ".join(" ".join(paras).split())
            elif paras:
                blocks.append("\n".join(paras))
        elif tag == "tbl":
            rows = [[" ".join(_paragraphs(tc)) for tc in tr.findall(f"{A}tc")] for tr in el.findall(f"{A}tr")]
            if rows:
                blocks.append(table_blocks(rows))
    return title, blocks, pictures


def read(name: str, data: bytes) -> Document:
    pkg = Package(name, data, "a PowerPoint presentation")
    pres = main_part(pkg, "ppt/presentation.xml")
    rels = relationships(pkg, pres)
    order = [rels.get(s.get(f"{R}id", "")) for s in pkg.xml(pres).iter(f"{P}sldId")]
    sections: list[Section] = []
    pictures = 0
    for number, part in enumerate([o for o in order if o], start=1):
        tree = pkg.xml(part)
        links = relationships(pkg, part)
        title, blocks, pics = _shapes(tree, diagram=lambda el, links=links: diagram_lines(pkg, el, links))
        pictures += pics
        head = places.slide_heading(number, title)
        if blocks or title:
            sections.append(Section((head,), "\n\n".join([title] + blocks if title else blocks)))
        notes_part = next((t for k, t in links.items() if NOTES_REL in t), None)
        if notes_part and pkg.has(notes_part):
            _, notes, _ = _shapes(pkg.xml(notes_part), want_notes=True)
            if notes:
                sections.append(Section((head, places.NOTES), "\n\n".join(notes)))
    if not sections:
        if pictures:
            raise EmptyDocument(f"{name} holds only pictures ({pictures}) and no text; OCR reads "
                                "picture files and scanned PDF pages, not pictures inside slides: "
                                "export the slides as pictures or a PDF to have them read")
        raise EmptyDocument(f"{name} has no text to index")
    return Document("pptx", sections, pages=len(order))
