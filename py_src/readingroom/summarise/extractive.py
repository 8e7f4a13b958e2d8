"""An extractive summary with no model: the sentences that best represent a document, covering
its sections in order, each quoted verbatim with where it stands.

The input is what indexing already has: the chunks (text, offsets, heading path, page) and
their embedding vectors, so nothing more is embedded and the summary can be computed in the
same transaction that stores the document. A sentence's worth is

- its *word centrality*: its rank in the graph of the document's sentences whose edges are
  their TF-IDF word cosines (porter stems; ``centrality.graph_rank``, the random walk of
  TextRank and LexRank): a sentence much of the document echoes;
- its chunk's *embedding centrality*: the cosine of the chunk's vector to the document's
  mean vector, and to its section's (what the document and the section are mostly about);
- its place: the opening sentences of a section (and of the document) say what follows.

Sentences are then picked greedily with redundancy removed (a candidate close in words to one
already picked, in any section, loses that closeness: MMR), sections not yet represented
first, each section capped by its share of the document. The weights ``W`` were chosen on
SumPubMed articles 1-50 only (``bench summaries`` reports articles 51-100 apart, never looked
at while choosing). The length follows the document:
about 5 sentences for a short note, 15 to 25 for a 300-page manual (``target_length``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from ..places import without_rows
from ..text import sentences as _sentences, table_rows
from ..text.program_text import split_any
from .centrality import bag, cosine, embedding, graph_rank, idf_of, weigh

VERSION = 4  # of the algorithm: a stored summary of another version is computed again (3: a source file's comments; 4: a table-only document's tables)
MIN_WORDS, MAX_WORDS = 6, 70  # a quotable sentence: a thought, not a label or a whole page
POOL = 20  # candidates per sentence wanted that go on to the redundancy pass
REDUNDANCY = 0.6  # MMR's weight on closeness to what is already picked
# The measures' weights (chosen on SumPubMed articles 1-50 only; see the module's doc)
W = {"emb_doc": 0.35, "emb_sec": 0.15, "graph": 1.0, "first": 0.3, "second": 0.15, "decay": 0.2,
     "opening": 0.1, "redundancy": REDUNDANCY, "fresh": 0.1, "cap": 1.0, "heading": 0.1, "fresh_heading": 0.3}
_KEPT = (_sentences.PROSE, _sentences.ITEM)


@dataclass(frozen=True)
class Part:
    """A chunk as the summariser sees it."""

    chunk_id: int
    index: int  # its place in the document
    text: str
    start: int  # offset of ``text`` in the document
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    tokens: int = 0


@dataclass(frozen=True)
class Point:
    """One sentence of a summary, verbatim, with where it stands in its document."""

    text: str
    start: int
    end: int
    chunk_id: int
    chunk_index: int
    section: tuple[str, ...]  # the heading path the outline shows it under
    page: int | None = None
    score: float = 0.0
    rows: int = 0  # a table's header row: how many data rows the table has (0: a sentence)

    def to_dict(self) -> dict:
        return {"text": self.text, "start": self.start, "end": self.end, "chunk_id": self.chunk_id,
                "chunk_index": self.chunk_index, "section": list(self.section), "page": self.page,
                "score": round(self.score, 4), "rows": self.rows}

    @classmethod
    def from_dict(cls, d: dict) -> "Point":
        return cls(d["text"], d["start"], d["end"], d["chunk_id"], d["chunk_index"],
                   tuple(d.get("section") or ()), d.get("page"), d.get("score", 0.0), d.get("rows", 0))


@dataclass
class Extract:
    """A document's extractive summary: its quoted points and what the document held."""

    points: list[Point] = field(default_factory=list)
    sentences: int = 0  # quotable sentences the document holds
    sections: int = 0
    tokens: int = 0
    note: str | None = None  # why it is short or empty (only code, only a table, one sentence)


def target_length(tokens: int) -> int:
    """Sentences wanted for a document of ``tokens``: 5 up to ~1,000 tokens, then slowly more
    (about 12 at 15,000, 18 at 150,000, a 300-page manual), never more than 25."""
    return max(5, min(25, round(5 + 6 * math.log10(max(1.0, tokens / 1000)))))


@dataclass
class _Cand:
    """A sentence that may become a point of the summary, with its place in the document."""

    text: str
    start: int
    end: int
    part: Part
    section: int
    order: int  # place among the section's sentences
    label: tuple[str, ...] = ()  # what the outline shows it under
    under: int = 0  # place among the sentences under that heading
    vec: dict[str, float] = field(default_factory=dict)
    score: float = 0.0


def section_keys(parts: Sequence[Part], want: int) -> list[tuple[str, ...]]:
    """Each part's section: its heading path cut at the shallowest depth that gives the
    document more than one section; without headings, runs of parts in order (about a third
    as many as the sentences wanted), so a summary still covers beginning, middle and end
    (such a run is a section for the choice only: the outline shows the nearest heading line
    above each sentence, or none)."""
    paths = [p.heading_path for p in parts]
    deepest = max((len(h) for h in paths), default=0)
    for depth in range(1, deepest + 1):
        keys = [h[:depth] for h in paths]
        if len(set(keys)) > 1:
            return keys
    if deepest:
        return [h[:1] for h in paths]
    runs = max(1, min(len(parts), math.ceil(want / 3)))
    return [("", str(i * runs // len(parts))) for i in range(len(parts))]


def candidates(parts: Sequence[Part], keys: Sequence[tuple[str, ...]],
               doc_type: str = "") -> tuple[list[_Cand], list[tuple[str, ...]]]:
    """Every quotable sentence once (chunks overlap), with its section's number; a source
    file's sentences are its comments and docstrings."""
    order: dict[tuple[str, ...], int] = {}
    out: list[_Cand] = []
    seen: set[int] = set()
    counts: dict[int, int] = {}
    heads: dict[tuple[str, ...], int] = {}
    last_heading: tuple[str, ...] = ()
    for p, key in zip(parts, keys):
        sec = order.setdefault(key, len(order))
        for s in split_any(p.text, doc_type):
            at = p.start + s.start
            if s.kind == _sentences.HEADING and not p.heading_path and _titled(p.text, s):
                last_heading = (" ".join(s.text.lstrip("#").split()),)
            if s.kind not in _KEPT or at in seen:
                continue
            n = len(s.text.split())
            if not MIN_WORDS <= n <= MAX_WORDS or _sentences.looks_like_code(s.text):
                continue
            seen.add(at)
            label = p.heading_path or last_heading
            out.append(_Cand(s.text, at, p.start + s.end, p, sec, counts.get(sec, 0), label, heads.get(label, 0)))
            counts[sec] = counts.get(sec, 0) + 1
            heads[label] = heads.get(label, 0) + 1
    return out, list(order)


def tables(parts: Sequence[Part], doc_type: str = "") -> list[Point]:
    """A document of tables only (a sheet, a CSV): each table once, as its header row (verbatim,
    under its sheet or section, without the "Rows 2–40" of a piece) with how many data rows it
    has, the rows of its pieces in later chunks counted in (every piece repeats the header)."""
    found: dict[tuple[tuple[str, ...], str], Point] = {}
    seen: set[int] = set()  # chunks overlap: a row is counted once, by its place in the document
    for p in parts:
        for s in split_any(p.text, doc_type):
            if s.kind != _sentences.TABLE:
                continue
            got = table_rows.rows(p.text, s.start, s.end)
            if not got or not got[0].header:
                continue
            new = [r for r in got if p.start + r.start not in seen]
            seen.update(p.start + r.start for r in new)
            section = without_rows(p.heading_path)
            key = (section, got[0].header)
            if not new:
                continue  # the same rows through an overlapping chunk
            if key in found:
                found[key] = replace(found[key], rows=found[key].rows + len(new))
                continue
            line = p.text[s.start:s.end].split("\n", 1)[0].rstrip()
            if line.strip() != got[0].header:
                continue
            found[key] = Point(line, p.start + s.start, p.start + s.start + len(line), p.chunk_id, p.index,
                               section, p.page, 0.0, len(new))
    return list(found.values())


_RULE = re.compile(r"[ \t]*\r?\n[ \t]*([=*\-~^#+])\1{2,}[ \t]*(?:\r?\n|$)")


def _titled(text: str, s) -> bool:
    """A heading of the text's own (``# Title``, or a line underlined with === or ***), not
    a short label line."""
    return len(s.text) <= 120 and (s.text.startswith("#") or bool(_RULE.match(text, s.end)))


def summarise(parts: Sequence[Part], vectors: np.ndarray | None, length: int | None = None,
              doc_type: str = "") -> Extract:
    """The extract of one document (of type ``doc_type``) from its chunks (in order) and their
    vectors (one row per part; None: word centrality alone)."""
    parts = list(parts)
    tokens = sum(p.tokens for p in parts)
    want = length or target_length(tokens)
    keys = section_keys(parts, want)
    cands, sections = candidates(parts, keys, doc_type)
    out = Extract(sentences=len(cands), sections=len(sections), tokens=tokens)
    if not cands:
        out.points = tables(parts, doc_type)
        out.note = None if out.points else "no_prose"
        return out
    _score(cands, parts, keys, vectors)
    picked = _pick(cands, len(sections), tokens_by_section(cands, len(sections)), want)
    out.points = [Point(c.text, c.start, c.end, c.part.chunk_id, c.part.index, c.label,
                        c.part.page, c.score) for c in sorted(picked, key=lambda c: c.start)]
    if len(cands) == 1:
        out.note = "one_sentence"
    return out


def _score(cands: list[_Cand], parts, keys, vectors) -> None:
    """Each candidate's worth: the weighted sum of ``W``'s measures (see the module's doc)."""
    bags = [bag(c.text) for c in cands]
    idf = idf_of(bags)
    for c, b in zip(cands, bags):
        c.vec = weigh(b, idf)
    chunk_doc, chunk_sec = embedding([p.index for p in parts], keys, vectors)
    ranks = graph_rank([c.vec for c in cands]) if len(cands) > 1 else np.ones(len(cands))
    for c, rank in zip(cands, ranks):
        i = c.part.index
        place = (W["first"] if c.order == 0 else W["second"] if c.order == 1 else 0.0) + W["decay"] / (1 + c.order)
        if c.section == 0 and c.order < 3:
            place += W["opening"]
        if c.under == 0:
            place += W["heading"]
        c.score = (W["emb_doc"] * chunk_doc.get(i, 0.0) + W["emb_sec"] * chunk_sec.get(i, 0.0)
                   + W["graph"] * float(rank) + place)


def tokens_by_section(cands: Sequence[_Cand], n: int) -> list[int]:
    out = [0] * n
    for c in cands:
        out[c.section] += len(c.text.split())
    return out


def _pick(cands: list[_Cand], n_sections: int, size: list[int], want: int) -> list[_Cand]:
    """Greedy MMR: the best remaining sentence after redundancy, an unrepresented section's
    first, no section past its share (rounded up) of the words."""
    pool = sorted(cands, key=lambda c: -c.score)[: POOL * want]
    total = sum(size) or 1
    cap = [max(1, math.ceil(W["cap"] * want * s / total)) for s in size]
    taken = [0] * n_sections
    picked: list[_Cand] = []
    # a plain text's heading lines (sections here are only runs of parts): one not yet shown first
    shown: set[tuple[str, ...]] = set()
    closest = [0.0] * len(pool)
    while len(picked) < want:
        best, best_val = -1, -math.inf
        for i, c in enumerate(pool):
            if closest[i] < 0 or taken[c.section] >= cap[c.section]:
                continue
            val = (c.score - W["redundancy"] * closest[i] + (W["fresh"] if taken[c.section] == 0 else 0.0)
                   + (W["fresh_heading"] if c.label not in shown and not c.part.heading_path else 0.0))
            if val > best_val:
                best, best_val = i, val
        if best < 0:
            break
        chosen = pool[best]
        picked.append(chosen)
        taken[chosen.section] += 1
        shown.add(chosen.label)
        closest[best] = -1.0
        for i, c in enumerate(pool):
            if closest[i] >= 0:
                closest[i] = max(closest[i], cosine(c.vec, chosen.vec))
                if closest[i] > 0.85:
                    closest[i] = -1.0  # a near copy of a picked sentence is never picked
    return picked
