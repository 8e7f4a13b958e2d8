"""Entry points for the browser's retrieval worker: JSON in, JSON out.

The JS worker calls these coroutines and nothing else; keeping the boundary to strings
means no Python object outlives a call on the JS side. Errors the user can act on come
back as ``{"error": {"type", "message"}}`` rather than as exceptions, so the page can
show the message as it is.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from . import _lazy_numpy, worker_warm as warming
from ._compat import report_progress
from .errors import BadInput, ReadingRoomError
from .ingest.add import NewDocument
from .library import Library
from .store.index import DOCUMENT_FIELDS

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
    browser; natively (the contract tests) ``{"path": ...}``. ``"warm": false`` leaves the
    search's warm-up to a later ``warm()`` (the page's start: numpy is imported by the warm-up,
    after the page says it is ready)."""
    global _library, _latest_query
    _latest_query = 0  # query ids count within one open library; none is pending across it
    config = json.loads(config_json or "{}")
    warming.stop(_library)  # the previous library's warm-up must not read the new one's tables
    try:
        if "path" in config:
            _library = Library.open(config["path"])
        else:
            _library = Library.open(storage_kind=config.get("storage", "memory"))
    except ReadingRoomError as e:
        return _error(e)
    if config.get("warm", True):
        warming.start(_lib())
    return _dump(_library.status())


async def add_documents(docs_json: str) -> str:
    global _cancelled_ingest
    _cancelled_ingest = False
    try:
        docs = [NewDocument(name=d.get("name", ""), text=d.get("text"),
                            data=base64.b64decode(d["data_b64"]) if d.get("data_b64") is not None else None,
                            doc_type=d.get("type"), meta=d.get("meta") or {},
                            pages=tuple(d["pages"]) if d.get("pages") is not None else None,
                            outline=tuple(tuple(o) for o in d.get("outline") or ()),
                            scanned=tuple(int(n) for n in d.get("scanned") or ()),
                            unreadable=tuple(int(n) for n in d.get("unreadable") or ()),
                            fonts=tuple(tuple(tuple(r) for r in page) for page in d.get("fonts") or ()),
                            ocr_pages=tuple(map(str, d["ocr_pages"])) if d.get("ocr_pages") is not None else None)
                for d in json.loads(docs_json)]
        outcomes = await _lib().add(docs, progress=_progress, cancelled=lambda: _cancelled_ingest)
    except ReadingRoomError as e:
        return _error(e)
    # The legs follow the new documents before the next query, not during it; a warm-up under
    # way follows them too (warmup.py), so it goes on instead of reading a million vectors again.
    warming.start(_lib(), restart=False)
    return _dump({"documents": [o.to_dict() for o in outcomes], "status": _lib().status()})


async def embed_pending(batches: int = 1) -> str:
    """Embeds up to ``batches`` batches of the chunks stored by their words only (what an earlier
    session left: the page calls this after opening until nothing is pending, one call at a time
    in its ingestion lane, so a delete or an import runs between two calls). Returns what was
    embedded and ``pending`` (status()'s: what is still to come, None when nothing)."""
    global _cancelled_ingest
    _cancelled_ingest = False
    try:
        lib = _lib()
        done = await lib.embed_pending(progress=_progress, cancelled=lambda: _cancelled_ingest,
                                       max_batches=max(1, int(batches)))
        left = lib.meaning_coverage()
    except ReadingRoomError as e:
        return _error(e)
    if done.embedded and left is None:
        warming.start(_lib(), restart=False)  # the vectors are all there: load them before the next query
    return _dump({**done.to_dict(), "pending": left})


async def reindex() -> str:
    """Re-embed the whole library with this app's model; progress as for adding documents;
    ``cancel_ingest`` stops it, leaving the library as it was."""
    global _cancelled_ingest
    _cancelled_ingest = False
    try:
        done = await _lib().reindex(progress=_progress, cancelled=lambda: _cancelled_ingest)
    except ReadingRoomError as e:
        return _error(e)
    warming.start(_lib())
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
    """Start loading the search's in-memory legs in the background if nothing is loading
    them (``open`` starts it too); returns with status()'s ``search``. In the page it first
    imports numpy if the worker left that for later (``_lazy_numpy``)."""
    _lazy_numpy.ensure()
    try:
        if warming.BACKGROUND:
            warming.start(_lib(), restart=False)
        else:
            _lib().warm()
        return _dump({"search": _lib().index.search_state()})
    except ReadingRoomError as e:
        return _error(e)


async def merge_bundle(schema: str, version: str) -> str:
    """Make the index the worker attached as ``schema`` the library's bundled set, replacing
    the previous version's documents and keeping the user's (see bundle.py)."""
    try:
        merged = _lib().merge_bundle(str(schema), str(version))
    except ReadingRoomError as e:
        return _error(e)
    warming.start(_lib())
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


async def summarise(doc_ids_json: str = "[]", options_json: str = "{}") -> str:
    """Documents' summaries as one outline, or a comparison (see ``Library.summarise``)."""
    try:
        ids = json.loads(doc_ids_json or "[]")
        if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise BadInput("doc_ids must be a list of document ids")
        options = json.loads(options_json or "{}")
        if not isinstance(options, dict):
            raise BadInput("options must be an object")
        return _dump((await _lib().summarise(ids, options)).to_dict())
    except ReadingRoomError as e:
        return _error(e)
    except json.JSONDecodeError as e:
        return _error(BadInput(f"doc_ids or options are not valid JSON: {e}"))


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


async def type_ahead(text: str, history_json: str = "[]") -> str:
    """The question being typed (after ``history``'s turns): its search text (a follow-up's
    standalone query) is embedded now, so the search asked on Enter finds its vector ready.
    Returns ``{"source": "typed_ahead" | "cache" | ...}``; a failure is not an error the page
    shows (the search embeds it again and reports what goes wrong then)."""
    from .answer.followup import standalone_query

    try:
        history = json.loads(history_json or "[]")
        search = standalone_query(str(text), history if isinstance(history, list) else [])
        return _dump({"source": await _lib().type_ahead(search), "text": search})
    except Exception as e:  # noqa: BLE001 - see the docstring
        return _dump({"source": None, "failed": str(e)})


def cancel_queries_before(query_id: int) -> None:
    global _latest_query
    _latest_query = max(_latest_query, int(query_id))


async def delete_document(doc_id: int) -> str:
    try:
        deleted = _lib().delete(int(doc_id))
        warming.start(_lib(), restart=False)
        return _dump({"deleted": deleted, "status": _lib().status()})
    except ReadingRoomError as e:
        return _error(e)


async def documents(ids_json: str = "null", page_json: str = "null") -> str:
    """Every document, or only those whose ids are listed (the page, after an add), or a page
    of the list (``{"after": name or null, "limit": n}``: the Sources pane reads a large
    library that way, so a question asked meanwhile waits for one page, not the whole list),
    as ``{columns, rows}`` (api/library.js makes the objects)."""
    try:
        ids, page = json.loads(ids_json), json.loads(page_json)
        if ids is not None and not isinstance(ids, list):
            raise BadInput("ids must be a list of document ids")
        after = limit = None
        if page is not None:
            after, limit = (page.get("after"), page.get("limit")) if isinstance(page, dict) else (None, None)
            if (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1
                    or (after is not None and not isinstance(after, str))):
                raise BadInput('a page of the list is {"after": a document name or null, "limit": a count of at least 1}')
        rows = _lib().index.document_rows(None if ids is None else [int(i) for i in ids], after, limit)
    except (ValueError, TypeError) as e:
        return _error(BadInput(f"ids or page are not valid: {e}"))
    except ReadingRoomError as e:
        return _error(e)
    return _dump({"columns": DOCUMENT_FIELDS, "rows": rows})


async def status() -> str:
    return _dump(_lib().status())
