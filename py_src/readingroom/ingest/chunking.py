"""Split a document into chunks sized for the embedding model.

Markdown is split at headings (a chunk never spans two sections, and keeps its heading
path); text within a section, and plain text, is split at paragraphs, then sentences,
then lines, then words when a piece is still too long. Every chunk is an exact slice of the source
(``text == source[start:end]``), which is what lets ``merge`` stitch overlapping
neighbours back together without guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import tokens
from ..records import Chunk

CHUNKER_VERSION = "1"

HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")  # a Markdown heading line: its level marks, its words
_FENCE = re.compile(r"^\s*(```|~~~)")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=\S)")
_LINE_END = re.compile(r"\n")
_WORD = re.compile(r"\S+\s*")


@dataclass(frozen=True)
class ChunkSettings:
    """How text is cut into chunks: target and overlap in model tokens, heading depth kept."""

    target_tokens: int = 200  # leaves room under the model's 256 for the heading prefix
    overlap_tokens: int = 30
    max_heading_depth: int = 6


@dataclass(frozen=True)
class _Unit:
    """A piece chunks are made of (a sentence or a line), by character offsets and tokens."""

    start: int
    end: int
    tokens: int


@dataclass(frozen=True)
class _Section:
    """A stretch of the text under one heading path, by character offsets."""

    start: int
    end: int
    heading_path: tuple[str, ...]


def markdown_sections(text: str, max_depth: int = 6) -> list[_Section]:
    """Sections between headings, each with the path of headings above it."""
    sections: list[_Section] = []
    path: list[tuple[int, str]] = []
    start, pos, in_fence = 0, 0, False
    current: tuple[str, ...] = ()
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            in_fence = not in_fence
        m = None if in_fence else HEADING.match(line.rstrip("\r\n"))
        if m and len(m.group(1)) <= max_depth:
            if pos > start:
                sections.append(_Section(start, pos, current))
            level = len(m.group(1))
            path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, m.group(2).strip())]
            current = tuple(t for _, t in path)
            start = pos  # the heading line belongs to its own section's first chunk
        pos += len(line)
    if pos > start:
        sections.append(_Section(start, pos, current))
    return _fold_bare_headings(text, sections)


def _fold_bare_headings(text: str, sections: list[_Section]) -> list[_Section]:
    """A section holding nothing but its heading joins the next one (``# A`` directly
    followed by ``## B`` makes one chunk under ``A > B``), so no chunk is a bare title."""
    out: list[_Section] = []
    carry: int | None = None
    for i, sec in enumerate(sections):
        body = text[sec.start:sec.end].split("\n", 1)
        bare = bool(sec.heading_path) and (len(body) == 1 or not body[1].strip())
        if bare and i + 1 < len(sections):
            carry = sec.start if carry is None else carry
            continue
        out.append(_Section(sec.start if carry is None else carry, sec.end, sec.heading_path))
        carry = None
    return out


def _split(text: str, start: int, end: int, pattern: re.Pattern) -> list[tuple[int, int]]:
    """Split ``text[start:end]`` after each match of ``pattern``, keeping all characters."""
    pieces, cur = [], start
    for m in pattern.finditer(text, start, end):
        if m.end() > cur and m.start() > cur:
            pieces.append((cur, m.end()))
            cur = m.end()
    if cur < end:
        pieces.append((cur, end))
    return pieces


def _units(text: str, start: int, end: int, target: int) -> list[_Unit]:
    """Pieces no longer than ``target`` tokens: paragraphs, else sentences, else lines (code,
    logs and lists have no sentence ends, so a chunk starts at a line's start), else words."""
    out: list[_Unit] = []
    for p0, p1 in _split(text, start, end, _PARAGRAPH_BREAK):
        n = tokens.estimate(text[p0:p1])
        if n <= target:
            out.append(_Unit(p0, p1, n))
            continue
        for s0, s1 in _split(text, p0, p1, _SENTENCE_END):
            n = tokens.estimate(text[s0:s1])
            if n <= target:
                out.append(_Unit(s0, s1, n))
                continue
            for l0, l1 in _split(text, s0, s1, _LINE_END):
                n = tokens.estimate(text[l0:l1])
                if n <= target:
                    out.append(_Unit(l0, l1, n))
                else:
                    out += _words(text, l0, l1, target)
    return out


def _words(text: str, start: int, end: int, target: int) -> list[_Unit]:
    """A line too long for one chunk, in runs of whole words (a word longer than a chunk in
    slices of it)."""
    out: list[_Unit] = []
    w_start, w_tokens = start, 0
    for w0, w1 in _split(text, start, end, _WORD):
        wn = tokens.estimate(text[w0:w1])
        if wn > target:  # one "word" longer than a chunk (a base64 blob, a run of one letter): cut in slices
            if w_tokens:
                out.append(_Unit(w_start, w0, w_tokens))
            step = max(1, (w1 - w0) * target // wn)
            out += [_Unit(a, min(a + step, w1), tokens.estimate(text[a:min(a + step, w1)])) for a in range(w0, w1, step)]
            w_start, w_tokens = w1, 0
            continue
        if w_tokens and w_tokens + wn > target:
            out.append(_Unit(w_start, w0, w_tokens))
            w_start, w_tokens = w0, 0
        w_tokens += wn
    if end > w_start:
        out.append(_Unit(w_start, end, tokens.estimate(text[w_start:end])))
    return out


def _pack_units(units: list[_Unit], target: int, overlap: int) -> list[tuple[int, int]]:
    """Greedy groups of consecutive units; each new group repeats up to ``overlap`` tokens."""
    groups: list[list[_Unit]] = []
    cur: list[_Unit] = []
    cur_tokens = 0
    for u in units:
        if cur and cur_tokens + u.tokens > target:
            groups.append(cur)
            carry: list[_Unit] = []
            carried = 0
            for prev in reversed(cur):
                if carried + prev.tokens > overlap or carried + prev.tokens + u.tokens > target:
                    break
                carry.insert(0, prev)
                carried += prev.tokens
            cur, cur_tokens = carry, carried
        cur.append(u)
        cur_tokens += u.tokens
    if cur:
        groups.append(cur)
    return [(g[0].start, g[-1].end) for g in groups]


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without the whitespace at either end (chunks and sentences alike)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def chunk_text(text: str, doc_type: str = "txt", settings: ChunkSettings = ChunkSettings(),
               page: int | None = None, base_index: int = 0,
               sections: list[_Section] | None = None) -> list[Chunk]:
    """Chunks of ``text``; Markdown (``doc_type == "md"``) is split at headings first, and
    ``sections`` (spans of ``text`` with their heading paths) are taken as given."""
    if sections is None and doc_type == "md":
        sections = markdown_sections(text, settings.max_heading_depth)
    elif sections is None:
        sections = [_Section(0, len(text), ())]
    chunks: list[Chunk] = []
    for sec in sections:
        units = _units(text, sec.start, sec.end, settings.target_tokens)
        for g0, g1 in _pack_units(units, settings.target_tokens, settings.overlap_tokens):
            s, e = trim(text, g0, g1)
            if s == e:
                continue
            body = text[s:e]
            chunks.append(
                Chunk(
                    doc_index=base_index + len(chunks),
                    text=body,
                    start=s,
                    end=e,
                    heading_path=sec.heading_path,
                    page=page,
                    token_count=tokens.estimate(body),
                )
            )
    return chunks


def chunk_sections(parts, settings: ChunkSettings = ChunkSettings()) -> tuple[str, list[Chunk]]:
    """The text of ``parts`` (each with ``heading_path``, ``text`` and ``page``) joined by blank
    lines, and its chunks: a chunk never spans two parts, and keeps the part's heading path
    and page; offsets refer to the joined text."""
    pieces, spans, at = [], [], 0
    for part in parts:
        if pieces:
            at += 2
        pieces.append(part.text)
        spans.append((_Section(at, at + len(part.text), tuple(part.heading_path)), part.page))
        at += len(part.text)
    text = "\n\n".join(pieces)
    chunks: list[Chunk] = []
    for sec, page in spans:
        chunks += chunk_text(text, "txt", settings, page=page, base_index=len(chunks), sections=[sec])
    return text, chunks


def embedding_text(chunk: Chunk) -> str:
    """What the model sees: the heading path gives a short chunk its context."""
    if chunk.heading_path:
        return " > ".join(chunk.heading_path) + "\n" + chunk.text
    return chunk.text
