"""A pure, deterministic token estimate for chunking and packing.

The real word-piece tokenizer lives in the embedding worker in the browser, an async hop
away, and chunk boundaries must be identical natively and in the browser. So chunking and
packing count with this estimate, calibrated on SciFact to sit at or above the real
all-MiniLM-L6-v2 count (see tests/test_tokens.py): a budget met by the estimate is met by
the model too.
"""

from __future__ import annotations

import re

# Roughly BERT's basic tokenizer: runs of word characters, and every other visible
# character on its own.
_PIECES = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def estimate(text: str) -> int:
    n = 0
    # findall and plain string tests: this runs on every chunk and every packed span, and
    # a match object per piece made it the slowest step of packing.
    for piece in _PIECES.findall(text):
        size = len(piece)
        if size == 1:
            n += 1
        elif not piece.isascii() and _CJK.search(piece):
            n += size
        elif piece.isdigit():
            n += (size + 1) // 2
        else:
            # Short words are one piece; longer (often technical) words split into
            # pieces of about three characters after the first four.
            n += 1 + max(0, size - 4) // 3
    return n


def char_estimate(text: str) -> int:
    """The crude fallback: a token per four characters, rounded up."""
    return (len(text) + 3) // 4
