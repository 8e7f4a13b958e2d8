"""An extractive summary with no model: the sentences that best represent a document, covering
its sections in order, each quoted verbatim with where it stands.

The input is what indexing already has: the chunks (text, offsets, heading path, page) and
their embedding vectors, so nothing more is embedded and the summary can be computed in the
same transaction that stores the document. A sentence's worth is

- its chunk's *embedding centrality*: the cosine of the chunk's vector to the document's
  mean vector, and to its section's (what the document and the section are mostly about);
- its *word centrality*: the TF-IDF cosine of the sentence to the document's and its
  section's word profile (MEAD's centroid, with porter stems);
- its place: the opening sentences of the document and of a section say what follows.

Sentences are then picked greedily with redundancy removed (a candidate close in words to one
already picked, in any section, loses that closeness: MMR), sections not yet represented
first, each section capped by its share of the document. The length follows the document:
about 5 sentences for a short note, 15 to 25 for a 300-page manual (``target_length``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import numpy as np

from .. import sentences as _sentences
from ..fts import STOPWORDS
from ..porter import stem

VERSION = 1  # of the algorithm: a stored summary of another version is computed again
MIN_WORDS, MAX_WORDS = 6, 70  # a quotable sentence: a thought, not a label or a whole page
POOL = 20  # candidates per sentence wanted that go on to the redundancy pass
REDUNDANCY = 0.6  # MMR's weight on closeness to what is already picked
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
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

    def to_dict(self) -> dict:
        return {"text": self.text, "start": self.start, "end": self.end, "chunk_id": self.chunk_id,
                "chunk_index": self.chunk_index, "section": list(self.section), "page": self.page,
                "score": round(self.score, 4)}

    @classmethod
    def from_dict(cls, d: dict) -> "Point":
        return cls(d["text"], d["start"], d["end"], d["chunk_id"], d["chunk_index"],
                   tuple(d.get("section") or ()), d.get("page"), d.get("score", 0.0))


@dataclass
class Extract:
    points: list[Point] = field(default_factory=list)
    sentences: int = 0  # quotable sentences the document holds
    sections: int = 0
    tokens: int = 0
    note: str | None = None  # why it is short or empty (only code, only a table, one sentence)


def target_length(tokens: int) -> int:
    """Sentences wanted for a document of ``tokens``: 5 up to ~1,000 tokens, then slowly more
    (about 12 at 15,000, 18 at 150,000, a 300-page manual), never more than 25."""
    return max(5, min(25, round(5 + 6 * math.log10(max(1.0, tokens / 1000)))))


@lru_cache(maxsize=50_000)
def _stem(w: str) -> str:
    return stem(w) or w


def bag(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in _WORD.findall(text.lower()):
        if w not in STOPWORDS:
            s = _stem(w)
            out[s] = out.get(s, 0) + 1
    return out


def _weigh(b: dict[str, int], idf: dict[str, float]) -> dict[str, float]:
    v = {t: (1 + math.log(c)) * idf.get(t, 0.0) for t, c in b.items()}
    n = math.sqrt(sum(x * x for x in v.values())) or 1.0
    return {t: x / n for t, x in v.items()}


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(x * b.get(t, 0.0) for t, x in a.items())


@dataclass
class _Cand:
    text: str
    start: int
    end: int
    part: Part
    section: int
    order: int  # place among the section's sentences
    label: tuple[str, ...] = ()  # what the outline shows it under
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


def candidates(parts: Sequence[Part], keys: Sequence[tuple[str, ...]]) -> tuple[list[_Cand], list[tuple[str, ...]]]:
    """Every quotable sentence once (chunks overlap), with its section's number."""
    order: dict[tuple[str, ...], int] = {}
    out: list[_Cand] = []
    seen: set[int] = set()
    counts: dict[int, int] = {}
    last_heading: tuple[str, ...] = ()
    for p, key in zip(parts, keys):
        sec = order.setdefault(key, len(order))
        for s in _sentences.split(p.text):
            at = p.start + s.start
            if s.kind == _sentences.HEADING and not p.heading_path and _titled(p.text, s):
                last_heading = (" ".join(s.text.lstrip("#").split()),)
            if s.kind not in _KEPT or at in seen:
                continue
            n = len(s.text.split())
            if not MIN_WORDS <= n <= MAX_WORDS or _sentences.looks_like_code(s.text):
                continue
            seen.add(at)
            out.append(_Cand(s.text, at, p.start + s.end, p, sec, counts.get(sec, 0),
                             p.heading_path or last_heading))
            counts[sec] = counts.get(sec, 0) + 1
    return out, list(order)


_RULE = re.compile(r"[ \t]*\r?\n[ \t]*([=*\-~^#+])\1{2,}[ \t]*(?:\r?\n|$)")


def _titled(text: str, s) -> bool:
    """A heading of the text's own (``# Title``, or a line underlined with === or ***), not
    a short label line."""
    return len(s.text) <= 120 and (s.text.startswith("#") or bool(_RULE.match(text, s.end)))


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n else v


def summarise(parts: Sequence[Part], vectors: np.ndarray | None, length: int | None = None) -> Extract:
    """The extract of one document from its chunks (in order) and their vectors (one row per
    part; None: word centrality alone)."""
    parts = list(parts)
    tokens = sum(p.tokens for p in parts)
    want = length or target_length(tokens)
    keys = section_keys(parts, want)
    cands, sections = candidates(parts, keys)
    out = Extract(sentences=len(cands), sections=len(sections), tokens=tokens)
    if not cands:
        out.note = "no_prose"
        return out
    bags = [bag(c.text) for c in cands]
    df: dict[str, int] = {}
    for b in bags:
        for t in b:
            df[t] = df.get(t, 0) + 1
    idf = {t: math.log(1 + len(bags) / d) for t, d in df.items()}
    for c, b in zip(cands, bags):
        c.vec = _weigh(b, idf)
    whole: dict[str, int] = {}
    per_sec: list[dict[str, int]] = [{} for _ in sections]
    for c, b in zip(cands, bags):
        for t, k in b.items():
            whole[t] = whole.get(t, 0) + k
            per_sec[c.section][t] = per_sec[c.section].get(t, 0) + k
    doc_words = _weigh(whole, idf)
    sec_words = [_weigh(b, idf) for b in per_sec]
    chunk_doc, chunk_sec = _embedding_centrality(parts, keys, vectors)
    for c in cands:
        i = c.part.index
        place = 0.15 if c.order == 0 else 0.08 if c.order == 1 else 0.0
        if c.section == 0 and c.order < 3:
            place += 0.1
        c.score = (0.35 * chunk_doc.get(i, 0.0) + 0.15 * chunk_sec.get(i, 0.0)
                   + 0.35 * cosine(c.vec, doc_words) + 0.15 * cosine(c.vec, sec_words[c.section]) + place)
    picked = _pick(cands, len(sections), tokens_by_section(cands, len(sections)), want)
    out.points = [Point(c.text, c.start, c.end, c.part.chunk_id, c.part.index, c.label,
                        c.part.page, c.score) for c in sorted(picked, key=lambda c: c.start)]
    if len(cands) == 1:
        out.note = "one_sentence"
    return out


def tokens_by_section(cands: Sequence[_Cand], n: int) -> list[int]:
    out = [0] * n
    for c in cands:
        out[c.section] += len(c.text.split())
    return out


def _embedding_centrality(parts, keys, vectors) -> tuple[dict[int, float], dict[int, float]]:
    """Each chunk's cosine to the document's mean vector and to its section's."""
    if vectors is None or len(vectors) != len(parts) or not len(parts):
        return {}, {}
    m = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    m = m / np.where(norms == 0, 1, norms)
    doc = m @ _unit(m.mean(axis=0))
    sec: dict[int, float] = {}
    groups: dict[tuple[str, ...], list[int]] = {}
    for row, key in enumerate(keys):
        groups.setdefault(key, []).append(row)
    for rows in groups.values():
        sims = m[rows] @ _unit(m[rows].mean(axis=0))
        for r, s in zip(rows, sims):
            sec[parts[r].index] = float(s)
    return {p.index: float(s) for p, s in zip(parts, doc)}, sec


def _pick(cands: list[_Cand], n_sections: int, size: list[int], want: int) -> list[_Cand]:
    """Greedy MMR: the best remaining sentence after redundancy, an unrepresented section's
    first, no section past its share (rounded up) of the words."""
    pool = sorted(cands, key=lambda c: -c.score)[: POOL * want]
    total = sum(size) or 1
    cap = [max(1, math.ceil(want * s / total)) for s in size]
    taken = [0] * n_sections
    picked: list[_Cand] = []
    closest = [0.0] * len(pool)
    while len(picked) < want:
        best, best_val = -1, -math.inf
        for i, c in enumerate(pool):
            if closest[i] < 0 or taken[c.section] >= cap[c.section]:
                continue
            val = c.score - REDUNDANCY * closest[i] + (0.1 if taken[c.section] == 0 else 0.0)
            if val > best_val:
                best, best_val = i, val
        if best < 0:
            break
        chosen = pool[best]
        picked.append(chosen)
        taken[chosen.section] += 1
        closest[best] = -1.0
        for i, c in enumerate(pool):
            if closest[i] >= 0:
                closest[i] = max(closest[i], cosine(c.vec, chosen.vec))
                if closest[i] > 0.85:
                    closest[i] = -1.0  # a near copy of a picked sentence is never picked
    return picked
