"""Turn user text into a safe FTS5 MATCH expression.

User text never reaches FTS5 as syntax: it is cut into word tokens, each one quoted as an
FTS5 string, and joined with OR (BM25 then ranks documents matching more and rarer terms
higher). Quotes, ``NEAR(``, ``*``, ``-``, ``:``, ``^`` and bare ``OR``/``AND``/``NOT`` all
become plain words or disappear. Very common words are dropped when anything else is
left: they add little to BM25 and are what makes the slow queries slow.

This is how words typed without operators are searched (``syntax.py`` reads the operators
of its ``web`` mode, and the ``phrase`` and ``strict`` modes, and renders them for FTS5 and
for Postgres).
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves""".split()
)


def _words(text: str) -> list[str]:
    """Distinct lower-cased word tokens in first-seen order."""
    return list(dict.fromkeys(_TOKEN.findall(text.lower())))


def content_words(text: str) -> list[str]:
    """The words of ``text`` that are not stopwords: what a question is about ("why?" has none)."""
    return [w for w in _words(text) if w not in STOPWORDS]


def word_terms(words: list[str]) -> list[str]:
    """Words already cut from a text: distinct, in first-seen order, stopwords dropped if
    anything else is left, at most ``MAX_TERMS``."""
    distinct = list(dict.fromkeys(words))
    content = [w for w in distinct if w not in STOPWORDS]
    return (content or distinct)[:MAX_TERMS]


def terms(text: str) -> list[str]:
    """Distinct lower-cased word tokens in first-seen order, stopwords dropped if possible."""
    return word_terms(_TOKEN.findall(text.lower()))


def match_expression(text: str) -> str | None:
    """An FTS5 query matching any of the terms, or ``None`` when there is nothing to match."""
    ts = terms(text)
    if not ts:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in ts)
