"""What the sentence scorer sees of a (question, sentence) pair: a fixed vector of numbers.

Pure functions over plain values. The same code builds the training rows (``bench
train_answers``, from public question-answering sets) and scores a person's question in both
runtimes, so the model is only ever shown features computed exactly as at inference.

The groups: meaning (the embedding's cosine of question and sentence), words (idf-weighted
and plain shares of the question's terms, word pairs in order, the same for the sentence before
it, the whole passage and its heading), retrieval (the passage's rank, fused score
and cosine), place (first sentence, place in the passage, length), and answer-type cues: the
kind of question (who, when, how many, why, yes/no...) next to what the sentence holds (names,
dates, numbers, a reason, a modal or negation that decides a yes/no question).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..search.fts import terms
from .candidates import Candidate, leads_in, lexical_share, stem, weighted_shares, words_of

KINDS = ("who", "when", "where", "number", "why", "how", "what", "yesno", "other")

_AUX = ("is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will",
        "may", "might", "must", "has", "have", "had", "shall")
_WORD = re.compile(r"[A-Za-z']+|\d+")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)s?\b")
# "March" and "May" only as capitalised names: "may only be passed" is not a date.
_MONTH = re.compile(r"\b(jan(uary)?|feb(ruary)?|(?-i:March)|april|(?-i:May)|june|july|aug(ust)?|sept?(ember)?|"
                    r"oct(ober)?|nov(ember)?|dec(ember)?|century|centuries|decade)\b", re.I)
_NUMBER = re.compile(r"\b\d[\d,.]*\b|\b(one|two|three|four|five|six|seven|eight|nine|ten|hundred|"
                     r"thousand|million|billion|dozen|several|many|few)\b", re.I)
_PLACE = re.compile(r"\b(in|at|near|from|on)\s+(the\s+)?[A-Z][a-z]+")
_CAPITAL = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
_REASON = re.compile(r"\b(because|since|due to|so that|in order to|as a result|therefore|thus|"
                     r"reason|so as to|caused? by)\b", re.I)
_DECIDES = re.compile(r"\b(not|no|never|cannot|can't|must|only|always|may|might|should|required|"
                      r"allowed|possible|impossible|permitted|forbidden|illegal|error|raises?|"
                      r"unless|except|invalid|valid|supported|unsupported|yes|neither|nor)\b|n't\b", re.I)
_DEFINES = re.compile(r"\b(is|are) (a|an|the) \w+|\brefers? to\b|\bdefined as\b|\bknown as\b", re.I)
_CODE = set("=(){}[]<>#@;*|\\/_`")


def _leads(ws: Sequence[str], word: str) -> bool:
    """The question opens with ``word``, alone or after a joining word ("And when...", "Since
    when..."); "What happens when I pass..." is not asking when."""
    return bool(ws) and (ws[0] == word or (len(ws) > 1 and ws[1] == word and ws[0] in _LEADS_IN))


_LEADS_IN = frozenset(("and", "so", "but", "then", "since", "until", "till", "from", "by", "ok", "okay"))


_CONDITION = frozenset(("when", "if", "once", "whenever", "after", "before", "while"))
_ASKS = frozenset(("who", "whom", "whose", "when", "where", "why", "how", "what", "which") + _AUX)


def asked(question: str) -> str:
    """The clause that asks: "When I source a script nothing gets printed; what am I doing
    wrong?" asks what, "If I sort a list, can I keep it?" yes or no, and "I made a plot in a
    script and nothing shows up. Why?" why. A question that opens with a condition ("when I",
    "if") or a statement, and goes on to a clause that opens with a question word, is read from
    that clause; "When was it released, and by whom?" is still a when."""
    parts = [p for p in re.split(r"\s*[,;:]\s+|(?<=[.?!])\s+|\s+[-\u2013\u2014]\s+", question.strip()) if p]
    if len(parts) < 2:
        return question
    head = [w.lower() for w in _WORD.findall(parts[0])][:2]
    condition = bool(head) and head[0] in _CONDITION and not (len(head) > 1 and head[1] in _AUX)
    statement = bool(head) and head[0] not in _ASKS and head[0] not in _LEADS_IN and head[0] not in _CONDITION
    if not (condition or statement):
        return question
    for i, p in enumerate(parts[1:], 1):
        w = [x.lower() for x in _WORD.findall(p)][:1]
        if w and w[0] in _ASKS:
            return " ".join(parts[i:])
    return question


def kind(question: str) -> str:
    """The kind of answer the question wants, from the first words of the clause that asks."""
    ws = [w.lower() for w in _WORD.findall(asked(question))][:12]
    if not ws:
        return "other"
    head = ws[:3]
    if "who" in head or "whom" in head or "whose" in head:
        return "who"
    if _leads(ws, "when") or any(a in ("what", "which") and b in ("year", "date", "day", "month", "century", "decade")
                             for a, b in zip(ws[:3], ws[1:4])):
        return "when"
    if "where" in head:
        return "where"
    if "how" in head and any(w in ("many", "much", "long", "old", "far", "big", "large", "often") for w in ws[:4]):
        return "number"
    if "why" in head:
        return "why"
    if "how" in head:
        return "how"
    if ws[0] in ("what", "which") or (ws[0] in ("in", "on", "for", "of", "to", "by") and len(ws) > 1
                                      and ws[1] in ("what", "which")):
        return "what"
    if ws[0] in _AUX or (len(ws) > 1 and ws[0] in ("so", "and", "but", "then") and ws[1] in _AUX):
        return "yesno"
    return "other"


def yes_no(question: str) -> bool:
    return kind(question) == "yesno"


def _pairs(words: Sequence[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:]))


def _content(text: str) -> list[str]:
    from ..search.fts import STOPWORDS

    return [stem(w) for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS]


@dataclass(frozen=True)
class Question:
    """What is computed once per question."""

    text: str
    terms: tuple[str, ...]
    kind: str
    pairs: frozenset

    @staticmethod
    def of(text: str) -> "Question":
        return Question(text, tuple(terms(text)), kind(text), frozenset(_pairs(_content(text))))


NAMES = (
    ["cos", "cos_gap", "before_share", "passage_cos", "passage_rank", "passage_score", "idf_share",
     "idf_gap", "share", "share_gap", "pair_share", "passage_words", "heading_share", "first",
     "place", "log_words", "lead_in", "asks", "code", "q_terms"]
    + [f"kind_{k}" for k in KINDS]
    + ["has_year", "has_month", "has_number", "has_place", "has_name", "has_reason", "decides",
       "defines", "when_x_date", "number_x_number", "who_x_name", "where_x_place", "why_x_reason",
       "yesno_x_decides", "yesno_x_defines", "match", "match_gap"]
)


def _flags(text: str) -> tuple[float, ...]:
    return (float(bool(_YEAR.search(text))), float(bool(_MONTH.search(text))),
            float(bool(_NUMBER.search(text))), float(bool(_PLACE.search(text))),
            float(len(_CAPITAL.findall(text)) > 0), float(bool(_REASON.search(text))),
            float(bool(_DECIDES.search(text))), float(bool(_DEFINES.search(text))))


def matrix(q: Question, cands: Sequence[Candidate], cos: np.ndarray | None = None,
           match: np.ndarray | None = None) -> np.ndarray:
    """One row of ``NAMES`` per candidate. ``cos``: each sentence's cosine to the question;
    ``match``: the learned match of the two embeddings (``model.SentenceModel.match``); both
    None without vectors: zeros, and the scorer leans on words."""
    n = len(cands)
    if n == 0:
        return np.zeros((0, len(NAMES)), dtype=np.float32)
    cos = np.zeros(n) if cos is None else np.asarray(cos, dtype=np.float64)
    match = np.zeros(n) if match is None else np.asarray(match, dtype=np.float64)
    before = [lexical_share(q.terms, c.before) if c.before else 0.0 for c in cands]
    idf = weighted_shares(q.terms, [c.scored_text for c in cands])
    shares = [c.lexical for c in cands]
    kinds = [float(q.kind == k) for k in KINDS]
    qn = math.log(1 + len(q.terms))
    rows = []
    for i, c in enumerate(cands):
        text = c.scored_text  # a table row is read as "Column: value; ..."
        words = _content(text)
        pair = len(q.pairs & _pairs(words)) / len(q.pairs) if q.pairs else 0.0
        hw = words_of(c.heading) if c.heading else set()
        heading = (sum(stem(t) in hw for t in q.terms) / len(q.terms)) if q.terms and hw else 0.0
        nw = len(text.split())
        code = sum(ch in _CODE for ch in text) / max(1, len(text))
        f = _flags(text)
        yr, mo, num, place, name, reason, decides, defines = f
        rows.append([
            cos[i], cos[i] - cos.max(), before[i], c.passage_sim or 0.0, 1.0 / c.n, c.passage_score,
            idf[i], idf[i] - max(idf), shares[i], shares[i] - max(shares), pair, c.passage_words,
            heading, float(c.index == 0), c.index / max(1, c.count - 1) if c.count > 1 else 0.0,
            math.log(1 + nw), float(leads_in(text)), float(text.rstrip().endswith("?")),
            code, qn, *kinds, *f,
            kinds[1] * max(yr, mo), kinds[3] * num, kinds[0] * name, kinds[2] * place,
            kinds[4] * reason, kinds[7] * decides, kinds[7] * defines,
            match[i], match[i] - match.max(),
        ])
    return np.asarray(rows, dtype=np.float32)
