"""Names a question gives that the documents never do.

A person asking "How do I run coroutines with asyncio.gather?" or "How do templates work in
C++?" over a library that never mentions ``asyncio.gather`` or C++ is asking about something
else, however close the meaning of the passages found comes. The names looked for are the
ones a person writes on purpose: code (a dotted or snake_case name, a call ``f()``, ``C++``,
``C#``, a camelCase word) and proper names (a capitalised word inside the question, an
acronym). A name counts as mentioned when a text holds it as a word, or a word starting with
its stem ("Normans" is found in "Normandy", "Beyoncé's" in "Beyoncé"). Pure: the texts are
what retrieval brought back (its best fifty chunks), where a rare name, if the library held
it, would be found by the words leg of the search. The coverage model weighs a missing name
as one of its inputs (people misspell names and use other ones: "Burma", "Tuscon"); a missing
name that is surely code (``is_code``: "asyncio.gather", "my_func", "C++") refuses outright.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

_TOKEN = re.compile(r"[^\s,;:!?\"“”‘’()\[\]{}]+(?:\(\))?")
_CODE = re.compile(r"^(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|\w+\(\)|\w*[A-Za-z]\w*_\w*|[A-Za-z]{1,12}(?:\+\+|#)|"
                   r"[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)$")
_ACRONYM = re.compile(r"^[A-Z]{2,6}s?$")
# Capitalised words that are not names: how a question starts, "I", words of address.
_NOT_NAMES = frozenset("""what which who whom whose when where why how is are was were do does did can
    could should would will shall may might must has have had if in on at for of to from by with
    about into i i'm i've please the a an and or but not no yes ok okay hi hello thanks also
    then so is it this that these those there here my our your their its""".split())
_POSSESSIVE = re.compile(r"(?:'s|’s|s'|’)$")


_MARKS = re.compile(r"[\u0300-\u036f]+")


def _fold(text: str) -> str:
    # Accents off, case folded, every script kept ("Beyoncé" meets "Beyonce", "Москва" stays a
    # word). Not syntax.fold (the FTS5-like fold): this runs on the ~50 KB of retrieved text per
    # ask, where its per-character loop took 4.5 ms against 1.6 ms for this.
    return _MARKS.sub("", unicodedata.normalize("NFKD", text)).lower()


def names(question: str) -> list[str]:
    """The names ``question`` gives: code-like tokens anywhere, capitalised words and acronyms
    not at its start."""
    out: list[str] = []
    toks = _TOKEN.findall(question or "")
    for i, tok in enumerate(toks):
        tok = tok.strip(".'’`*")  # a sentence's full stop, quotes and emphasis around a name
        tok = _POSSESSIVE.sub("", tok) if not tok.endswith(("++", "#")) else tok
        if len(tok) < 2:
            continue
        proper = (tok.isalpha() and len(tok) >= 3 and tok[0].isupper() and tok[1:].islower()) or _ACRONYM.match(tok)
        if _CODE.match(tok) or (i > 0 and proper and tok.lower() not in _NOT_NAMES):
            out.append(tok)
    return list(dict.fromkeys(out))


def _stem(name: str) -> str:
    n = _fold(name)
    if re.fullmatch(r"[a-z]{5,}", n):
        for suffix in ("ians", "ans", "es", "s"):
            if n.endswith(suffix) and len(n) - len(suffix) >= 4:
                return n[:-len(suffix)]
    elif len(n) >= 5 and n.isalpha() and not n.isascii():
        return n[:-1]  # a case ending: "Москва" is mentioned by "в Москве"
    return n


def mentioned(name: str, folded: str) -> bool:
    """Does ``folded`` (texts run through ``_fold``) hold ``name``, or a word starting with its
    stem? A dotted name is held when each of its parts is ("dict.popitem()": the reference
    writes "popitem()" under "dict")."""
    parts = [p for p in name.removesuffix("()").split(".") if p] if "." in name else [name.removesuffix("()")]
    for part in parts:
        stem = _stem(part)
        if not stem:
            continue
        end = r"(?![\w+#])" if not stem[-1].isalnum() else ""
        if re.search(r"(?<![\w])" + re.escape(stem) + end, folded) is None:
            return False
    return True


# Code no one writes by accident: a dotted name, snake_case, a call, C++ or C#. Brand names
# are camelCase too ("GoFundMe", "RnB"), so camelCase alone is not this sure.
_SURE_CODE = re.compile(r"^(?:[\w.]*\.[A-Za-z_]\w*(?:\(\))?|\w+\(\)|\w*[A-Za-z]\w*_\w*|[A-Za-z]{1,12}(?:\+\+|#))$")


# Dotted words that are not code: initials ("U.S.", "D.O."), titles ("dr.carter"), web sites.
_NOT_CODE_FIRST = frozenset("dr mr mrs ms st jr sr prof no vs www".split())
_NOT_CODE_LAST = frozenset("com org net edu gov io uk de fr info co us".split())


def is_code(name: str) -> bool:
    if not _SURE_CODE.match(name):
        return False
    if "." not in name:
        return True
    parts = name.removesuffix("()").lower().split(".")
    return (all(len(p) >= 2 for p in parts) and max(map(len, parts)) >= 3
            and parts[0] not in _NOT_CODE_FIRST and parts[-1] not in _NOT_CODE_LAST)


def missing(question: str, texts: Iterable[str | None]) -> str:
    """A name the question gives that none of ``texts`` mentions, code first ("" when none)."""
    wanted = names(question)
    if not wanted:
        return ""
    folded = "\n".join(_fold(t) for t in texts if t)
    gone = [n for n in wanted if not mentioned(n, folded)]
    return next((n for n in gone if is_code(n)), gone[0] if gone else "")
