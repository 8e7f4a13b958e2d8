"""Rich Text Format (.rtf): the text, paragraph by paragraph.

Written here rather than taken from PyPI: the one small pure-Python reader (striprtf) would
be a second package to ship into the page and load lazily for a format that is a short
tokenizer away; this one is the same code on both sides. It follows the RTF 1.9 rules that
matter for text: groups, control words, ``\\'hh`` bytes in the document's code page,
``\\uN`` with its fallback skipped, and destinations (font and colour tables, pictures,
``\\*`` groups) left out."""

from __future__ import annotations

import re

from ..errors import EmptyDocument, WrongType
from .document import Document, Section

_TOKEN = re.compile(rb"\\([a-zA-Z]+)(-?\d+)? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([^\\{}\r\n]+)|[\r\n]+", re.S)
_SKIP = {b"fonttbl", b"colortbl", b"stylesheet", b"info", b"pict", b"object", b"header", b"footer",
         b"headerl", b"headerr", b"footerl", b"footerr", b"listtable", b"listoverridetable",
         b"rsidtbl", b"generator", b"xmlnstbl", b"themedata", b"colorschememapping", b"latentstyles",
         b"datastore", b"fldinst", b"pgdsctbl", b"revtbl", b"filetbl", b"mmathPr", b"bkmkstart", b"bkmkend",
         b"nonesttables"}  # the flat copy of nested tables kept for old readers (\nestcell is read)
_BREAKS = {b"par": "\n\n", b"line": "\n", b"sect": "\n\n", b"page": "\n\n", b"row": "\n", b"tab": "\t",
           b"cell": " | ", b"nestcell": " | ", b"emdash": "\u2014", b"endash": "\u2013", b"bullet": "\u2022",
           b"lquote": "\u2018", b"rquote": "\u2019", b"ldblquote": "\u201c", b"rdblquote": "\u201d"}


def rtf_text(name: str, data: bytes) -> str:
    if not data.lstrip().startswith(b"{\\rtf"):
        raise WrongType(f"{name} is not an RTF file (it does not start with {{\\rtf); check its extension")
    out: list[str] = []
    stack: list[tuple[bool, int, bool, int]] = []
    # note: where the footnote this group holds began in ``out`` (-1: none)
    skipping, uc, hidden, note, pending_skip, codepage = False, 1, False, -1, 0, "cp1252"
    for m in _TOKEN.finditer(data):
        word, arg, hexbyte, symbol, brace, plain = m.groups()
        if brace == b"{":
            stack.append((skipping, uc, hidden, note))
            note = -1
            continue
        if brace == b"}":
            if note >= 0:  # a footnote in its place, set apart: "signed. (By both parties.) It runs"
                said = " ".join("".join(out[note:]).split())
                out[note:] = [f" ({said})"] if said else []
            skipping, uc, hidden, note = stack.pop() if stack else (False, 1, False, -1)
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
                out.append("\n")
            elif word in _SKIP:
                skipping = True
            elif word == b"ansicpg" and arg:
                codepage = f"cp{int(arg)}"
            elif word == b"uc" and arg:
                uc = int(arg)
            elif word == b"v":  # hidden text: \v on, \v0 off
                hidden = arg != b"0"
            elif word == b"plain":
                hidden = False
            elif word == b"footnote" and not skipping:
                note = len(out)
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
    text = "".join(out)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.strip() for line in text.split("\n"))).strip()


def read(name: str, data: bytes) -> Document:
    text = rtf_text(name, data)
    if not text:
        raise EmptyDocument(f"{name} has no text to index")
    return Document("rtf", [Section((), text)])
