"""The prose of a program: its comments and docstrings, the only sentences a source file has.

A ``.py`` or ``.js`` file read as text has no sentence ends among its statements, so the
splitter would take a run of code for one long "sentence" and the quick answer would quote it.
Here each line is read for what it is in that language: a ``#`` or ``//`` comment, a line of a
``/* ... */`` block or of a Python docstring, or code. Runs of comment lines are split into
sentences as any text is (the markers of the lines after the first stay inside the run: a
quote is always verbatim); code lines give nothing. A passage may start inside a docstring or
a block comment it cannot see the start of: those lines read as code, and a unit that still
looks like code is dropped by the caller (``looks_like_code``).
"""

from __future__ import annotations

import re

from .line_kinds import PROGRAM_TYPES
from .sentences import Sentence, prose, split

_HASH = frozenset(("py", "yaml", "yml", "toml"))  # "#" starts a comment (in C it is the preprocessor)
_SLASHES = frozenset(("js", "ts", "java", "go", "rs", "c", "h", "cpp"))  # "//" and "/* ... */"
_DOCSTRING = re.compile(r"[rRuUbBfF]{0,2}(\"\"\"|''')")  # a line that opens one: r"""…
_MARKS = "#/*"  # a comment line's marker, left out where a sentence starts


def _segments(text: str, doc_type: str) -> list[tuple[int, int]]:
    """(start, end) of the comment text on each line that has some, markers left out."""
    out: list[tuple[int, int]] = []
    closer: str | None = None  # inside a docstring or a block comment: what ends it
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        lead = len(body) - len(body.lstrip())
        s = body.strip()
        start, stop = pos + lead, pos + len(body)
        m = _DOCSTRING.match(s) if doc_type == "py" else None
        opener, skip = (m.group(1), m.end()) if m else (None, 0)
        if closer is None and doc_type in _SLASHES and s.startswith("/*"):
            opener, skip = "/*", 2
        if closer is not None:
            at = body.find(closer)
            if at >= 0:
                out.append((start, pos + at))
                closer = None
            else:
                out.append((start, stop))
        elif opener is not None:
            inner = start + skip
            end_mark = "*/" if opener == "/*" else opener
            at = body.find(end_mark, lead + skip)
            if at >= 0:
                out.append((inner, pos + at))
            else:
                out.append((inner, stop))
                closer = end_mark
        elif (doc_type in _HASH and s.startswith("#") and not s.startswith("#!")) or \
                (doc_type in _SLASHES and s.startswith("//")):
            out.append((start + len(s) - len(s.lstrip("#/!")), stop))
        pos += len(line)
    return [(a, b) for a, b in out if text[a:b].strip()]


def comment_runs(text: str, doc_type: str) -> list[tuple[int, int]]:
    """Comments on consecutive lines joined: one span of ``text`` from the first one's words
    to the last one's end."""
    runs: list[tuple[int, int]] = []
    for a, b in _segments(text, doc_type):
        if runs and text.count("\n", runs[-1][1], a) == 1:  # the next line
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((a, b))
    return runs


def split_program(text: str, doc_type: str) -> list[Sentence]:
    """The sentences of ``text``'s comments and docstrings, with offsets into ``text``: each
    run read as running prose (a block comment's "*" lines are not list items), a sentence
    that begins on a later comment line starting after its marker."""
    out: list[Sentence] = []
    for a, b in comment_runs(text, doc_type):
        for u in prose(text, a, b):
            s = u.start
            while s < u.end and (text[s] in _MARKS or text[s].isspace()):
                s += 1
            if s < u.end:
                out.append(Sentence(text[s:u.end], s, u.end, u.kind))
    return out


def split_any(text: str, doc_type: str) -> list[Sentence]:
    """A document's sentence-like units: a program's comments, any other text whole."""
    return split_program(text, doc_type) if doc_type in PROGRAM_TYPES else split(text)
