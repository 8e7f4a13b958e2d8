"""What kind of question this is, and which documents it is about.

"Summarise the R Data Import/Export manual" searched as passages finds the passages most like
the word "summarise". A question that asks for a summary, an overview, the main points or an
outline of documents, or to compare documents, is answered at the document level instead;
everything else ("what does X say about Z") stays a passage question. Pure and deterministic:
the same decision natively and in the page, and tested on a written question set
(``bench summaries`` measures the share routed right).

The documents come from the question when it names them (matched against names and titles,
each word weighted by how rare it is among the library's names), otherwise from the scope
(the page's checkboxes, ``#name``). A name that fits several documents equally is not
guessed: the route says ``ambiguous`` and lists the candidates.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Sequence

from ..search.names import bare_name

PASSAGES, SUMMARY, COMPARE = "passages", "summary", "compare"
# Why a document-level question could not go ahead (the page and the CLI show ``message``).
AMBIGUOUS, WHICH_DOCUMENT, SAME_DOCUMENT = "ambiguous", "which_document", "same_document"
MAX_CANDIDATES = 8

_SUMMARY_CUE = re.compile(
    r"\b(?:summari[sz]e|summari[sz]ing|summary|summaries|sum\s+up|overview|outline|recap|tl;?dr|"
    r"gist|synopsis|abstract\s+of|(?:main|key|central|important)\s+(?:points?|ideas?|takeaways?|"
    r"findings|messages?|arguments?|themes?)|table\s+of\s+contents|what\s+(?:is|are)\s+(?:it|this|"
    r"these|that|the\s+\S+(?:\s+\S+){0,5})\s+(?:all\s+)?about\b|what\s+does\s+\S+(?:\s+\S+){0,5}\s+"
    r"cover\b|in\s+a\s+nutshell|walk\s+me\s+through)", re.IGNORECASE)
_COMPARE_CUE = re.compile(
    r"\b(?:compare|comparing|comparison|contrast|versus|vs\.?|differ(?:s|ence|ences)?\s+between|"
    r"how\s+(?:does|do)\s+.+\s+differ|side\s+by\s+side)\b", re.IGNORECASE)
# "Can I compare...", "how do we compare...", "is it safe to compare...": a person asking how or
# whether to compare things (numbers, objects), not asking for documents to be compared; and
# "objects that compare equal": the verb without an object.
_HOW_TO_COMPARE = re.compile(r"\b(?:(?:can|could|should|may|do|would|must)\s+(?:i|we|one)|(?:how|when|if|why)"
                             r"(?:\s+(?:do|can|should|would|must))?\s+(?:i|we|one)|(?:how|possible|ok|okay|"
                             r"safe|allowed|way)\s+to)\s+compare\b|\bcompared?s?\s+(?:equal|unequal|less|greater|"
                             r"higher|lower|true|false|the\s+same)\b", re.IGNORECASE)
# A question about something *in* a document stays a passage question.
_ABOUT_TOPIC = re.compile(r"\b(?:say|says|said|tell|tells|mention|mentions|explain|explains|"
                          r"describe|describes)\s+(?:\w+\s+){0,3}?(?:about|on|regarding)\b",
                          re.IGNORECASE)
_DEICTIC = re.compile(r"\b(?:this|these|those|the\s+selected|selected|both|them|it)\b(?:\s+(?:"
                      r"documents?|files?|papers?|manuals?|notes?|pdfs?|ones?|two))?", re.IGNORECASE)
_HASH = re.compile(r"#([^\s#,;]+)")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SPLIT = re.compile(r"\s*(?:,|;|\band\b|&|\bvs\.?|\bversus\b|\bwith\b|\bagainst\b|\bto\b|\bfrom\b)\s*",
                    re.IGNORECASE)
# Words that say "a document" or "summarise" without naming one.
_FILLER = frozenset("""a an the of to in on for and or with my our your this that these those
    please can could would you me us give show make write provide produce short brief quick
    summarise summarize summary summaries sum up overview outline recap tldr tl dr gist synopsis
    main key central important point points idea ideas takeaway takeaways finding findings message
    messages argument arguments theme themes table contents what is are it all about does do
    cover covers nutshell walk through compare comparing comparison contrast versus vs between
    difference differences differ side by both document documents doc docs file files paper
    papers manual manuals note notes pdf pdfs report reports text texts article articles book
    books chapter one two selected abstract""".split())


@dataclass(frozen=True)
class DocRef:
    """A document a question may name: its id, file name and (when known) its title."""

    id: int
    name: str
    title: str = ""


@dataclass(frozen=True)
class Route:
    """What a question asks for (passages, a summary or a comparison) and of which documents."""

    kind: str  # passages | summary | compare
    doc_ids: tuple[int, ...] = ()
    named: bool = False  # the documents were named in the question (not taken from the scope)
    reason: str | None = None  # ambiguous | which_document | same_document
    phrase: str = ""  # the words taken as a document's name, when one was looked for
    candidates: tuple[DocRef, ...] = field(default_factory=tuple)

    @property
    def message(self) -> str | None:
        if self.reason == AMBIGUOUS:
            names = ", ".join(c.name for c in self.candidates)
            return f"Which document do you mean by “{self.phrase}”? Several fit: {names}."
        if self.reason == WHICH_DOCUMENT and self.kind == COMPARE:
            return ("Which documents? Name two in the question, type # and a name, or tick them "
                    "under Sources.")
        if self.reason == WHICH_DOCUMENT:
            return "Which document? Name it in the question, type # and its name, or tick it under Sources."
        if self.reason == SAME_DOCUMENT:
            return "That compares a document with itself: name two different documents to compare."
        return None

    @property
    def why(self) -> str:
        """Why these documents, in a few words (the debug view's line)."""
        if self.reason == AMBIGUOUS:
            return f"“{self.phrase}” fits {len(self.candidates)} documents"
        if self.reason == SAME_DOCUMENT:
            return "both names are the same document"
        if self.reason == WHICH_DOCUMENT:
            return "no document named in the question, and none or too few in the scope"
        if self.kind == PASSAGES:
            return (f"“{self.phrase}” names no document: a topic, answered from passages" if self.phrase
                    else "no summary or comparison asked for: answered from passages")
        if self.named:
            return f"named in the question (“{self.phrase}”)" if self.phrase else "named with #"
        return "the documents in the scope (ticked, or the only ones)"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "doc_ids": list(self.doc_ids), "named": self.named,
                "reason": self.reason, "message": self.message, "phrase": self.phrase, "why": self.why,
                "candidates": [c.__dict__ for c in self.candidates]}


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def _stem(d: DocRef) -> str:
    """The file name without its folder and extension, lower-cased."""
    return bare_name(d.name).lower()


def _doc_words(d: DocRef) -> set[str]:
    return set(words(_stem(d))) | set(words(d.title))


def _exact(phrase: str, docs: Sequence[DocRef]) -> list[DocRef]:
    """Documents whose whole name, file name, stem or title the phrase is (cue words before it,
    "Compare birds.md", left aside)."""
    ws = phrase.lower().split()
    while len(ws) > 1 and ws[0].strip(":,") in _FILLER:
        ws = ws[1:]
    p = " ".join(ws).strip(" \"'“”‘’?.!:")
    return [d for d in docs if p and p in (d.name.lower(), d.name.rsplit("/", 1)[-1].lower(), _stem(d),
                                           d.title.lower())]


def kind_of(question: str) -> str:
    """summary, compare or passages, from the words alone."""
    q = " ".join(str(question or "").split())
    if not q:
        return PASSAGES
    if _ABOUT_TOPIC.search(q) and not re.match(r"^\s*(?:summari[sz]e|compare|outline)\b", q, re.I):
        return PASSAGES
    if _COMPARE_CUE.search(q) and not _HOW_TO_COMPARE.search(q):
        return COMPARE
    if _SUMMARY_CUE.search(q):
        return SUMMARY
    return PASSAGES


def _rest(question: str) -> str:
    """The question without its cue words: where a document's name would be."""
    q = _HASH.sub(" ", question)
    return " ".join(w for w in re.split(r"\s+", q) if w)


def match(phrase: str, docs: Sequence[DocRef]) -> list[tuple[float, float, DocRef]]:
    """(score, share of the document's own name matched, doc) for every document the phrase
    names, best first. Each word counts by its rarity among the documents' names (a word in
    every name, "python" in the bundled set, says little); words in no name are ignored."""
    asked = [w for w in words(phrase) if w not in _FILLER]
    named = {d.id: _doc_words(d) for d in docs}
    df: dict[str, int] = {}
    for ws in named.values():
        for w in ws:
            df[w] = df.get(w, 0) + 1
    useful = [w for w in dict.fromkeys(asked) if w in df]
    if not useful:
        return []
    weight = {w: math.log(1 + len(docs) / df[w]) for w in useful}
    total = sum(weight.values())
    out = []
    for d in docs:
        got = [w for w in useful if w in named[d.id]]
        if got:
            own = len(got) / max(1, len(named[d.id]))
            out.append((sum(weight[w] for w in got) / total, own, d))
    out.sort(key=lambda t: (-t[0], -t[1], t[2].name))
    return out


def _resolve(phrase: str, docs: Sequence[DocRef]) -> tuple[DocRef | None, tuple[DocRef, ...]]:
    """The one document ``phrase`` names, or (None, the candidates when several fit)."""
    exact = _exact(phrase, docs)
    if len(exact) == 1:
        return exact[0], ()
    found = match(phrase, docs)
    if not found or found[0][0] < 0.5:
        return None, ()
    best = found[0]
    ties = [f for f in found if f[0] >= best[0] - 1e-9 and f[1] >= best[1] - 1e-9]
    if len(ties) == 1:
        return best[2], ()
    near = [f[2] for f in found if f[0] >= best[0] - 1e-9][:MAX_CANDIDATES]
    return None, tuple(near)


def route(question: str, docs: Sequence[DocRef], scope: Sequence[int] = ()) -> Route:
    """The route of ``question`` over a library holding ``docs``, with the ids ticked in
    ``scope`` (empty: the whole library)."""
    q = " ".join(str(question or "").split())
    kind = kind_of(q)
    if kind == PASSAGES:
        return Route(PASSAGES, tuple(scope))
    by_name = {d.name.lower(): d for d in docs}
    hashed = [by_name.get(h.lower()) or next((d for d in docs if d.name.lower().endswith("/" + h.lower())
                                              or d.name.lower().startswith(h.lower())), None)
              for h in _HASH.findall(q)]
    if hashed and all(hashed):
        return _finish(kind, tuple(dict.fromkeys(d.id for d in hashed)), True, "", ())
    rest = _rest(q)
    whole, candidates = _resolve(rest, docs)
    if whole is not None and kind == SUMMARY:
        return _finish(kind, (whole.id,), True, rest, ())
    parts = [p for p in _SPLIT.split(rest) if any(w not in _FILLER for w in words(p)) or _exact(p, docs)]
    if len(parts) >= 2:
        got = [_resolve(p, docs) for p in parts]
        if all(d is not None for d, _ in got):
            ids = tuple(dict.fromkeys(d.id for d, _ in got))
            if kind == COMPARE and len(ids) < 2:
                return Route(kind, ids, True, SAME_DOCUMENT, rest)
            return _finish(kind, ids, True, rest, ())
        for p, (d, cands) in zip(parts, got):
            if d is None and cands:
                return Route(kind, (), True, AMBIGUOUS, p, cands)
        if kind == COMPARE and any(d is None for d, _ in got):
            # "the difference between a list and a data frame": things, not documents, compared
            return Route(PASSAGES, tuple(scope), phrase=rest)
    if whole is not None:
        return _finish(kind, (whole.id,) + tuple(i for i in scope if i != whole.id)[: 1], True, rest, ())
    if candidates:
        return Route(kind, (), True, AMBIGUOUS, rest, candidates)
    if [w for w in words(rest) if w not in _FILLER] and not _DEICTIC.search(q):
        # "summarise the causes of the war": a topic, not a document: its passages answer it
        return Route(PASSAGES, tuple(scope), phrase=rest)
    if scope:
        return _finish(kind, tuple(scope), False, "", ())
    if len(docs) == 1 or (kind == COMPARE and len(docs) == 2):
        return _finish(kind, tuple(d.id for d in docs), False, "", ())
    return Route(kind, (), False, WHICH_DOCUMENT, rest)


def _finish(kind: str, ids: tuple[int, ...], named: bool, phrase: str, cands) -> Route:
    ids = tuple(dict.fromkeys(ids))
    if kind == COMPARE and len(ids) < 2:
        return Route(kind, ids, named, WHICH_DOCUMENT, phrase, cands)
    return Route(kind, ids, named, None, phrase, cands)
