"""Whether what OCR read on a page is words or the noise it reads in a photograph.

Tesseract reads something in almost any picture: a photo of clouds over a forest comes back
as "EE cS : be a ho i STE et : il Me La ™ fy 5 Po: 5 a". Stored, that noise is a document that
answers nothing and shows up in searches. A page is kept when enough of its tokens are words
(three letters or more) or numbers (two digits or more); else it is "OCR found no words", as
a blank page is. Pure, and the same on both sides: natively after tesseract, in the page
after tesseract.js.
"""

from __future__ import annotations

import re

MIN_SHARE = 0.3  # of a page's tokens: text runs ~0.6-0.9, a photo's noise ~0.05-0.15
_WORD = re.compile(r"[(\"'“‘\[]*(?:[^\W\d_](?:[^\W\d_]|['’-](?=[^\W\d_])){2,}|\d[\d.,:/-]*\d)[)\"'”’\].,;:!?%]*")


def readable(text: str) -> str:
    """``text`` when it reads as words, else "" (noise from a picture without text)."""
    tokens = text.split()
    if not tokens:
        return ""
    words = sum(1 for t in tokens if _WORD.fullmatch(t))
    return text if words and words / len(tokens) >= MIN_SHARE else ""
