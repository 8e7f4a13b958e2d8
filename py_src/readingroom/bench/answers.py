"""``bench answers``: how good and how fast the answers are, on question sets kept beside this module.

The sets (``data/answers/*.json``) are written over the bundled Python reference: answerable
questions with the topics that answer them and short verbatim answer phrases, follow-up pairs
that only make sense in a conversation, and questions the reference does not cover. Each item
is ``split`` dev (for calibration) or test (held out, reported separately).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "answers"
SETS = ("answerable", "followups", "unanswerable")


def load_set(name: str) -> list[dict]:
    """The items of one question set (``answerable``, ``followups`` or ``unanswerable``)."""
    if name not in SETS:
        raise ValueError(f"unknown question set {name!r}: choose from {', '.join(SETS)}")
    return json.loads((DATA / f"{name}.json").read_text("utf-8"))["items"]


def normalise(text: str) -> str:
    """The form answer phrases are matched in: lower case, one space for any run of whitespace,
    a line-broken hyphenation joined, and the reference's code quotes, emphasis stars and
    typographic quotes dropped, so a phrase matches the sentence it was copied from and a
    model's plain rewording of the same words alike."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", "").replace("\u201d", "")
    text = re.sub(r"-\n\s*", "-", text)
    text = text.replace('"', "").replace("*", "")
    return re.sub(r"\s+", " ", text).strip().lower()


def phrase_found(text: str, phrases: list[str]) -> bool:
    """Whether any of the answer phrases occurs in ``text``."""
    t = normalise(text)
    return any(normalise(p) in t for p in phrases)
