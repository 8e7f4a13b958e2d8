"""Typed errors.

Only two families exist on purpose: problems with what the user handed us (``BadInput``
and its children), which the app shows as a message, and problems with the machine
(``StorageError``, ``EmbedderError``, ``ExtensionMissing``), which the app turns into a
state the user can act on. "No results" is never an error: it is a ``reason``.
"""

from __future__ import annotations


class ReadingRoomError(Exception):
    """Base class; ``kind`` is a stable machine-readable name for the page and the CLI."""

    kind = "error"

    def to_dict(self) -> dict:
        return {"type": self.kind, "message": str(self)}


class BadInput(ReadingRoomError):
    kind = "bad_input"


class NotText(BadInput):
    """The bytes are not UTF-8 text (binary, or another encoding we do not guess)."""

    kind = "not_text"


class EmptyDocument(BadInput):
    kind = "empty_document"


class DocumentTooLarge(BadInput):
    kind = "too_large"


class Unsupported(BadInput):
    """A file type neither side reads (the message lists what it does read)."""

    kind = "unsupported"


class CorruptFile(BadInput):
    """The container is broken: a zip that does not open, XML that does not parse."""

    kind = "corrupt"


class WrongType(BadInput):
    """The bytes are another kind of file than the name says (``report.docx`` that is a PDF)."""

    kind = "wrong_type"


class Encrypted(BadInput):
    """Password-protected (Office, PDF) or DRM-locked (EPUB): nothing can be read."""

    kind = "encrypted"


class ArchiveTooLarge(BadInput):
    """A zip that would unpack past the limit (a zip bomb, or simply too big to read)."""

    kind = "zip_bomb"


class OcrUnavailable(BadInput):
    """A picture or scanned page, where no OCR engine is at hand (the page, for now)."""

    kind = "ocr_unavailable"


class OcrModelMismatch(BadInput):
    """The OCR language file is not the one pinned: refused rather than read with an unknown model."""

    kind = "ocr_model"


class StorageError(ReadingRoomError):
    kind = "storage"


class DatabaseUnavailable(StorageError):
    """The database server cannot be reached (a wrong address, a stopped server)."""

    kind = "unavailable"


class ModelMismatch(ReadingRoomError):
    """The index was built by another embedding model or dimension; vectors must not be mixed."""

    kind = "model_mismatch"


class EmbedderError(ReadingRoomError):
    kind = "embed_failed"


class EmbedderOffline(EmbedderError):
    """The model could not be loaded: the browser is offline and holds no copy of it."""

    kind = "offline"


class ExtensionMissing(ReadingRoomError):
    """sqlite-vec or FTS5 is not loaded (a packaging error), or pgvector is not installed in a
    Postgres database (the message says how to install it)."""

    kind = "extension_missing"


class Cancelled(ReadingRoomError):
    kind = "cancelled"
