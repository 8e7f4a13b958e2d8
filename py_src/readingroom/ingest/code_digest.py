"""A digest of the code that turns files into chunks, for caches of prebuilt indexes.

An index built once and kept (the bundled demo corpus, the R manuals of ``bench answers``)
is only valid for the code that made it: a change to extraction, cleaning, sentence splitting
or chunking must build it again, even when its documents did not change.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_PKG = Path(__file__).resolve().parents[1]
READERS = ("extract", "ingest", "text")  # the packages whose source a prebuilt index depends on


def update(h: "hashlib._Hash") -> None:
    """Feed ``h`` every reader module's path and source, in a fixed order."""
    for name in READERS:
        p = _PKG / name
        for src in sorted(p.rglob("*.py")) if p.is_dir() else [p]:
            h.update(src.relative_to(_PKG).as_posix().encode() + b"\0" + src.read_bytes())
