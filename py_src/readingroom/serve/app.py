"""The HTTP API over one library (Starlette; run by uvicorn in ``serve/cli.py``).

Every route needs ``Authorization: Bearer <token>`` (401 without a known one); adding and
deleting need a read-write token (403 otherwise). Bodies over ``max_body`` bytes are refused
with 413 before they are read whole, and each token has a rate limit (429, ``Retry-After``).
CORS is closed unless origins are configured. Answers are the JSON that ``to_dict()`` gives
in Python and ``window.readingroom`` in the page; errors are ``{"error": {"type", "message"}}``:
400 for bad input, 503 while the database cannot be reached (service comes back by itself
when it returns), 409 for a library made by another model.

Library calls run in worker threads (``threads`` of them; one for an SQLite file, whose
connection is not shared between transactions), so a slow call does not stop the server.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
from dataclasses import dataclass
from typing import Any, Callable

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..aio import run
from ..errors import (BadInput, Cancelled, DatabaseUnavailable, ExtensionMissing, ModelMismatch,
                      ReadingRoomError, StorageError)
from ..ingest.add import NewDocument
from .limits import RateLimit
from .tokens import TokenFile

MAX_BODY = 16 * 1024 * 1024
MAX_PAGE = 10_000  # documents in one page of GET /v1/documents?limit=N


@dataclass(frozen=True)
class Config:
    max_body: int = MAX_BODY
    rate_per_minute: float = 1200.0
    burst: int = 120
    cors_origins: tuple[str, ...] = ()
    threads: int = 4


class HttpError(Exception):
    def __init__(self, status: int, kind: str, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status, self.kind, self.headers = status, kind, headers or {}


def _status_of(e: ReadingRoomError) -> int:
    if isinstance(e, (DatabaseUnavailable, ExtensionMissing)):
        return 503
    if isinstance(e, BadInput):
        return 400
    if isinstance(e, (ModelMismatch, Cancelled)):
        return 409
    if isinstance(e, StorageError):
        return 500
    return 500


def _dump(value: Any) -> Response:
    return Response(json.dumps(value, ensure_ascii=False, allow_nan=False), media_type="application/json")


def _error(status: int, kind: str, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": {"type": kind, "message": message}}, status_code=status, headers=headers)


def make_app(library, tokens: TokenFile, config: Config = Config()) -> Starlette:
    threads = 1 if library.index.store.kind in ("file", "memory") else config.threads
    limiter = anyio.CapacityLimiter(threads)
    rate = RateLimit(config.rate_per_minute, config.burst)

    async def call(fn: Callable[[], Any]) -> Any:
        return await anyio.to_thread.run_sync(fn, limiter=limiter)

    async def body(request: Request) -> dict:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > config.max_body):
            raise HttpError(413, "too_large", f"the request is larger than {config.max_body} bytes")
        data = bytearray()
        async for part in request.stream():
            data += part
            if len(data) > config.max_body:
                raise HttpError(413, "too_large", f"the request is larger than {config.max_body} bytes")
        try:
            value = json.loads(data or b"{}")
        except ValueError as e:
            raise HttpError(400, "bad_input", f"the body is not JSON: {e}") from e
        if not isinstance(value, dict):
            raise HttpError(400, "bad_input", "the body must be a JSON object")
        return value

    def guarded(write: bool):
        def wrap(handler):
            @functools.wraps(handler)
            async def endpoint(request: Request) -> Response:
                try:
                    auth = request.headers.get("authorization", "")
                    scheme, _, given = auth.partition(" ")
                    token = tokens.find(given.strip()) if scheme.lower() == "bearer" and given.strip() else None
                    if token is None:
                        raise HttpError(401, "unauthorised", "a valid bearer token is needed",
                                        {"WWW-Authenticate": "Bearer"})
                    if write and not token.writes:
                        raise HttpError(403, "forbidden", f"token {token.name!r} is read-only")
                    wait = rate.take(token.digest)
                    if wait:
                        raise HttpError(429, "rate_limited", f"too many requests; try again in {wait:.1f} s",
                                        {"Retry-After": str(max(1, round(wait)))})
                    return _dump(await handler(request))
                except HttpError as e:
                    return _error(e.status, e.kind, str(e), e.headers)
                except ReadingRoomError as e:
                    return _error(_status_of(e), e.kind, str(e))
            return endpoint
        return wrap

    def text_field(data: dict, key: str) -> str:
        v = data.get(key)
        if not isinstance(v, str):
            raise BadInput(f"{key} must be a string")
        return v

    async def library_status() -> dict:
        s = await call(library.status)
        if "error" in s:  # status() reports a failure rather than raise: say it as HTTP does
            e = s["error"]
            raise HttpError(503 if e["type"] in ("unavailable", "extension_missing") else 500, e["type"], e["message"])
        return s

    @guarded(write=False)
    async def status(request):
        return await library_status()

    @guarded(write=False)
    async def search(request):
        data = await body(request)
        query, options = text_field(data, "query"), data.get("options") or {}
        return (await call(lambda: run(library.retrieve(query, options)))).to_dict()

    @guarded(write=False)
    async def ask(request):
        data = await body(request)
        question, options = text_field(data, "question"), data.get("options") or {}
        history = data.get("history") or []
        if not isinstance(history, list):
            raise BadInput("history must be a list of earlier turns")
        return (await call(lambda: run(library.ask(question, history, options)))).to_dict()

    @guarded(write=False)
    async def documents(request):
        """Every document by name, or with ``?limit=N[&after=NAME]`` the next N after that name
        and ``next``, the name to ask after for the page that follows (null at the end)."""
        limit, after = request.query_params.get("limit"), request.query_params.get("after")
        if limit is None:
            if after is not None:
                raise BadInput("after needs a limit: ?limit=N&after=NAME")
            return {"documents": [d.to_dict() for d in await call(library.documents)]}
        n = int(limit) if limit.isdigit() else 0
        if not 1 <= n <= MAX_PAGE:
            raise BadInput(f"limit must be a whole number from 1 to {MAX_PAGE}")
        page = await call(lambda: library.documents(None, after, n))
        return {"documents": [d.to_dict() for d in page], "next": page[-1].name if len(page) == n else None}

    @guarded(write=True)
    async def add(request):
        data = await body(request)
        items = data.get("documents")
        if not isinstance(items, list) or not all(isinstance(d, dict) for d in items):
            raise BadInput("documents must be a list of {name, text, type?, meta?}")
        docs = [NewDocument(name=str(d.get("name", "")), text=d.get("text"), doc_type=d.get("type"),
                            meta=d.get("meta") or {}) for d in items]
        outcomes = await call(lambda: run(library.add(docs)))
        return {"documents": [o.to_dict() for o in outcomes], "status": await library_status()}

    @guarded(write=True)
    async def delete(request):
        doc_id = request.path_params["doc_id"]
        deleted = await call(lambda: library.delete(doc_id))
        return {"deleted": deleted, "status": await library_status()}

    routes = [
        Route("/v1/status", status, methods=["GET"]),
        Route("/v1/search", search, methods=["POST"]),
        Route("/v1/ask", ask, methods=["POST"]),
        Route("/v1/documents", documents, methods=["GET"]),
        Route("/v1/documents", add, methods=["POST"]),
        Route("/v1/documents/{doc_id:int}", delete, methods=["DELETE"]),
    ]
    middleware = []
    if config.cors_origins:
        middleware.append(Middleware(CORSMiddleware, allow_origins=list(config.cors_origins),
                                     allow_methods=["GET", "POST", "DELETE"],
                                     allow_headers=["authorization", "content-type"]))
    @contextlib.asynccontextmanager
    async def lifespan(app):
        # The commonest words' postings are read while the server starts (Postgres), beside
        # the first requests, which never wait for it.
        stopping = threading.Event()
        warm = threading.Thread(target=_preload, args=(library, stopping), daemon=True, name="preload-words")
        warm.start()
        try:
            yield
        finally:
            stopping.set()

    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)


def _preload(library, stopping: threading.Event) -> None:
    try:
        library.index.preload_common_words(stopping.is_set)
    except (ReadingRoomError, ValueError):
        pass  # the database went away, or changed under us: queries read the words they use
