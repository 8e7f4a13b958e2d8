"""Documents a question names: the third leg of retrieval.

A person who asks "where does Arsenic and Old Lace take place?" names the document, yet the
passage that answers ("The play is set in the Brewster home in Brooklyn") never repeats the
name, so neither the words nor the meaning of the question find it. Here each document's name
(its file name without the extension, or its title) is read as words; a document is named when
the question holds two or more of its name's words, most of its weight (idf over the library's
names, so a word every name shares, "reference" or "novel", counts little), and one of them is
made of letters. One word is not enough: a reference whose topics are named "types", "dict" or
"pass" would be named by every question that says "type", "dict" or "pass more arguments",
which the words and meaning legs already weigh (on our answerable set's dev split the leg with
single words lost 4 of 88 answers; on the held-back Natural Questions it found the expected
article in the top 3 for 9 more of 334).
``retrieve`` then searches the named documents' own chunks by meaning and fuses them as a leg
of their own (``fuse.rrf``), shown in the debug view as the "name rank".

Pure: built from ``(doc_id, name)`` pairs, asked with a question's text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Generator, Sequence

from .fts import content_words
from .syntax import lexeme

NAMED_SHARE = 0.6  # the share of a name's weight the question must hold
NAMED_WORDS = 2  # ...in at least this many of its words
MAX_NAMED = 2  # documents named by one question, at most
CHUNKS_PER_NAMED = 3  # each named document's best chunks by meaning that enter the leg
NAMES_UP_TO = 50_000  # documents; past this the leg is off (its index would cost seconds to build)
# Names read as words per step of a build in steps (``NameIndex.in_steps``): ~15 ms natively,
# ~70 ms in the page after a reload, when every word's stem is computed for the first time.
NAMES_PER_STEP = 500

_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def words(text: str) -> frozenset[str]:
    """The stems of the content words of a name or question (``fts.content_words``), stored as
    FTS5's porter tokenizer stores them; "_" splits words as spaces do."""
    return frozenset(lexeme(w) for w in content_words(text.replace("_", " ")))


def bare_name(name: str) -> str:
    """A document name without its folders and its extension ("notes/Red Bull.txt": "Red Bull")."""
    return _EXTENSION.sub("", name.rsplit("/", 1)[-1])


def name_text(name: str) -> str:
    """A document name as words are read from it: its bare name, "_" read as a space."""
    return bare_name(name).replace("_", " ")


def name_words(name: str) -> frozenset[str]:
    """A document name's words: neither its folders nor its extension are words of it."""
    return words(name_text(name))


@dataclass(frozen=True)
class Named:
    """A document the question names: how much of its name's weight it holds, and which words."""

    doc_id: int
    share: float
    weight: float  # idf of the name's words the question holds
    words: tuple[str, ...]


class NameIndex:
    """Every document's name as words, with the words' idf over the names: built at once from
    ``(doc_id, name)`` pairs, or in steps (``in_steps``)."""

    def __init__(self, names: Sequence[tuple[int, str]] = ()):
        self.names: dict[int, frozenset[str]] = {}
        self.by_word: dict[str, list[int]] = {}
        self.idf: dict[str, float] = {}
        self._read(names)
        self._weigh()

    @classmethod
    def in_steps(cls, names: Sequence[tuple[int, str]],
                 per_step: int | None = None) -> Generator[int, None, "NameIndex"]:
        """The same index as ``NameIndex(names)``, ``per_step`` names (``NAMES_PER_STEP``) read
        a step (each step yields how many are read so far); the index is what it returns."""
        per_step = per_step or NAMES_PER_STEP
        index = cls()
        for at in range(0, len(names), per_step):
            index._read(names[at:at + per_step])
            yield min(at + per_step, len(names))
        index._weigh()
        return index

    def _read(self, names: Sequence[tuple[int, str]]) -> None:
        for doc_id, name in names:
            ws = name_words(name)
            if not any(w.isalpha() for w in ws):
                continue  # a number or an id is not a name a person says
            self.names[doc_id] = ws
            for w in ws:
                self.by_word.setdefault(w, []).append(doc_id)

    def _weigh(self) -> None:
        n = len(self.names)
        self.idf = {w: math.log(1.0 + (n - len(ds) + 0.5) / (len(ds) + 0.5)) for w, ds in self.by_word.items()}

    def named(self, question: str, limit: int = MAX_NAMED, share: float = NAMED_SHARE) -> list[Named]:
        """The documents ``question`` names, most named first (the share of the name's weight
        it holds, then that weight), at most ``limit``."""
        asked = words(question)
        held: dict[int, list[str]] = {}
        for w in asked:
            for d in self.by_word.get(w, ()):
                held.setdefault(d, []).append(w)
        out = []
        for d, ws in held.items():
            if len(ws) < NAMED_WORDS or not any(w.isalpha() for w in ws):
                continue
            total = sum(self.idf[w] for w in self.names[d])
            got = sum(self.idf[w] for w in ws)
            if total > 0 and got / total >= share:
                out.append(Named(d, round(got / total, 4), round(got, 4), tuple(sorted(ws))))
        out.sort(key=lambda m: (-m.share, -m.weight, m.doc_id))
        return out[:limit]
