"""Rich Text Format (.rtf): the text, paragraph by paragraph.

Written here rather than taken from PyPI: the one small pure-Python reader (striprtf) would
be a second package to ship into the page and load lazily for a format that is a short
tokenizer away; this one is the same code on both sides. It follows the RTF 1.9 rules that
matter for text: groups, control words, ``\\'hh`` bytes in the document's code page,
``\\uN`` with its fallback skipped, and destinations (font and colour tables, pictures,
``\\*`` groups) left out."""

from __future__ import annotations

import codecs
import re

from ..errors import EmptyDocument, WrongType
from .document import Document, Section, table_blocks

_TOKEN = re.compile(rb"\\([a-zA-Z]+)(-?\d+)? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([^\\{}\r\n]+)|[\r\n]+", re.S)
_SKIP = {b"fonttbl", b"colortbl", b"stylesheet", b"info", b"pict", b"object", b"header", b"footer",
         b"headerl", b"headerr", b"footerl", b"footerr", b"listtable", b"listoverridetable",
         b"rsidtbl", b"generator", b"xmlnstbl", b"themedata", b"colorschememapping", b"latentstyles",
         b"datastore", b"fldinst", b"pgdsctbl", b"revtbl", b"filetbl", b"mmathPr", b"bkmkstart", b"bkmkend",
         b"nonesttables"}  # the flat copy of nested tables kept for old readers (\nestcell is read)
_BREAKS = {b"line": "\n", b"sect": "\n\n", b"page": "\n\n", b"tab": "\t", b"nestcell": "; ", b"emdash": "\u2014", b"endash": "\u2013", b"bullet": "\u2022",
           b"lquote": "\u2018", b"rquote": "\u2019", b"ldblquote": "\u201c", b"rdblquote": "\u201d"}


# Windows code page numbers of the Mac character sets, as \ansicpg names them (RTF written on a
# Mac: "\ansicpg10000"), by the name Python's codecs know them by.
_MAC_PAGES = {10000: "mac_roman", 10001: "shift_jis", 10003: "euc_kr", 10006: "mac_greek",
              10007: "mac_cyrillic", 10008: "gb2312", 10029: "mac_latin2", 10079: "mac_iceland",
              10081: "mac_turkish"}


def _codec(page: int) -> str:
    """The codec for an RTF code page number; Windows-1252 for one Python does not know."""
    name = _MAC_PAGES.get(page, f"cp{page}")
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


class _Table:
    """A table's cells (``\\cell``) and rows (``\\row``), taken out of the text as they end and
    put back where the table began as one pipe table when a paragraph outside it ends."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.cells: list[str] = []
        self.since = 0  # where in ``out`` the text of the cell being read begins
        self.at: int | None = None  # where the table began

    def cell(self, out: list[str]) -> None:
        if self.at is None:
            self.at = self.since
        self.cells.append(" ".join("".join(out[self.since:]).split()))
        del out[self.since:]

    def row(self, out: list[str]) -> None:
        del out[self.since:]  # nothing of a row stands outside its cells
        if self.cells:
            self.rows.append(self.cells)
        self.cells = []

    def end(self, out: list[str]) -> None:
        """A paragraph outside the table ended (or the document did): the table stands before it."""
        if self.rows and self.at is not None:
            out.insert(self.at, "\n\n" + table_blocks(self.rows) + "\n\n")
        self.rows, self.cells, self.at = [], [], None
        self.since = len(out)


def rtf_text(name: str, data: bytes) -> str:
    if not data.lstrip().startswith(b"{\\rtf"):
        raise WrongType(f"{name} is not an RTF file (it does not start with {{\\rtf); check its extension")
    out: list[str] = []
    stack: list[tuple[bool, int, bool, int, bool]] = []
    # note: where the footnote this group holds began in ``out`` (-1: none); in_table: \intbl
    skipping, uc, hidden, note, pending_skip, codepage, in_table = False, 1, False, -1, 0, "cp1252", False
    table = _Table()
    for m in _TOKEN.finditer(data):
        word, arg, hexbyte, symbol, brace, plain = m.groups()
        if brace == b"{":
            stack.append((skipping, uc, hidden, note, in_table))
            note = -1
            continue
        if brace == b"}":
            if note >= 0:  # a footnote in its place, set apart: "signed. (By both parties.) It runs"
                said = " ".join("".join(out[note:]).split())
                out[note:] = [f" ({said})"] if said else []
            skipping, uc, hidden, note, in_table = stack.pop() if stack else (False, 1, False, -1, False)
            pending_skip = 0  # a group's end ends the fallback of a \uN in it
            continue
        if pending_skip and (hexbyte or plain or word is not None or symbol is not None):
            if plain and len(plain) > pending_skip:
                plain = plain[pending_skip:]
                pending_skip = 0
            else:  # a control word or symbol is one character of the fallback
                pending_skip -= len(plain) if plain else 1
                continue
        if word is not None:
            if word == b"nestrow":  # a nested table's row ends inside its skipped \*\nesttableprops
                if out and out[-1] != "; ":  # its cells and rows read in the outer table's cell: "A; B; C"
                    out.append("; ")
            elif word in _SKIP:
                skipping = True
            elif word == b"ansicpg" and arg:
                codepage = _codec(int(arg))
            elif word == b"mac":
                codepage = "mac_roman"
            elif word == b"uc" and arg:
                uc = int(arg)
            elif word == b"v":  # hidden text: \v on, \v0 off
                hidden = arg != b"0"
            elif word == b"plain":
                hidden = False
            elif word == b"footnote" and not skipping:
                note = len(out)
            elif word == b"intbl":
                in_table = True
            elif word == b"pard":
                in_table = False
            elif word == b"par" and not skipping:
                out.append("\n" if in_table else "\n\n")  # a cell's paragraphs stay in the cell
                if not in_table:
                    table.end(out)
            elif word in (b"cell", b"row") and not skipping:
                table.cell(out) if word == b"cell" else table.row(out)
            elif word == b"u" and arg and not (skipping or hidden):
                out.append(chr(int(arg) % 65536))
                pending_skip = uc
            elif word == b"u" and arg:
                pending_skip = uc
            elif word in _BREAKS and not skipping:
                out.append(_BREAKS[word])
            continue
        if symbol is not None:
            if symbol == b"*":
                skipping = True
            elif skipping or hidden:
                pass
            elif symbol in (b"\\", b"{", b"}"):
                out.append(symbol.decode())
            elif symbol == b"~":
                out.append("\u00a0")
            elif symbol == b"\n":
                out.append("\n\n")
            continue
        if skipping or hidden:
            continue
        if hexbyte is not None:
            try:
                out.append(bytes([int(hexbyte, 16)]).decode(codepage))
            except (LookupError, UnicodeDecodeError):
                out.append(bytes([int(hexbyte, 16)]).decode("cp1252", "replace"))
        elif plain is not None:
            out.append(plain.decode(codepage, "replace") if codepage != "cp1252" else plain.decode("cp1252", "replace"))
    table.end(out)
    text = "".join(out)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.strip() for line in text.split("\n"))).strip()


def read(name: str, data: bytes) -> Document:
    text = rtf_text(name, data)
    if not text:
        raise EmptyDocument(f"{name} has no text to index")
    return Document("rtf", [Section((), text)])
