"""What a person types, read in one of four modes, and rendered for either store.

- ``web`` (the default): words as typed find chunks holding any of them, ranked (as
  before); once the text uses an operator it reads like a web search engine's box:
  ``"quoted phrase"`` must appear as a phrase, ``-word`` or ``-"a phrase"`` must not appear,
  ``a OR b`` needs either, and every other word is needed.
- ``plain``: every word is just a word, any of them matches (quotes, ``-`` and ``OR`` too).
- ``phrase``: the whole text is one phrase.
- ``strict``: every word is needed.

Syntax a person gets wrong (an unclosed quote, ``OR`` with nothing on one side, only
exclusions) is never an error: the text is read as plain words and ``Parsed.note`` says why,
which the debug view shows.

The result is rendered as an FTS5 MATCH expression or as a Postgres ``tsquery`` literal.
Both are built from word tokens only (runs of letters and digits, as FTS5's ``unicode61``
tokenizer cuts them), so nothing a person types reaches either engine as syntax. On the
Postgres side the words are folded and stemmed here, with the Porter stemmer FTS5 uses
(``porter.py``), and the chunks' ``tsvector`` is made the same way (``tsvector_literal``),
so the same query matches the same chunks on both stores.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from .fts import MAX_TERMS, STOPWORDS, word_terms
from .porter import stem

MODES = ("web", "plain", "phrase", "strict")
_WORD = re.compile(r"\w+")  # a word as typed (as fts.terms reads it)
_TOKEN = re.compile(r"[^\W_]+")  # what FTS5's unicode61 keeps of it: letters and digits
_CLAUSE = re.compile(r'(-?)"([^"]*)"|(\S+)')
MAX_POSITION = 16383  # Postgres keeps word positions up to this


def fold(text: str) -> str:
    """Lower case without diacritics, as ``unicode61 remove_diacritics 2`` compares words."""
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """The words of ``text``, lower case, in order (repeats kept); each becomes an FTS5
    string as it is, which FTS5 cuts into ``tokens`` ("foo_bar" is the phrase foo bar)."""
    return [w for w in _WORD.findall(text.lower()) if _TOKEN.search(w)]


def tokens(text: str) -> list[str]:
    """The tokens FTS5's ``unicode61 remove_diacritics 2`` makes of ``text``, in order."""
    return _TOKEN.findall(fold(text))


@lru_cache(maxsize=200_000)
def lexeme(word: str) -> str:
    """The term FTS5's ``porter`` tokenizer stores for a folded word."""
    return stem(word) or word


Phrase = tuple[str, ...]  # words, in order; one word is a phrase of one


@dataclass(frozen=True)
class Parsed:
    """A query as its syntax reads it: phrases wanted, needed and excluded, and how it was read."""

    mode: str
    any_of: tuple[Phrase, ...] = ()  # optional: a chunk matching any of these (ranked)
    all_of: tuple[tuple[Phrase, ...], ...] = ()  # each group is needed: one of its phrases
    none_of: tuple[Phrase, ...] = ()  # excluded
    read_as: str = ""  # the mode the text was read in ("plain" when its syntax was wrong)
    note: str | None = None  # why it was read as plain words

    @property
    def empty(self) -> bool:
        return not self.any_of and not self.all_of

    @property
    def ranked_words(self) -> list[str] | None:
        """The words of an any-of query (the in-memory BM25 ranks those); None otherwise."""
        if self.all_of or self.none_of or any(len(p) != 1 for p in self.any_of):
            return None
        return [p[0] for p in self.any_of]

    def describe(self) -> dict:
        return {"mode": self.mode, "read_as": self.read_as, "note": self.note}


def _plain(text: str, mode: str, note: str | None = None) -> Parsed:
    return Parsed(mode, any_of=tuple((w,) for w in word_terms(words(text))), read_as="plain", note=note)


def parse(text: str, mode: str = "web") -> Parsed:
    if mode not in MODES:
        from ..errors import BadInput

        raise BadInput(f"syntax must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "plain":
        return _plain(text, mode)
    if mode == "phrase":
        ws = tuple(words(text))[:MAX_TERMS]
        return Parsed(mode, all_of=((ws,),) if ws else (), read_as="phrase")
    if mode == "strict":
        return Parsed(mode, all_of=tuple(((w,),) for w in word_terms(words(text))), read_as="strict")
    return _web(text)


def _web(text: str) -> Parsed:
    if '"' not in text and " OR " not in f" {text} " and not re.search(r"(^|\s)-\S", text):
        return _plain(text, "web")
    if text.count('"') % 2:
        return _plain(text, "web", "a quote is not closed, so every word was searched for")
    groups: list[list[Phrase]] = []
    excluded: list[Phrase] = []
    joining = False  # the previous clause was OR
    for m in _CLAUSE.finditer(text):
        negated, quoted, bare = m.group(1), m.group(2), m.group(3)
        if bare == "OR":
            if joining or not groups:
                return _plain(text, "web", "OR needs a word on each side, so every word was searched for")
            joining = True
            continue
        if quoted is None and bare.startswith("-") and len(bare) > 1:
            negated, bare = "-", bare[1:]
        phrase = tuple(words(quoted if quoted is not None else bare))
        if not phrase:
            continue  # punctuation alone
        if quoted is None and len(phrase) > 1:
            phrase_list = [(w,) for w in phrase]  # "e-mail" or "a.b": each part is a word
        else:
            phrase_list = [phrase]
        if negated:
            if joining:
                return _plain(text, "web", "OR cannot join an excluded word, so every word was searched for")
            excluded.extend(phrase_list)
            continue
        if joining:
            groups[-1].extend(phrase_list[:1])
            groups.extend([[p] for p in phrase_list[1:]])
            joining = False
        else:
            groups.extend([[p] for p in phrase_list])
    if joining:
        return _plain(text, "web", "OR needs a word on each side, so every word was searched for")
    if not groups:
        return _plain(text, "web", "only excluded words were given, so every word was searched for")
    # Bare stop words are not needed (as in a search engine); quoted ones are.
    needed = [g for g in groups if not (len(g) == 1 and len(g[0]) == 1 and g[0][0] in STOPWORDS)]
    return Parsed("web", all_of=tuple(tuple(g) for g in (needed or groups))[:MAX_TERMS],
                  none_of=tuple(excluded)[:MAX_TERMS], read_as="web")


# -- FTS5 --------------------------------------------------------------------------------
def _fts_phrase(p: Phrase) -> str:
    return '"' + " ".join(p) + '"'  # words are letters and digits only: nothing to escape


def _render(parsed: Parsed, phrase, or_: str, and_: str, not_: str) -> str | None:
    """The parsed query in one engine's boolean syntax (None when there is nothing to match)."""
    if parsed.empty:
        return None
    if parsed.any_of:
        expr = or_.join(phrase(p) for p in parsed.any_of)
    else:
        expr = and_.join("(" + or_.join(phrase(p) for p in g) + ")" for g in parsed.all_of)
    if parsed.none_of:
        expr = f"({expr}){not_}({or_.join(phrase(p) for p in parsed.none_of)})"
    return expr


def fts5_expression(parsed: Parsed) -> str | None:
    """An FTS5 MATCH expression, or None when there is nothing to match."""
    return _render(parsed, _fts_phrase, " OR ", " AND ", " NOT ")


# -- Postgres ----------------------------------------------------------------------------
def _ts_phrase(p: Phrase) -> str:
    return "(" + " <-> ".join("'" + lexeme(t) + "'" for w in p for t in tokens(w)) + ")"


def tsquery_literal(parsed: Parsed) -> str | None:
    """A ``tsquery`` in Postgres's text form, or None when there is nothing to match."""
    return _render(parsed, _ts_phrase, " | ", " & ", " & !")


def tsvector_literal(text: str, weight: str, start: int = 0) -> tuple[str, int]:
    """A chunk column as a ``tsvector`` in text form: each word's FTS5 term at its position
    (after ``start``), with ``weight``; and the last position used."""
    pos = start
    out: dict[str, list[str]] = {}
    for w in tokens(text):
        pos += 1
        out.setdefault(lexeme(w), []).append(f"{min(pos, MAX_POSITION)}{weight}")
    return " ".join(f"'{lex}':{','.join(ps[:256])}" for lex, ps in out.items()), pos
