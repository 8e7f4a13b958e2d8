"""Why a read came back empty or partial, as a sentence a person can act on.

A ``reason`` is a stable machine name (the page, the CLI and tests switch on it); its
message is what a person reads. Keeping both here means the page, the CLI and the Python
API say the same thing about the same state, and no caller invents its own wording.
"""

from __future__ import annotations

EMPTY_QUERY = "empty_query"
NO_DOCUMENTS = "no_documents"
MERGING = "merging"  # the bundled set is being copied in: reads wait for it, status says so
MODEL_MISMATCH = "model_mismatch"
EMBED_FAILED = "embed_failed"
OFFLINE = "offline"
ERROR = "error"
NOT_COVERED = "not_covered"  # ask: the coverage model says the documents do not answer it (answer/coverage.py)
NO_SENTENCE = "no_sentence"  # ask: passages were found, but none holds a prose sentence to quote
VAGUE = "vague_question"  # ask: the question names nothing ("why?" with no earlier turn, "is it?")

MESSAGES = {
    EMPTY_QUERY: "Type a question first.",
    NO_DOCUMENTS: "Add a document first: this library has no documents yet.",
    MERGING: "The bundled documents are still being added; you can ask about them in a moment.",
    MODEL_MISMATCH: "This library was indexed by another model, so these results match words only; "
                    "re-index it to search by meaning.",
    EMBED_FAILED: "The embedding model is not available, so these results match words only.",
    OFFLINE: "The embedding model is not saved in this browser and it is offline, so these results "
             "match words only.",
    ERROR: "Searching failed; the library could not be read.",
    NOT_COVERED: "Your documents do not seem to cover this.",
    NO_SENTENCE: "The passages found hold no sentence to quote as an answer (only code, tables, "
                 "headings or sentences too long to quote): read them below.",
    VAGUE: "Say what you are asking about: this question has no word that names a subject.",
}


def message(reason: str | None, detail: str | None = None) -> str | None:
    """The sentence for ``reason`` (None for none), with ``detail`` after it when given."""
    if reason is None:
        return None
    text = MESSAGES.get(reason)
    if text is None:
        return detail
    return f"{text} ({detail})" if detail else text


class Hits(list):
    """A list of hits that can say why it is empty (``reason``, e.g. ``no_documents``).

    A plain list to every caller that only iterates it; the reason is there for the ones
    that tell a person something (the CLI, the worker)."""

    def __init__(self, items=(), reason: str | None = None):
        super().__init__(items)
        self.reason = reason

    @property
    def message(self) -> str | None:
        return message(self.reason)
