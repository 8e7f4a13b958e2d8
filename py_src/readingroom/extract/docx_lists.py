"""Word's list numbers (``word/numbering.xml``), counted as Word counts them.

A paragraph's ``numPr`` names a numbering instance (``w:num``) and a level. Instances that share
an abstract definition share its counters, so a list interrupted by other paragraphs, or picked
up by a paragraph style, numbers on; an instance with a ``startOverride`` restarts its levels the
first time it is used. An item restarts every level below its own (1.1 and 1.2, then 2.1). Its
marker is the level's ``lvlText`` ("%1.", "(%1)", "%1.%2") with each ``%n`` drawn in level n's
format (``numbering.label``), or "-" for a bullet (a check box bullet, "☐" or "☒", as itself)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

from .numbering import label
from .zipped import Package

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_BOXES = {"\u2610", "\u2611", "\u2612", "\u2713", "\u2714", "\u2717", "\u2718"}  # ☐ ☑ ☒ ✓ ✔ ✗ ✘


@dataclass(frozen=True)
class Level:
    fmt: str = "bullet"
    text: str = ""
    start: int = 1
    legal: bool = False  # isLgl: every number of the marker in decimal ("1.1", not "I.1")


@dataclass
class Instance:
    abstract: str
    levels: dict[int, Level]
    overrides: dict[int, int] = field(default_factory=dict)  # level -> its start in this instance


def _val(el: ET.Element | None, default: str = "") -> str:
    return el.get(f"{W}val", default) if el is not None else default


def _int(text: str, default: int) -> int:
    return int(text) if text.lstrip("-").isdigit() else default


def _level(lvl: ET.Element) -> Level:
    return Level(fmt=_val(lvl.find(f"{W}numFmt"), "decimal" if lvl.find(f"{W}lvlText") is not None else "bullet"),
                 text=_val(lvl.find(f"{W}lvlText"), f"%{_int(lvl.get(f'{W}ilvl', '0'), 0) + 1}."),
                 start=_int(_val(lvl.find(f"{W}start"), "1"), 1),
                 legal=lvl.find(f"{W}isLgl") is not None and _val(lvl.find(f"{W}isLgl"), "1") not in ("0", "false"))


def _levels(parent: ET.Element) -> dict[int, Level]:
    return {_int(lvl.get(f"{W}ilvl", "0"), 0): _level(lvl) for lvl in parent.findall(f"{W}lvl")}


class Lists:
    """The numbering of one document, and the counters of the lists read so far."""

    def __init__(self, pkg: Package, list_styles: dict[str, ET.Element]):
        root = pkg.optional_xml("word/numbering.xml")
        self.instances: dict[str, Instance] = {}
        self.counts: dict[str, dict[int, int]] = {}  # abstract -> level -> its last number
        self.started: set[str] = set()
        if root is None:
            return
        abstracts = {a.get(f"{W}abstractNumId", ""): a for a in root.findall(f"{W}abstractNum")}
        nums = {n.get(f"{W}numId", ""): n for n in root.findall(f"{W}num")}

        def resolve(aid: str, seen: tuple = ()) -> tuple[str, dict[int, Level]]:
            """An abstract definition's levels; one that only links a list style (numStyleLink)
            takes the levels, and the counters, of the definition that style numbers with."""
            a = abstracts.get(aid)
            if a is None:
                return aid, {}
            link = _val(a.find(f"{W}numStyleLink"))
            if link and not a.findall(f"{W}lvl") and link in list_styles and aid not in seen:
                target = nums.get(_val(list_styles[link].find(f"{W}numId")))
                if target is not None:
                    return resolve(_val(target.find(f"{W}abstractNumId")), seen + (aid,))
            return aid, _levels(a)

        for nid, num in nums.items():
            aid, levels = resolve(_val(num.find(f"{W}abstractNumId")))
            inst = Instance(aid, dict(levels))
            for over in num.findall(f"{W}lvlOverride"):
                ilvl = _int(over.get(f"{W}ilvl", "0"), 0)
                redefined = over.find(f"{W}lvl")
                if redefined is not None:
                    inst.levels[ilvl] = _level(redefined)
                start = over.find(f"{W}startOverride")
                if start is not None:
                    inst.overrides[ilvl] = _int(_val(start, "1"), 1)
            self.instances[nid] = inst

    def marker(self, nid: str, ilvl: int) -> str:
        """The marker of the next item at level ``ilvl`` of instance ``nid`` ("" for none)."""
        inst = self.instances.get(nid)
        level = inst.levels.get(ilvl) if inst is not None else None
        if inst is None or level is None:
            return "-"
        if level.fmt == "bullet":  # a check box says whether the task is done; other bullets are "-"
            glyph = level.text.strip()  # none (" "): a paragraph that goes on under its item
            return glyph if glyph in _BOXES or not glyph else "-"
        counts = self.counts.setdefault(inst.abstract, {})
        if nid not in self.started:
            self.started.add(nid)
            for lv in inst.overrides:
                counts.pop(lv, None)

        def start(lv: int) -> int:
            return inst.overrides.get(lv, inst.levels[lv].start if lv in inst.levels else 1)

        counts[ilvl] = counts[ilvl] + 1 if ilvl in counts else start(ilvl)
        for lv in [lv for lv in counts if lv > ilvl]:
            del counts[lv]

        def number(m: re.Match) -> str:
            lv = int(m.group(1)) - 1
            fmt = "decimal" if level.legal else inst.levels.get(lv, level).fmt
            return label(counts.get(lv, start(lv)), fmt)

        marker = re.sub(r"%([1-9])", number, level.text).strip()
        return marker if any(ch.isalnum() for ch in marker) else ""  # "none" drawn: "." is no marker
