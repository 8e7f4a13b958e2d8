"""Turn a follow-up question into a query that can be searched on its own.

"And what if it runs a break?" searched alone finds nothing about ``finally``: the words
that say what "it" is were in the previous question. This is deterministic on purpose (no
model, the same result natively and in the browser, testable): when a question leans on
the conversation (a pronoun, an opening such as "and …?" or "what about …", or too few
words of its own), the previous question's content words are carried into it. A question
that stands on its own is searched exactly as asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from .fts import STOPWORDS, terms

MAX_TURNS = 20  # only recent turns matter; a 200-turn history costs no more than this
MAX_CARRIED = 8  # words carried over from earlier turns

# Openings that only make sense after another question; the first group is dropped from
# the query ("and", "what about" say nothing), "what if" is kept (it does say something).
_STRIP = re.compile(r"^\s*(?:(?:and|but|also|or|plus|so|then)\b[\s,]*)*(?:(?:what|how)\s+about\b[\s,]*)?",
                    re.IGNORECASE)
_CUE = re.compile(r"^\s*(?:and|but|also|or|plus|so|then|what\s+about|how\s+about|what\s+if|"
                  r"same\s+(?:for|with)|what\s+else)\b", re.IGNORECASE)
# Words that point back at something said earlier.
_ANAPHORA = re.compile(r"\b(?:it|its|it's|itself|they|them|their|theirs|themselves|these|those|"
                       r"such|former|latter|same|one|ones|there|that one|this one)\b", re.IGNORECASE)
# "this"/"that" point back when they stand alone or open the question ("what does that do",
# "is this allowed"), not as a conjunction after a noun ("the error that it raises").
_DEMONSTRATIVE = re.compile(
    r"(?:^|\b(?:is|are|was|does|do|did|can|could|would|will|about|with|for|of|in|on|to|use|"
    r"using|why|how|what|when|where|and|but|mean|means|say|says)\s+)(?:this|that)\b(?!\s+(?:is|the|a|an)\b)",
    re.IGNORECASE)
# Question words and verbs that say nothing about the subject.
_GENERIC = frozenset("""what how why when where which who whom whose does do did can could
    would should will shall may might must is are was were be been mean means meaning work
    works working happen happens happened use used using example examples explain tell show
    please else instead about also thing things way ways case cases one ones kind difference
    differ like""".split())


@dataclass(frozen=True)
class Turn:
    question: str
    standalone_query: str | None = None
    answer: str | None = None


def turns(history: Iterable[Any] | None, limit: int = MAX_TURNS) -> list[Turn]:
    """The recent turns of a history given as strings, dicts or ``Turn``s, oldest first; anything
    without a question is skipped (a 200-turn history is cut to the last ``limit``)."""
    items = list(history or ())[-limit:]
    out = []
    for item in items:
        if isinstance(item, Turn):
            q, sq, a = item.question, item.standalone_query, item.answer
        elif isinstance(item, str):
            q, sq, a = item, None, None
        elif isinstance(item, dict):
            q, sq, a = item.get("question"), item.get("standalone_query"), item.get("answer")
        else:
            continue
        if isinstance(q, str) and q.strip():
            out.append(Turn(" ".join(q.split()),
                            " ".join(sq.split()) if isinstance(sq, str) and sq.strip() else None,
                            a if isinstance(a, str) else None))
    return out


def own_terms(text: str) -> list[str]:
    """The words that carry a question's subject: not stopwords, not question verbs."""
    return [t for t in terms(text) if t not in STOPWORDS and t not in _GENERIC]


def is_followup(question: str) -> bool:
    """Does the question lean on an earlier one?"""
    if _CUE.search(question) or _ANAPHORA.search(question) or _DEMONSTRATIVE.search(question):
        return True
    return len(own_terms(question)) < 2


def standalone_query(question: str, history: Iterable[Any] | None = ()) -> str:
    """The query to search for ``question`` asked after ``history`` (oldest first)."""
    q = " ".join(question.split())
    past = turns(history)
    if not q or not past or not is_followup(q):
        return q
    prev = past[-1]
    mine = set(own_terms(q))
    carried: list[str] = []
    # The previous question's own words first, then what its query had carried itself.
    for source in (prev.question, prev.standalone_query or ""):
        for t in own_terms(source):
            if t not in mine and t not in carried:
                carried.append(t)
    carried = carried[:MAX_CARRIED]
    if not carried:
        return q
    core = _STRIP.sub("", q, count=1).strip() or q
    return f"{core} ({' '.join(carried)})"
