"""Entry points for the browser's retrieval worker: JSON in, JSON out.

The JS worker calls these coroutines and nothing else; keeping the boundary to strings
means no Python object outlives a call on the JS side. Errors the user can act on come
back as ``{"error": {"type", "message"}}`` rather than as exceptions, so the page can
show the message as it is.
"""

from __future__ import annotations

import json
from typing import Any

from ._compat import report_progress
from .errors import BadInput, ReadingRoomError
from .ingest import NewDocument
from .library import Library

_library: Library | None = None
_latest_query = 0
_cancelled_ingest = False


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _error(e: ReadingRoomError) -> str:
    return _dump({"error": e.to_dict()})


def _progress(event: dict) -> None:
    report_progress(_dump(event))


def _lib() -> Library:
    if _library is None:
        raise ReadingRoomError("the library is not open yet")
    return _library


async def open(config_json: str) -> str:  # noqa: A001 - the worker's verb
    """Open the worker's database. ``config``: ``{"storage": "opfs"|"memory"}`` in the
    browser; natively (the contract tests) ``{"path": ...}``."""
    global _library, _latest_query
    _latest_query = 0  # query ids count within one open library; none is pending across it
    config = json.loads(config_json or "{}")
    try:
        if "path" in config:
            _library = Library.open(config["path"])
        else:
            _library = Library.open(storage_kind=config.get("storage", "memory"))
    except ReadingRoomError as e:
        return _error(e)
    return _dump(_library.status())


async def add_documents(docs_json: str) -> str:
    global _cancelled_ingest
    _cancelled_ingest = False
    try:
        docs = [NewDocument(name=d.get("name", ""), text=d.get("text"),
                            doc_type=d.get("type"), meta=d.get("meta") or {},
                            pages=tuple(d["pages"]) if d.get("pages") is not None else None)
                for d in json.loads(docs_json)]
        outcomes = await _lib().add(docs, progress=_progress, cancelled=lambda: _cancelled_ingest)
    except ReadingRoomError as e:
        return _error(e)
    return _dump({"documents": [o.to_dict() for o in outcomes], "status": _lib().status()})


async def reindex() -> str:
    """Re-embed the whole library with this app's model; progress as for adding documents;
    ``cancel_ingest`` stops it, leaving the library as it was."""
    global _cancelled_ingest
    _cancelled_ingest = False
    try:
        done = await _lib().reindex(progress=_progress, cancelled=lambda: _cancelled_ingest)
    except ReadingRoomError as e:
        return _error(e)
    return _dump({"reindexed": done.to_dict(), "status": _lib().status()})


async def neighbours(chunk_id: int, before: int = 1, after: int = 1) -> str:
    """A chunk in its document's context: it and its neighbours, in order."""
    try:
        hits = _lib().neighbours(int(chunk_id), int(before), int(after))
    except ReadingRoomError as e:
        return _error(e)
    return _dump({"chunk_id": int(chunk_id), "chunks": [h.to_dict() for h in hits],
                  "reason": hits.reason, "message": hits.message})


async def warm() -> str:
    """Load the vector matrix now (after open, while the user types), not on the first query."""
    try:
        return _dump({"vectors": _lib().warm()})
    except ReadingRoomError as e:
        return _error(e)


async def merge_bundle(schema: str, version: str) -> str:
    """Make the index the worker attached as ``schema`` the library's bundled set, replacing
    the previous version's documents and keeping the user's (see bundle.py)."""
    try:
        merged = _lib().merge_bundle(str(schema), str(version))
    except ReadingRoomError as e:
        return _error(e)
    return _dump({"merged": merged.to_dict(), "status": _lib().status()})


def set_merging(on: bool) -> None:
    """The page is reading a bundled set in (on) or has finished or failed (off). Reads wait
    for the merge in the worker's queue; status does not, and says so meanwhile."""
    _lib().merging = bool(on)


async def clear_unfinished() -> str:
    _lib().clear_unfinished()
    return _dump(_lib().status())


def cancel_ingest() -> None:
    global _cancelled_ingest
    _cancelled_ingest = True


def _superseded(query_id: int):
    """A question numbered ``query_id`` (the page numbers them from 1) stops early once a
    later one starts. Without a number (0, an automation call) nothing supersedes it: the
    ids other callers used before must not cancel it."""
    global _latest_query
    qid = int(query_id)
    _latest_query = max(_latest_query, qid)
    return lambda: 0 < qid < _latest_query


async def query(text: str, options_json: str = "{}", query_id: int = 0) -> str:
    """Retrieve; a query started later (a larger ``query_id``) makes this one stop early."""
    cancelled = _superseded(query_id)
    try:
        result = await _lib().retrieve(text, json.loads(options_json or "{}"), cancelled=cancelled)
    except ReadingRoomError as e:
        return _error(e)
    return _dump(result.to_dict())


async def ask(question: str, history_json: str = "[]", options_json: str = "{}", query_id: int = 0) -> str:
    """Answer a question after the earlier turns in ``history_json`` (see ``Library.ask``);
    shares ``query``'s ids, so a newer query or question makes this one stop early."""
    cancelled = _superseded(query_id)
    try:
        history = json.loads(history_json or "[]")
        if not isinstance(history, list):
            raise BadInput("history must be a list of earlier questions or turns")
        answer = await _lib().ask(str(question), history, json.loads(options_json or "{}"),
                                  cancelled=cancelled)
    except ReadingRoomError as e:
        return _error(e)
    except json.JSONDecodeError as e:
        return _error(BadInput(f"history or options are not valid JSON: {e}"))
    return _dump(answer.to_dict())


async def check_answer(text: str, passages_json: str = "[]") -> str:
    """Check a generated answer's sentences against the ``[{"n", "text"}]`` passages."""
    try:
        passages = json.loads(passages_json or "[]")
        if not isinstance(passages, list) or not all(isinstance(p, dict) for p in passages):
            raise BadInput('passages must be a list of {"n", "text"}')
        return _dump(await _lib().check_answer(str(text), passages))
    except ReadingRoomError as e:
        return _error(e)
    except (json.JSONDecodeError, TypeError, ValueError) as e:
        return _error(BadInput(f"passages are not valid: {e}"))


def cancel_queries_before(query_id: int) -> None:
    global _latest_query
    _latest_query = max(_latest_query, int(query_id))


async def delete_document(doc_id: int) -> str:
    try:
        return _dump({"deleted": _lib().delete(int(doc_id)), "status": _lib().status()})
    except ReadingRoomError as e:
        return _error(e)


async def documents() -> str:
    return _dump([d.to_dict() for d in _lib().documents()])


async def status() -> str:
    return _dump(_lib().status())
