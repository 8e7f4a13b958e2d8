"""Split text into sentences a reader can be shown on their own, with exact offsets.

The quick answer quotes sentences verbatim and the citation check compares sentence by
sentence, so both need units that are whole thoughts and offsets that point back into the
text (``text[s.start:s.end] == s.text``). Plain "split at a full stop" fails on what
documents are made of: code (``os.path.join``, indented or fenced blocks), abbreviations
(e.g., i.e., etc., Mr.), version numbers (3.12), hard-wrapped lines, list items, headings
and footnote marks (``stack.  [1]``). Each unit gets a ``kind`` so callers can skip the
ones that are not prose (a heading or a code block is not an answer by itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..ingest.chunking import trim as _strip
from .line_kinds import (MAX_LEAD_IN_LINES, ENDS_SENTENCE, SECTION_TITLE, figure_labels, is_code_line, is_listing,
    extend_listing, is_output, is_prompt, is_title_line, looks_like_code)

PROSE, ITEM, HEADING, CODE, TABLE, FIGURE = "prose", "item", "heading", "code", "table", "figure"

# Words that end in a full stop without ending the sentence (compared lower-cased, without
# the final dot). "etc" is not here: "md, txt, etc. The rest" is two sentences.
ABBREVIATIONS = frozenset(
    """e.g i.e cf vs viz al approx incl resp esp fig figs eq eqs no nos vol pp p ch sec
    mr mrs ms dr prof sr jr st mt inc ltd co corp dept univ jan feb mar apr jun jul aug sep
    sept oct nov dec""".split()
)

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_UNDERLINE = re.compile(r"^\s*([=*\-~^#+])\1{2,}\s*$")
_ATX = re.compile(r"^ {0,3}#{1,6}\s")
_BULLET = re.compile(r"^(\s*)(?:[-*+•]|\d{1,3}[.)]|\(?[a-zA-Z0-9]{1,3}\))\s+\S")
BLANK_LINE = re.compile(r"\n[ \t]*\n")  # where a paragraph ends
# A sentence end: . ! ? (or …), closing quotes/brackets, then footnote or citation marks
# such as [1] or [1, 2] that belong to the sentence they follow.
_END = re.compile(r"[.!?…]+[\"'”’)\]*_`]*(?:\s*\[\d+(?:\s*[,;]\s*\d+)*\])*(?=\s|$)")


@dataclass(frozen=True)
class Sentence:
    """A sentence (or a line of code, a list item, a table row) by character offsets."""

    text: str
    start: int
    end: int
    kind: str = PROSE


def _blocks(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, fenced) of each blank-line separated block; a fenced code block is one
    block even when it holds blank lines."""
    out: list[tuple[int, int, bool]] = []
    pos, n = 0, len(text)
    lines = text.splitlines(keepends=True)
    i = 0
    block_start = None
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            if block_start is not None:
                out.append((block_start, pos, False))
                block_start = None
            fence = _FENCE.match(line).group(1)
            start = pos
            pos += len(line)
            i += 1
            while i < len(lines):
                pos += len(lines[i])
                i += 1
                if lines[i - 1].lstrip().startswith(fence):
                    break
            out.append((start, pos, True))
            continue
        if not line.strip():
            if block_start is not None:
                out.append((block_start, pos, False))
                block_start = None
        elif block_start is None:
            block_start = pos
        pos += len(line)
        i += 1
    if block_start is not None:
        out.append((block_start, n, False))
    return out


def _is_abbreviation(text: str, dot: int) -> bool:
    """Is the full stop at ``dot`` part of an abbreviation or an initial?"""
    j = dot
    while j > 0 and not text[j - 1].isspace() and text[j - 1] not in "([\"'“":
        j -= 1
    word = text[j:dot].lower()
    if word in ABBREVIATIONS:
        return True
    return len(word) == 1 and word.isalpha() and text[j:dot].isupper()  # "J. Smith"


def _is_list_number(text: str, unit_start: int, dot: int) -> bool:
    """"1.", "b." or "xiv." opening a list item is its number, not a sentence."""
    word = text[unit_start:dot].strip()
    return bool(word) and (word.isdigit() or (len(word) == 1 and word.isalpha()) or _ROMAN.fullmatch(word.lower()) is not None) \
        and not text[unit_start:dot].strip(" \t\n").count(" ")


_ROMAN = re.compile(r"(?=[ivxl])l?x{0,3}(ix|iv|v?i{0,3})")  # i to lxxxix


def _starts_sentence(text: str, at: int, gap: str) -> bool:
    """Could a new sentence start at ``at``? Capitals, digits, quotes and brackets can;
    a lower-case word only after two spaces (a typewriter's sentence gap)."""
    if at >= len(text):
        return True
    c = text[at]
    if c == "(" and text[at + 1:at + 2].islower():
        return False  # "... for input. (see Section 7.2.)": a remark on the sentence before
    if c.isupper() or c.isdigit() or c in "\"'“‘([*`_<-•":
        return True
    if c in ".,;:)]}":
        return False  # the dots of a spaced ellipsis (". . ." in typeset PDFs) or a stray mark
    if not c.isalpha():
        return True
    if c.islower():
        return "  " in gap and "\n" not in gap
    return True  # scripts without case (CJK, Arabic, ...)


def _url_goes_on(text: str, dot: int, nxt: int) -> bool:
    """A web address a PDF broke at a dot ("(https://CRAN.", "R-project.org/package=RODBC)")."""
    j = dot
    while j > 0 and not text[j - 1].isspace():
        j -= 1
    if "://" not in text[j:dot] or "\n" not in text[dot:nxt]:
        return False
    word = re.match(r"\S+", text[nxt:nxt + 200])
    return bool(word) and re.match(r"[\w.-]+[/)]", word.group()) is not None


def _prose(text: str, start: int, end: int, kind: str) -> list[Sentence]:
    out: list[Sentence] = []
    cur = start
    for m in _END.finditer(text, start, end):
        stop = m.end()
        nxt = stop
        while nxt < end and text[nxt].isspace():
            nxt += 1
        if nxt >= end:
            break
        if text[m.start()] == "." and m.end() - m.start() == 1 and (
                _is_abbreviation(text, m.start()) or _is_list_number(text, cur, m.start())):
            continue
        if not _starts_sentence(text, nxt, text[stop:nxt]) or _url_goes_on(text, m.start(), nxt):
            continue
        s, e = _strip(text, cur, stop)
        if s < e:
            out.append(Sentence(text[s:e], s, e, kind))
        cur = nxt
    s, e = _strip(text, cur, end)
    if s < e:
        out.append(Sentence(text[s:e], s, e, kind))
    # CJK full stops need no space after them.
    return [p for s in out for p in _split_cjk(text, s)]


def prose(text: str, start: int, end: int) -> list[Sentence]:
    """The sentences of ``text[start:end]`` read as running prose (no list, heading or code)."""
    return _prose(text, start, end, PROSE)


def _split_cjk(text: str, s: Sentence) -> list[Sentence]:
    if not any(c in s.text for c in "。！？"):
        return [s]
    out, cur = [], s.start
    for m in re.finditer(r"[。！？]+[」』）]*", text[s.start:s.end]):
        stop = s.start + m.end()
        a, b = _strip(text, cur, stop)
        if a < b:
            out.append(Sentence(text[a:b], a, b, s.kind))
        cur = stop
    a, b = _strip(text, cur, s.end)
    if a < b:
        out.append(Sentence(text[a:b], a, b, s.kind))
    return out


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out, pos = [], start
    for line in text[start:end].splitlines(keepends=True):
        out.append((pos, pos + len(line.rstrip("\r\n"))))
        pos += len(line)
    return out


def _block(text: str, start: int, end: int, labels: bool = True) -> list[Sentence]:
    """A blank-line separated block: headings (a markdown "# ..." line, or a line underlined
    with === / *** / ---) in their place, and the runs of lines between them."""
    lines = _lines(text, start, end)
    out: list[Sentence] = []
    run: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        a, b = lines[i]
        atx = _ATX.match(text[a:b])
        underlined = (i + 1 < len(lines) and text[a:b].strip()
                      and _UNDERLINE.match(text[lines[i + 1][0]:lines[i + 1][1]]))
        if atx or underlined or _UNDERLINE.match(text[a:b]):
            out += _run(text, run, labels)
            run = []
            if atx or underlined:
                s, e = _strip(text, a, b)
                out.append(Sentence(text[s:e], s, e, HEADING))
            i += 2 if underlined and not atx else 1  # a rule or an overline is skipped
            continue
        run.append((a, b))
        i += 1
    return out + _run(text, run, labels)


def _run(text: str, body: list[tuple[int, int]], labels: bool = True) -> list[Sentence]:
    """Lines with no heading among them: a table, code, list items, a label, or prose; lines
    typed at a prompt (or set as a statement) are code of their own among the others, and a
    figure's labels read along with its page are a unit of their own."""
    if not body:
        return []
    lines = [text[x:y] for x, y in body]
    marks: list[bool | str] = [  # True: code (typed at a prompt, or a statement); FIGURE; False: words
        is_prompt(ln) or is_code_line(ln) for ln in lines]
    for i in range(1, len(body)):  # what the console printed back belongs to the command
        marks[i] = marks[i] or (marks[i - 1] and is_output(lines[i]))
    if any(marks):  # a listing's other statements ("if(amount <= 0)", "stop(...)") go with it
        extend_listing(lines, marks)
    for i, label in enumerate(figure_labels(lines)):
        marks[i] = marks[i] or (FIGURE if label else False)
    if any(marks):
        out: list[Sentence] = []
        i, open_ = 0, False
        while i < len(body):
            j = i
            while j < len(body) and marks[j] == marks[i]:
                j += 1
            if not marks[i]:
                units = _run_lines(text, body[i:j], labels and not open_)  # after a command: no label
                if open_ and units and units[0].kind in (PROSE, ITEM) and units[0].text[:1].islower():
                    # "... seeing something like" / "R> -2^2" / "and misunderstanding ...": one sentence
                    out[-1] = Sentence(text[out[-1].start:units[0].end], out[-1].start, units[0].end, out[-1].kind)
                    units = units[1:]
                out += units
                open_ = False
            elif marks[i] is True and out and out[-1].kind in (PROSE, HEADING, ITEM) \
                    and not ENDS_SENTENCE.search(out[-1].text) and j - i <= MAX_LEAD_IN_LINES:
                # "the command is" / "> help(solve)": the words that lead into a command keep it
                # (in a list item too: "3. ... Thus" / "> y <- x[-(1:5)]" / "gives y all but ...")
                s, e = out[-1].start, _strip(text, body[i][0], body[j - 1][1])[1]
                out[-1] = Sentence(text[s:e], s, e, ITEM if out[-1].kind == ITEM else PROSE)
                open_ = True
            else:  # a listing, or a figure's labels: a unit of its own
                s, e = _strip(text, body[i][0], body[j - 1][1])
                out.append(Sentence(text[s:e], s, e, FIGURE if marks[i] == FIGURE else CODE))
                open_ = False
            i = j
        return out
    return _run_lines(text, body, labels)


def _run_lines(text: str, body: list[tuple[int, int]], labels: bool = True) -> list[Sentence]:
    a, b = body[0][0], body[-1][1]
    chunk = text[a:b]
    s, e = _strip(text, a, b)
    rows = sum(1 for x, y in body if text[x:y].count("|") >= 2 or text[x:y].lstrip().startswith(("+-", "+=", "|")))
    if (rows * 2 >= len(body) and rows) or is_listing(text, body):  # a text table: its cells are not sentences
        return [Sentence(text[s:e], s, e, TABLE)]
    indented = all(text[x:y][:1] in (" ", "\t") for x, y in body)
    # An interactive session (">>> ...") is code wherever it stands: a chunk that starts inside
    # an indented example has lost the first line's indent, and its output lines read as words.
    doctest = any(text[x:y].lstrip().startswith((">>> ", "... ")) or text[x:y].strip() == ">>>"
                  for x, y in body)
    if doctest or (indented and looks_like_code(chunk)):
        return [Sentence(text[s:e], s, e, CODE)]
    for i in range(len(body) - 1):  # "...separator." / "5. Missing values" / "By default the ..."
        if (i == 0 or ENDS_SENTENCE.search(text[body[i - 1][0]:body[i - 1][1]].rstrip())) \
                and is_title_line(text, body[i:i + 2]):
            x, y = _strip(text, *body[i])
            before = _run_lines(text, body[:i], labels) if i else []
            return before + [Sentence(text[x:y], x, y, HEADING)] + _run_lines(text, body[i + 1:], labels)
    # List items: each bullet starts a unit; its wrapped lines continue it.
    starts = [x for x, y in body if _BULLET.match(text[x:y])]
    if starts:
        bounds = sorted(set([a] + starts)) + [b]
        return [u for x, y in zip(bounds, bounds[1:]) for u in _prose(text, x, y, ITEM if x in starts else PROSE)]
    if labels and len(body) == 1 and len(chunk.split()) <= 12 and (not re.search(
            r"[.!?:…。！？][\"'”’)\]]*(?:\s*\[\d+\])?\s*$", chunk) or SECTION_TITLE.match(chunk.strip())):
        return [Sentence(text[s:e], s, e, HEADING)]  # a short line on its own: a label, signature or title
    return _prose(text, a, b, PROSE)


def split(text: str, labels: bool = True) -> list[Sentence]:
    """Every sentence-like unit of ``text`` in order, with offsets into ``text``. ``labels``:
    a short line on its own without a sentence end is a label (a heading); off for a model's
    answer, whose last words may simply not be finished yet ("See also [2")."""
    out: list[Sentence] = []
    for start, end, fenced in _blocks(text):
        if fenced:
            s, e = _strip(text, start, end)
            if s < e:
                out.append(Sentence(text[s:e], s, e, CODE))
        else:
            out += _block(text, start, end, labels)
    return out
