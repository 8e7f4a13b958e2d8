"""A PDF's pages as a person reads them, from the text per page and the bookmark outline.

Pure, and the same on both sides (pypdf natively, pdf.js in the page give the lines):

- running heads, footers and page numbers are dropped: a line at the top or bottom of a
  page whose shape (digits as ``#``) repeats there on several pages, a lone number or roman
  numeral, or a line carrying the page's own number at the offset most pages agree on
  ("Chapter 1: Introduction 5" on page 10);
- words broken at line ends ("differ-" / "ences") are joined, across pages too;
- ligature code points (ﬁ, ﬂ ...) become letters, ligatures split off their word ("f ixed")
  are joined again (``join_split_ligatures``), and dot leaders shrink to one space;
- the outline becomes the heading path: each bookmark starts a section where its title
  appears on its page (or at the top of the page when the title is not found); without an
  outline, lines set in a clearly larger font do (``pdffonts.font_outline``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter

from .. import places
from ..errors import EmptyDocument
from .document import Document, Section
from .ocr_text import readable
from .pdffonts import font_outline

_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
              "\ufb05": "st", "\ufb06": "st"}
# TeX sets an accent as its own glyph before the letter ("Fran¸cois", "Universit¨at"): the
# spacing accent and its letter become the accented letter.
_SPACING_ACCENTS = {"\u00b4": "\u0301", "\u00a8": "\u0308", "\u00b8": "\u0327", "\u02c6": "\u0302",
                    "\u02dc": "\u0303", "\u02da": "\u030a", "\u02c7": "\u030c", "\u02d8": "\u0306",
                    "\u02dd": "\u030b"}
_ACCENTED = re.compile("([" + "".join(_SPACING_ACCENTS) + "])([A-Za-z])")
_ROMAN = re.compile(r"^[ivxlcdm]+$", re.I)
_NUMBER_AT_ENDS = re.compile(r"^(\d+)\b|\b(\d+)$")
_HYPHEN = re.compile(r"([^\W\d_])-\n[ \t]*([a-z][\w’']*)[ \t]*", re.U)
_LEADER = re.compile(r"(?:\s?\.){4,}\s*")
# A ligature left as its own piece ("f ixed", "of f ice", "e ffi cient"): an optional word start,
# the ligature's letters, then the rest of the word, each lower-case and one space apart.
_SPLIT = re.compile(r"(?<![\w-])(?:([a-z]+) )?(ff?[il]?) ([a-z]+)(?![\w-])")
_WORD = re.compile(r"[^\W\d_]+")
EDGE = 2  # lines at the top and at the bottom of a page that may be running


def _shape(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.lower().split()))


def _is_page_number(line: str) -> bool:
    s = line.strip().strip("-–— ").strip()
    return bool(s) and (s.isdigit() or bool(_ROMAN.match(s)) or re.fullmatch(r"page \d+( of \d+)?", s, re.I) is not None)


def _edges(lines: list[str]) -> list[tuple[str, int]]:
    """(place, index) of the lines that may be running: "top"/"bottom"."""
    n = len(lines)
    return [("top", i) for i in range(min(EDGE, n))] + [("bottom", i) for i in range(max(min(EDGE, n), n - EDGE), n)]


def running_lines(pages: list[list[str]], titles: dict[int, set[str]] | None = None) -> list[set[int]]:
    """For each page, the indexes of its lines that are running heads, footers or numbers;
    a line that is one of the page's bookmark titles ("1 Owls" on page 1) never is."""
    titles = titles or {}
    shapes = Counter()
    for lines in pages:
        shapes.update({(place, _shape(lines[i])) for place, i in _edges(lines) if lines[i].strip()})
    need = 3 if len(pages) > 4 else 2
    offsets = Counter()
    for number, lines in enumerate(pages, start=1):
        for _place, i in _edges(lines):
            m = _NUMBER_AT_ENDS.search(lines[i].strip())
            if m:
                offsets[int(m.group(1) or m.group(2)) - number] += 1
    offset, seen = offsets.most_common(1)[0] if offsets else (None, 0)
    use_offset = seen >= max(need, len(pages) // 3)
    out = []
    for number, lines in enumerate(pages, start=1):
        drop = set()
        n = len(lines)
        # From each edge inwards: a second line is running only when the outer one is.
        for place, order in (("top", range(min(EDGE, n))), ("bottom", range(n - 1, max(-1, n - 1 - EDGE), -1))):
            for i in order:
                line = lines[i].strip()
                if not line:
                    continue
                m = _NUMBER_AT_ENDS.search(line)
                if _norm(line) in titles.get(number, ()) or not (
                        _is_page_number(line) or shapes[(place, _shape(line))] >= need
                        or (use_offset and m and int(m.group(1) or m.group(2)) - number == offset)):
                    break
                drop.add(i)
        out.append(drop)
    return out


def _norm(text: str) -> str:
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


def _accents(text: str) -> str:
    return _ACCENTED.sub(lambda m: unicodedata.normalize("NFC", m.group(2) + _SPACING_ACCENTS[m.group(1)]), text)


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def clean_pages(pages: list[str], outline: list[tuple[int, str, int]] = ()) -> list[str]:
    """The pages' text without running lines, with broken words joined and ligatures undone;
    control characters (a glyph of a font that maps to no character: pdflatex's math minus
    comes out as NUL) read as spaces."""
    pages = [_CONTROLS.sub(" ", p) for p in pages]
    split = [[line.rstrip() for line in _accents(p.translate(str.maketrans(_LIGATURES))).split("\n")] for p in pages]
    titles: dict[int, set[str]] = {}
    for _level, title, page in outline:
        titles.setdefault(page, set()).add(_norm(title))
    drops = running_lines(split, titles)
    if not any(line.strip() for lines, drop in zip(split, drops) for i, line in enumerate(lines) if i not in drop):
        drops = [set() for _ in split]  # every line repeats (one page printed four ways): they are the text
    texts = ["\n".join(line for i, line in enumerate(lines) if i not in drop).strip()
             for lines, drop in zip(split, drops)]
    texts = join_split_ligatures([_LEADER.sub(" ", _HYPHEN.sub(r"\1\2\n", t)) for t in texts])
    for k in range(len(texts) - 1):  # a word broken across two pages
        m = re.search(r"([^\W\d_])-$", texts[k])
        nxt = re.match(r"([a-z][\w’']*)[ \t]*\n?", texts[k + 1])
        if m and nxt:
            texts[k] = texts[k][:-1] + nxt.group(1)
            texts[k + 1] = texts[k + 1][nxt.end():]
    return texts


def join_split_ligatures(texts: list[str]) -> list[str]:
    """Words whose ligature a PDF reader gave as a piece of its own joined again: "f ixed"
    becomes "fixed" when the rest ("ixed") is no word of the document on its own, or when
    "fixed" stands elsewhere in it more often than the rest does ("f in" stays: "in" is
    commoner than "fin"); "e ffi cient" becomes "efficient" when the word
    is known or its start is a short piece ("e", "di") that is no word elsewhere; "f is"
    (a variable, then a word) stays."""
    words = Counter(w.lower() for t in texts for w in _WORD.findall(t))
    pieces = Counter()  # how often a word is counted only because it stands in a split
    for t in texts:
        for m in _SPLIT.finditer(t):
            pieces.update(x for x in m.groups() if x)

    def seen(w: str) -> int:  # times the word stands on its own, outside a split
        return words[w] - pieces[w]

    def is_word(w: str) -> bool:
        return seen(w) > 0

    def join(m: re.Match) -> str:
        start, lig, rest = m.groups()
        if start and (is_word(start + lig + rest) or (len(start) <= 3 and not is_word(start))):
            return start + lig + rest
        tail = lig + rest
        if not is_word(rest) or seen(tail) > seen(rest):
            return (start + " " if start else "") + tail
        return m.group(0)

    return [_SPLIT.sub(join, t) for t in texts]


def _find_title(lines: list[str], at: int, want: str) -> tuple[int, int] | None:
    """(first line, lines taken) of the title from ``at``: a line that holds it (after a number
    or so), or two when it is wrapped onto the next line."""
    if not want:
        return None

    def holds(text: str) -> bool:
        got = _norm(text)
        return got.endswith(want) and len(got) <= len(want) + 12

    for i in range(at, len(lines)):
        if holds(lines[i]):
            return i, 1
        if i + 1 < len(lines) and not holds(lines[i + 1]) and holds(f"{lines[i]} {lines[i + 1]}"):
            return i, 2
    return None


def _sections(texts: list[str], outline: list[tuple[int, str, int]], scanned: set[int]) -> list[Section]:
    """Each page cut where its bookmarks' titles appear; every piece has the heading path
    of the last bookmark before it."""
    marks: dict[int, list[tuple[int, str]]] = {}
    for level, title, page in outline:
        if title and 1 <= page <= len(texts):
            marks.setdefault(page, []).append((level, title))
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    for number, text in enumerate(texts, start=1):
        lines = text.split("\n")
        cuts: list[tuple[int, int, str, int]] = []  # (line index, level, title, its lines)
        at = 0
        for level, title in marks.get(number, []):
            found = _find_title(lines, at, _norm(title))
            cuts.append((found[0], level, title, found[1]) if found else (at, level, title, 0))
            at = found[0] if found is not None else at
        bounds = [0] + [c[0] for c in cuts] + [len(lines)]
        heads = [None] + [(c[1], c[2], c[3]) for c in cuts]
        for (a, b), head in zip(zip(bounds, bounds[1:]), heads):
            took = 0
            if head is not None:
                level, title, took = head
                path = [(lv, t) for lv, t in path if lv < level] + [(level, " ".join(title.split()))]
            # the title's line(s) stand apart from the paragraph under them, as on the page
            title_lines = "\n".join(lines[a:a + took]).strip() if took and a + took <= b else ""
            rest = "\n".join(lines[a + took:b] if title_lines else lines[a:b]).strip()
            body = f"{title_lines}\n\n{rest}" if title_lines and rest else (title_lines or rest)
            if body:
                marker = (places.OCR,) if number in scanned else ()
                sections.append(Section(tuple(t for _, t in path) + marker, body, page=number))
    return sections


def _height(value) -> float:
    """A run's font height as a number; 0 for one a damaged page gives as nothing or not a
    number (pdf.js's NaN arrives as null), which no heading is set in."""
    try:
        height = float(value)
    except (TypeError, ValueError):
        return 0.0
    return height if math.isfinite(height) else 0.0


def document(name: str, pages: list[str], outline: list[tuple[int, str, int]] | None = None,
             scanned: set[int] | None = None, fonts: list | None = None,
             unreadable: set[int] | None = None) -> Document:
    """``scanned``: the pages whose text OCR read (their places say so); ``fonts``: each
    page's text as ``(text, font height)`` runs, for headings when there is no outline;
    ``unreadable``: pages the PDF reader could not decode (damaged), left out and said so."""
    outline = [(int(lv), str(t), int(p)) for lv, t, p in (outline or [])]
    if not outline and fonts:
        outline = font_outline([[(str(t), _height(h)) for t, h in page] for page in fonts])
    scanned = set(scanned or ())
    pages = [readable(p) if n in scanned else p for n, p in enumerate(pages, start=1)]  # a photo's noise is no words
    texts = clean_pages(list(pages), outline)
    unreadable = set(unreadable or ())
    if not any(t.strip() for t in texts) and unreadable:
        raise EmptyDocument(f"{name}: {len(unreadable)} of its {len(texts)} pages could not be read (their "
                            "contents are damaged), and the others have no text")
    if not any(t.strip() for t in texts):
        raise EmptyDocument(f"{name} has no text layer, and OCR found no words in it" if scanned else
                            f"{name} has no text layer and no picture OCR could read (drawings only, or "
                            "OCR is not installed: natively it needs Debian's tesseract-ocr)")
    notes = [f"{name}: page {n} could not be read (its contents are damaged); it was left out" if n in unreadable
             else f"{name}: page {n} has no text" + (" (OCR found no words)" if n in scanned else
                                                     " layer and no picture OCR could read; it was left out")
             for n, t in enumerate(texts, start=1) if not t.strip()]
    return Document("pdf", _sections(texts, outline, scanned), pages=len(texts), notes=notes)
