"""SmartArt (a process, a cycle, an organisation chart drawn as a diagram) in Word and
PowerPoint: its text lives in a part of its own, the diagram's data model, not on the page. Each
node is a line ("- Plan"), indented under its parent, in the diagram's order."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from .zipped import Package

DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_TEXT_KINDS = ("node", "asst", "doc")  # the rest ("parTrans", "sibTrans", "pres") draw the shapes


def is_diagram(el: ET.Element) -> bool:
    """A graphic's ``dgm:relIds``: where a SmartArt diagram stands."""
    return el.tag == f"{DGM}relIds"


def diagram_lines(pkg: Package, rel_ids: ET.Element, links: dict[str, str]) -> list[str]:
    """The text of the diagram ``rel_ids`` points at (``links``: its part's relationships)."""
    part = links.get(rel_ids.get(f"{R}dm", ""))
    root = pkg.optional_xml(part) if part and pkg.has(part) else None
    if root is None:
        return []
    texts: dict[str, str] = {}
    roots: list[str] = []
    for pt in root.iter(f"{DGM}pt"):
        kind = pt.get("type", "node")
        if kind not in _TEXT_KINDS:
            continue
        body = pt.find(f"{DGM}t")
        paras = [" ".join("".join(t.text or "" for t in p.iter(f"{A}t")).split()) for p in body.iter(f"{A}p")] \
            if body is not None else []
        texts[pt.get("modelId", "")] = " ".join(x for x in paras if x)
        if kind == "doc":
            roots.append(pt.get("modelId", ""))
    children: dict[str, list[tuple[int, str]]] = {}
    for cxn in root.iter(f"{DGM}cxn"):
        if cxn.get("type", "parOf") == "parOf":
            order = cxn.get("srcOrd", "0")
            children.setdefault(cxn.get("srcId", ""), []).append((int(order) if order.isdigit() else 0, cxn.get("destId", "")))
    lines: list[str] = []
    seen: set[str] = set()

    def walk(node: str, depth: int) -> None:
        seen.add(node)
        for _order, child in sorted(children.get(node, [])):
            if child in texts and child not in seen:
                if texts[child]:
                    lines.append("  " * depth + "- " + texts[child])
                walk(child, depth + 1 if texts[child] else depth)

    for node in roots:
        walk(node, 0)
    # nodes no connection reaches (a data model without its root): in the order they are stored
    lines += ["- " + text for node, text in texts.items() if text and node not in seen]
    return lines
