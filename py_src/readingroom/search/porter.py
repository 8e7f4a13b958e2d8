"""The Porter stemmer as SQLite's FTS5 ``porter`` tokenizer applies it, for query words.

The in-memory lexical leg (``bm25.py``) reads its postings from FTS5's own index, so the
documents are tokenised by FTS5 itself; only the query's words need stemming here, and
they must become exactly the terms FTS5 stored. This follows M. F. Porter's 1980 algorithm
("An algorithm for suffix stripping") with the choices FTS5 makes:

- words shorter than 3 or longer than 64 bytes are left as they are;
- a suffix is only removed when something is left in front of it;
- step 2 uses the later ``bli -> ble`` and ``logi -> log`` rules;
- in steps 2-4 only the longest listed suffix a word ends with is tried.

Only ASCII words are stemmed here (``stem`` returns None otherwise): FTS5 stems bytes, and
its Unicode folding tables are not Python's. ``tests/test_bm25.py`` checks every word of the
test corpora, and every rule, against the real FTS5 tokenizer.
"""

from __future__ import annotations

MIN_LEN, MAX_LEN = 3, 64
_VOWELS = frozenset("aeiou")


_CV = str.maketrans({c: ("v" if c in _VOWELS else "y" if c == "y" else "c")
                     for c in map(chr, range(128))})


def _pattern(w: str) -> str:
    """``w`` as consonants and vowels, "c" and "v": a ``y`` is a consonant first or after a
    vowel, else a vowel. A stem's pattern is the start of its word's."""
    p = w.translate(_CV)
    if "y" not in p:
        return p
    out = []
    for ch in p:
        out.append(("c" if not out or out[-1] == "v" else "v") if ch == "y" else ch)
    return "".join(out)


def _measure(stem: str) -> int:
    """m in [C](VC)^m[V]: how many vowel-consonant sequences the stem has."""
    return _pattern(stem).count("vc")


def _has_vowel(stem: str) -> bool:
    return "v" in _pattern(stem)


def _double_consonant(w: str) -> bool:
    """*d in the paper; here, as in FTS5, a doubled ``y`` counts as a consonant pair."""
    return len(w) >= 2 and w[-1] == w[-2] and w[-1] not in _VOWELS


def _cvc(w: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y (*o in the paper)."""
    return len(w) >= 3 and _pattern(w).endswith("cvc") and w[-1] not in "wxy"


def _ends(w: str, suffix: str) -> bool:
    return len(w) > len(suffix) and w.endswith(suffix)


def _step1a(w: str) -> str:
    if _ends(w, "sses") or _ends(w, "ies"):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def _step1b(w: str) -> str:
    if _ends(w, "eed"):
        return w[:-1] if _measure(w[:-3]) > 0 else w
    for suffix in ("ed", "ing"):
        if _ends(w, suffix):
            stem = w[: -len(suffix)]
            if not _has_vowel(stem):
                return w
            for short, full in (("at", "ate"), ("bl", "ble"), ("iz", "ize")):
                if _ends(stem, short):
                    return stem[: -len(short)] + full
            if _double_consonant(stem) and stem[-1] not in "lsz":
                return stem[:-1]
            if _measure(stem) == 1 and _cvc(stem):
                return stem + "e"
            return stem
    return w


def _step1c(w: str) -> str:
    if w.endswith("y") and _has_vowel(w[:-1]):
        return w[:-1] + "i"
    return w


# Longest first where one suffix ends another: the first match is the only one tried.
_STEP2 = (("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
          ("izer", "ize"), ("logi", "log"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"),
          ("eli", "e"), ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
          ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
          ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"))
_STEP3 = (("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
          ("ful", ""), ("ness", ""))
_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
          "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize")


def _longest(w: str, suffixes: tuple[str, ...]) -> str | None:
    """The longest of ``suffixes`` (ordered longest first) that ``w`` ends with, something left
    in front of it."""
    if not w.endswith(suffixes):
        return None
    for s in suffixes:
        if _ends(w, s):
            return s
    return None


def _by_length(suffixes) -> tuple[str, ...]:
    return tuple(sorted(suffixes, key=len, reverse=True))


_TABLE2, _TABLE3 = dict(_STEP2), dict(_STEP3)
_SUFFIXES2, _SUFFIXES3, _SUFFIXES4 = _by_length(_TABLE2), _by_length(_TABLE3), _by_length(_STEP4)


def _replace(w: str, table: dict[str, str], suffixes: tuple[str, ...], min_m: int) -> str:
    suffix = _longest(w, suffixes)
    if suffix is not None and _measure(w[: -len(suffix)]) >= min_m:
        return w[: -len(suffix)] + table[suffix]
    return w


def _step4(w: str) -> str:
    suffix = _longest(w, _SUFFIXES4)
    if suffix is None:
        return w
    stem = w[: -len(suffix)]
    if _measure(stem) <= 1:
        return w
    if suffix == "ion" and not stem.endswith(("s", "t")):
        return w
    return stem


def _step5(w: str) -> str:
    if w.endswith("e") and len(w) > 1:
        stem = w[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            w = stem
    if w.endswith("ll") and _measure(w[:-1]) > 1:
        w = w[:-1]
    return w


def stem(word: str) -> str | None:
    """The stem FTS5's porter tokenizer stores for one lower-case token; None for a
    non-ASCII token (the caller then asks FTS5 itself)."""
    if not word.isascii():
        return None
    if not MIN_LEN <= len(word) <= MAX_LEN:
        return word
    w = _step1c(_step1b(_step1a(word)))
    w = _replace(w, _TABLE2, _SUFFIXES2, 1)
    w = _replace(w, _TABLE3, _SUFFIXES3, 1)
    return _step5(_step4(w))
