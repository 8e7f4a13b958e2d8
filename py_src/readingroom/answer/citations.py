"""Check a generated answer against the passages it cites, sentence by sentence.

A small model cites [3] for a sentence [3] does not say, cites [9] when there are four
passages, or cites nothing at all. The reader should see which sentences stand on the
documents and which do not. Each sentence's citations are parsed (``[1]``, ``[1, 2]``,
``[1][2]``, ``[1-3]``; a number that is not a passage is ``missing`` and never a link; an
unclosed ``[2`` is plain text), and the sentence is compared with the sentences of the
passages it cites by embedding similarity: supported when its best match clears a bar
calibrated on hand-written pairs over the bundled Python reference
(tests/citation_pairs.py): 18 paraphrases of a passage's sentence scored 0.715-0.979
against it, the same paraphrases against 302 passages of other topics 0.32 at the median,
0.644 at the 99th percentile; 0.65 sits between the two. Claims on the passage's own topic
that it does not make (16 written for it) score 0.33-0.77, so only 10 of 16 are caught:
embedding similarity tells "about this" from "about something else", not true from false.
A sentence that cites nothing is unsupported unless it makes no claim ("In short:", "The
documents do not say.").

Pure: ``plan`` says what to embed, the caller embeds it in one batch, ``judge`` decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..text import sentences
from ..search.fts import content_words

SUPPORT_THRESHOLD = 0.65  # calibrated on tests/citation_pairs.py: see the module docstring
MAX_ANSWER_SENTENCES = 60
MAX_PASSAGE_SENTENCES = 40  # per cited passage
MAX_TEXTS = 256  # one embedding batch, whatever the model wrote

_CITE = re.compile(r"\[\s*(\d+(?:\s*[-–]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-–]\s*\d+)?)*)\s*\]")
_REFUSAL = re.compile(
    r"\b(?:documents?|sources?|passages?|context|text)\b.{0,40}\b(?:do(?:es)?\s+not|don't|doesn't|"
    r"did\s+not|never|no)\b.{0,40}\b(?:say|cover|mention|contain|answer|specify|provide|include|"
    r"information|discuss|address)", re.IGNORECASE)
_CONNECTIVE = re.compile(
    r"^(?:here\s+(?:is|are|'s)|in\s+(?:short|summary|brief)|to\s+(?:sum\s+up|summari[sz]e)|overall|"
    r"sure|yes|no|okay|ok|certainly|of\s+course|let\s+me|i\s+hope)\b", re.IGNORECASE)
MAX_RANGE = 20  # "[1-500]" is not a citation of 500 passages


def numbers(text: str) -> list[int]:
    """Every cited number in ``text``, in order, once each."""
    out: list[int] = []
    for m in _CITE.finditer(text):
        for part in re.split(r"[,;]", m.group(1)):
            ends = [int(x) for x in re.split(r"[-–]", part) if x.strip()]
            span = range(ends[0], ends[-1] + 1) if len(ends) == 2 and 0 <= ends[1] - ends[0] < MAX_RANGE else ends
            for n in span:
                if n not in out:
                    out.append(n)
    return out


def strip_citations(text: str) -> str:
    return " ".join(_CITE.sub(" ", text).split())


def makes_no_claim(text: str) -> bool:
    """A connective, a heading, or a statement that the documents do not say something."""
    words = strip_citations(text)
    if not content_words(words) or len(words.split()) < 3 or _REFUSAL.search(words):
        return True
    return len(words.split()) <= 6 and bool(_CONNECTIVE.match(words))  # "Here is what I found."


@dataclass
class Unit:
    """One sentence of a written answer with the passages it cites and the citations that do not exist."""

    sentence: sentences.Sentence
    cites: list[int]
    missing: list[int]
    claim: bool


@dataclass
class Plan:
    """What checking a written answer needs: its sentences, the cited passages and their sentences."""

    units: list[Unit] = field(default_factory=list)
    passages: dict[int, str] = field(default_factory=dict)
    passage_sentences: dict[int, list[str]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)  # units' texts, then passage sentences

    @property
    def invalid(self) -> list[int]:
        out: list[int] = []
        for u in self.units:
            out += [n for n in u.missing if n not in out]
        return out


def plan(answer: str, passages: Sequence[dict]) -> Plan:
    """Split ``answer`` and list the texts to embed: its sentences that make a claim and
    cite a real passage, then the sentences of the passages they cite."""
    by_n = {int(p["n"]): str(p.get("text") or "") for p in passages if "n" in p}
    p = Plan(passages=by_n)
    for s in sentences.split(answer or "", labels=False)[:MAX_ANSWER_SENTENCES]:
        cited = numbers(s.text)
        claim = s.kind != sentences.HEADING and not makes_no_claim(s.text)
        p.units.append(Unit(s, [n for n in cited if n in by_n], [n for n in cited if n not in by_n], claim))
    embed_units = [u for u in p.units if u.claim and u.cites and u.sentence.kind != sentences.CODE]
    p.texts = [strip_citations(u.sentence.text) for u in embed_units]
    for n in sorted({n for u in embed_units for n in u.cites}):
        found = [" ".join(s.text.split()) for s in sentences.split(by_n[n])
                 if s.kind != sentences.HEADING][:MAX_PASSAGE_SENTENCES]
        found = found[: max(0, MAX_TEXTS - len(p.texts))]
        p.passage_sentences[n] = found
        p.texts += found
    return p


def _verbatim(code: str, passages: dict[int, str]) -> bool:
    flat = " ".join(code.strip("`").split())
    return bool(flat) and any(flat in " ".join(t.split()) for t in passages.values())


def judge(p: Plan, vecs: np.ndarray | None, threshold: float = SUPPORT_THRESHOLD) -> dict:
    """The check: each sentence with its citations, whether it is supported, and its best
    similarity to a sentence of a passage it cites (``None`` when nothing was compared).
    Without vectors (the model is down) a cited claim cannot be confirmed: unsupported."""
    embedded = [u for u in p.units if u.claim and u.cites and u.sentence.kind != sentences.CODE]
    row = {id(u): i for i, u in enumerate(embedded)}
    offsets: dict[int, tuple[int, int]] = {}
    at = len(embedded)
    for n, found in p.passage_sentences.items():
        offsets[n] = (at, at + len(found))
        at += len(found)
    out = []
    for u in p.units:
        sim = None
        if not u.claim:
            ok = not (u.missing and not u.cites)  # "See [9]." points at nothing
        elif u.sentence.kind == sentences.CODE:
            ok = _verbatim(u.sentence.text, {n: p.passages[n] for n in (u.cites or p.passages)})
        elif not u.cites or vecs is None:
            ok = False
        else:
            v = vecs[row[id(u)]]
            best = max((float(np.max(vecs[a:b] @ v)) for n in u.cites
                        for a, b in [offsets.get(n, (0, 0))] if b > a), default=None)
            sim = None if best is None else round(best, 4)
            ok = best is not None and best >= threshold
        out.append({"text": u.sentence.text, "start": u.sentence.start, "end": u.sentence.end,
                    "cites": u.cites, "missing": u.missing, "supported": ok, "similarity": sim})
    return {"sentences": out, "unsupported": sum(not s["supported"] for s in out),
            "invalid_citations": p.invalid}
