"""A summary as an outline a person can check: the points under their document's own headings,
each with the ``[n]`` that opens the Reader at its place, numbered across the whole answer.

Pure: points in, plain dicts out (what ``to_dict`` sends to the page and the CLI prints).
"""

from __future__ import annotations

from typing import Sequence

from .extractive import Point


def number(points: Sequence[Point], first: int, doc_id: int, doc_name: str) -> list[dict]:
    """Each point as a citation: ``n`` from ``first`` on, with its document."""
    return [{**p.to_dict(), "n": first + i, "doc_id": doc_id, "doc_name": doc_name}
            for i, p in enumerate(points)]


def sections(cited: Sequence[dict]) -> list[dict]:
    """Consecutive points under the same heading path, as ``{heading, points}`` blocks in
    document order (a heading repeats when the summary returns to it, as a reader would see)."""
    out: list[dict] = []
    for c in cited:
        head = list(c["section"])
        if not out or out[-1]["heading"] != head:
            out.append({"heading": head, "points": []})
        out[-1]["points"].append(c)
    return out


def heading_text(heading: Sequence[str]) -> str:
    return " > ".join(h for h in heading if h)


def as_text(block: dict, cited_by_n: dict[int, dict] | None = None) -> list[str]:
    """One document's outline as lines of plain text (the CLI; Markdown-like)."""
    lines = [f"{block['doc_name']}"]
    if block.get("message"):
        lines.append(f"  {block['message']}")
    for sec in block.get("sections", []):
        head = heading_text(sec["heading"])
        if head:
            lines.append(f"  {head}")
        for p in sec["points"]:
            rows = f" ({p['rows']:,} row{'s' if p['rows'] != 1 else ''})" if p.get("rows") else ""  # a table, by its header row
            lines.append(f"    - {' '.join(p['text'].split())}{rows} [{p['n']}]")
    return lines
