"""The sentences the quick answer may quote: prose sentences of every packed passage, the
pieces of a sentence too long to quote whole (``clauses``) and a table's rows (``text.table_rows``).

Each is a verbatim extract placed in its document (offsets and chunk), with what the scorer
needs to know of where it sits: its passage's ``[n]``, the passage's retrieval scores, its
place among the passage's sentences, the passage's heading path. A question's answer is often
not in passage [1] (nor in [1]-[4]), so every packed passage contributes, each a share of at
most ``max_sentences`` (the one embedding batch ``ask`` makes), its sentences taken best by
words first.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from ..text import sentences, table_rows
from . import clauses
from ..text.line_kinds import PROGRAM_TYPES, looks_like_code, not_a_sentence
from ..text.program_text import split_any
from ..search.fts import terms
from ..search.merge import Piece, to_document
from ..records import Hit, Span

MAX_SENTENCES = 24  # one embedding batch; 40 cost 1.1 s in the page for the same held-back figure (answer_curves.candidate_curve)
MIN_WORDS = 4  # "See below." answers nothing
MAX_CHARS = 600  # a sentence longer than this is quoted by its clauses (clauses.py)
MAX_CODE_AFTER = 240  # the code a lead-in sentence introduces is quoted with it up to this length (a command, not a listing)
FIRST_TURN = 3  # each passage's first sentences by words, before any passage gets more


@dataclass(frozen=True)
class Candidate:
    """One sentence of a packed passage, placed in its document."""

    text: str
    n: int  # the passage's [n] in the context
    doc_name: str
    doc_id: int
    chunk_id: int
    start: int  # document offsets, like a Hit's or Span's
    end: int
    lexical: float = 0.0  # share of the query's terms it contains
    index: int = 0  # its place among the passage's prose sentences (0-based)
    count: int = 1  # how many prose sentences the passage has
    passage_sim: float | None = None  # best cosine of the passage's chunks to the query
    passage_score: float = 0.0  # the passage's fused score, relative to passage [1]'s
    passage_words: float = 0.0  # share of the query's terms in the whole passage
    heading: str = ""  # the passage's heading path, joined
    before: str = ""  # the prose sentence before it in the passage ("" for the first)
    after: str = ""  # the prose sentence right after it in the same passage, with the space between ("" if none)
    after_end: int = 0  # the document offset where ``after`` ends
    header: str = ""  # a table row's header row, shown above it ("" for a sentence)
    reads: str = ""  # what the scorer reads instead of ``text`` (a row: "Column: value; ..."; "" = text)

    @property
    def scored_text(self) -> str:
        return self.reads or self.text


_WORD = re.compile(r"\w+", re.UNICODE)


def stem(word: str) -> str:
    """Crude and symmetric: "arguments"/"argument", "defined"/"define" meet at 5+ letters."""
    return word[:5] if len(word) > 5 and word.isascii() else word


def words_of(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower())}


def lexical_share(query_terms: Sequence[str], text: str) -> float:
    """The share of the query's terms (crudely stemmed) that ``text`` contains."""
    if not query_terms:
        return 0.0
    have = words_of(text)
    wanted = {stem(t) for t in query_terms}
    return len(wanted & have) / len(wanted)


def known_share(query_terms: Sequence[str], texts: Sequence[str | None]) -> float:
    """The share of the query's terms found anywhere in ``texts`` (what retrieval brought back:
    its best fifty chunks): a question about something the library never mentions ("lifetime
    annotations in Rust") has words no passage holds, however close its meaning comes."""
    wanted = {stem(t) for t in query_terms}
    if not wanted:
        return 0.0
    missing = set(wanted)
    for t in texts:
        if t and missing:
            missing -= words_of(t)
    return 1.0 - len(missing) / len(wanted)


def weighted_shares(query_terms: Sequence[str], texts: Sequence[str]) -> list[float]:
    """Each text's share of the query's terms, a term weighted by its rarity among ``texts``
    (in a passage about functions, "function" says little; "default" says a lot)."""
    wanted = list(dict.fromkeys(stem(t) for t in query_terms))
    if not wanted or not texts:
        return [0.0] * len(texts)
    have = [words_of(t) for t in texts]
    weight = {t: math.log(1 + len(texts) / (1 + sum(t in h for h in have))) for t in wanted}
    total = sum(weight.values())
    return [sum(weight[t] for t in wanted if t in h) / total for h in have]


def passage_sims(evidence: Sequence[Hit], spans: Sequence[Span]) -> list[float | None]:
    """Each span's best cosine to the query among its chunks (None: no vector known)."""
    sim = {h.chunk_id: h.vector_sim for h in evidence if h.vector_sim is not None}
    out = []
    for s in spans:
        got = [sim[c] for c in s.chunk_ids if c in sim]
        out.append(max(got) if got else None)
    return out


def leads_in(text: str) -> bool:
    """The sentence announces what follows it ("Here are the objects considered false:")."""
    return text.rstrip().endswith(":")


def with_list(units: Sequence[sentences.Sentence], i: int) -> int:
    """The index of the last unit a quote starting at unit ``i`` takes: a sentence that leads
    into a list ("Here are the objects considered false:") takes the items that follow it, as
    many as fit in ``MAX_CHARS``; any other unit stands alone."""
    s, last = units[i], i
    if s.kind != sentences.PROSE or not leads_in(s.text):
        return i
    while (last + 1 < len(units) and units[last + 1].kind == sentences.ITEM
           and units[last + 1].end - s.start <= MAX_CHARS):
        last += 1
    return last


# A sentence that names its subject only by pointing back at the line above it.
_POINTS_BACK = re.compile(r"(?:This|These|It|Its|They|Their|Such|Here)\b")
_TERM_CHARS = re.compile(r"[._(]")
_SECTION_NUMBER = re.compile(r"(?:\d+|[A-Z])(?:\.\d+)*\.?\s+\S")  # "1.7 Getting help", "A.2 Notes"
_ATX_MARKS = re.compile(r"#{1,6}\s+")
# A signature or a dotted name on a line of its own: "setdefault(key[, default])", "class.__mro__".
_SIGNATURE = re.compile(r"[A-Za-z_][\w.]*\s*\(.*\)|[A-Za-z_]\w*(?:\.\w+)+")
MAX_TERM = 80


def _column(text: str, pos: int) -> int:
    return pos - (text.rfind("\n", 0, pos) + 1)


def _signature_above(text: str, h: sentences.Sentence, s: sentences.Sentence) -> bool:
    """A one-line signature the splitter read as code, with the sentence indented under it (a
    reference's method inside its class: "   setdefault(key[, default])" / "      If *key* is
    in the dictionary, return its value.")."""
    return (h.kind == sentences.CODE and "\n" not in h.text and len(h.text) <= MAX_TERM
            and bool(_SIGNATURE.fullmatch(h.text.strip())) and _column(text, s.start) > _column(text, h.start))


def with_term(units: Sequence[sentences.Sentence], i: int, text: str) -> int:
    """Where a quote of unit ``i`` starts: a definition's first sentence comes with the term it
    defines ("class.__mro__" above "This attribute is a tuple of classes..."; a signature above
    "Return the number of..."), as does a sentence that points back at the heading above it
    ("It is called..."); any other sentence starts where it starts. ``text``: what the units
    were split from (where a signature's indent is seen)."""
    s = units[i]
    if i == 0 or s.kind != sentences.PROSE:
        return s.start
    h = units[i - 1]
    if _signature_above(text, h, s):
        return h.start
    if h.kind != sentences.HEADING or "\n" in h.text or len(h.text) > MAX_TERM:
        return s.start
    marks = _ATX_MARKS.match(h.text)
    term = h.text[marks.end():] if marks else h.text
    if _SECTION_NUMBER.match(term):
        return s.start  # a numbered section's title, not a term the sentence defines
    if not (_TERM_CHARS.search(term) or _POINTS_BACK.match(s.text)):
        return s.start
    return h.start + (marks.end() if marks else 0)


def _after(span: Span, ps: Sequence[Piece], units: Sequence[sentences.Sentence], last: int,
           end: int, doc_end: int) -> tuple[str, int]:
    """What follows unit ``last`` and completes it (as the span has it, space included), and its
    document end; ("", 0) if nothing does: the prose sentence right after it in the same
    paragraph, or, after a sentence that leads in with a colon ("To remove objects the function
    rm is available:"), the short block of code it introduces."""
    if last + 1 >= len(units):
        return "", 0
    nxt = units[last + 1]
    text = span.text[end:nxt.end]
    gap = span.text[end:nxt.start]
    if nxt.kind == sentences.CODE and leads_in(units[last].text):
        if gap.strip() or len(text) > MAX_CODE_AFTER:
            return "", 0
    elif nxt.kind != sentences.PROSE or gap.strip() or sentences.BLANK_LINE.search(gap) or len(text) > MAX_CHARS:
        return "", 0  # not the same paragraph
    b = to_document(ps, nxt.end, end=True)
    if b is None or b[0] - doc_end != nxt.end - end:
        return "", 0  # a gap between chunks: not verbatim
    return text, b[0]


def _prose(span: Span, ps: Sequence[Piece]) -> list[tuple[str, int, int, int, str, int, str, str]]:
    """(text, doc start, doc end, chunk id, the sentence after it, its end, a row's header, how
    a row reads) of each quotable sentence of a span, in order; a lead-in sentence comes with
    the list it introduces (its items are also quotable alone), a definition with its term, a
    table row with its header."""
    out = []
    units = split_any(span.text, span.doc_type)  # a source file's sentences are its comments
    program = span.doc_type in PROGRAM_TYPES
    for i, s in enumerate(units):
        if s.kind == sentences.TABLE:  # a pipe table's rows, each read with its header (text/table_rows.py)
            for r in table_rows.rows(span.text, s.start, s.end):
                got = _placed(span, ps, r.start, r.end, False, r.reads)
                out.extend([(*got, "", 0, r.header, r.reads)] if got else [])
            continue
        if s.kind not in (sentences.PROSE, sentences.ITEM):
            continue
        last = with_list(units, i)
        start, end = with_term(units, i, span.text), units[last].end
        if end - start > MAX_CHARS:  # too long to quote whole: its clauses, each on its own
            for a, b in clauses.pieces(span.text, s.start, s.end):
                got = _placed(span, ps, a, b, program)
                out.extend([(*got, "", 0, "", "")] if got else [])
            continue
        got = _placed(span, ps, start, end, program)
        if got:
            out.append((*got, *_after(span, ps, units, last, end, got[2]), "", ""))
    return out


def _placed(span: Span, ps: Sequence[Piece], start: int, end: int, program: bool,
            reads: str = "") -> tuple[str, int, int, int] | None:
    """(text, doc start, doc end, chunk id) of ``span.text[start:end]`` if it is quotable
    (``reads``: as the scorer reads it) and verbatim in the document."""
    text = span.text[start:end]
    words = reads or text
    if len(words.split()) < MIN_WORDS or len(text) > MAX_CHARS or not_a_sentence(words) \
            or (program and looks_like_code(text)):
        return None
    a, b = to_document(ps, start), to_document(ps, end, end=True)
    if a is None or b is None or b[0] - a[0] != end - start:
        return None  # it crosses text the document does not have: not verbatim
    return text, a[0], b[0], a[1]


def candidates(query: str, spans: Sequence[Span], pieces: Sequence[Sequence[Piece]],
               sims: Sequence[float | None] = (), max_sentences: int = MAX_SENTENCES) -> list[Candidate]:
    """Prose sentences of the passages, at most ``max_sentences``: each passage's first
    ``FIRST_TURN`` by words, passage by passage, then the rest taken in turns; a sentence
    already taken from an earlier passage (the same words) is not taken again."""
    q = terms(query)
    top = spans[0].score if spans and spans[0].score else 1.0
    per_span: list[list[Candidate]] = []
    for i, (span, ps) in enumerate(zip(spans, pieces)):
        found = _prose(span, ps)
        sim = sims[i] if i < len(sims) else None
        pw = lexical_share(q, span.text)
        heading = " > ".join(p for path in span.heading_paths[:1] for p in path)
        cands = [Candidate(t, i + 1, span.doc_name, span.doc_id, cid, a, b, lexical_share(q, reads or t), j,
                           len(found), sim, span.score / top, pw, heading, found[j - 1][0] if j else "",
                           after, after_end, header, reads)
                 for j, (t, a, b, cid, after, after_end, header, reads) in enumerate(found)]
        cands.sort(key=lambda c: -c.lexical)  # stable: ties keep document order
        per_span.append(cands)
    out: list[Candidate] = []
    seen: set[str] = set()  # a sentence two passages share (a repeated note) is taken once, from the first
    depth, step = 0, FIRST_TURN
    while len(out) < max_sentences and any(depth < len(f) for f in per_span):
        for f in per_span:
            for c in f[depth:depth + step]:
                same = " ".join(c.text.split())
                if len(out) < max_sentences and same not in seen:
                    seen.add(same)
                    out.append(c)
        depth += step
        step = 1
    return out
