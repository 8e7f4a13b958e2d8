"""The browser side: sqlite-wasm and the embedding worker, reached through ``pyodide.ffi``.

The retrieval worker registers a JS module ``readingroom_host`` before importing us:

- ``exec(sql)``: run a script; ``query(sql, params)``: one statement, rows as arrays,
  blobs as ``Uint8Array`` (oo1 binds a blob only from a ``Uint8Array``); neither throws: a
  failed statement comes back as ``{failed: message, code}`` (see sqlite-copy.js ``failure``);
- ``embed(texts)`` (queries first) and ``embedBackground(texts)`` (ingestion) -> Promise<Float32Array
  n*dim>; ``countTokens(texts)`` -> Promise<Int32Array>;
- ``progress(json)``: forwards an event to the page.

Values cross the boundary as plain arrays and typed arrays, converted at once with
``to_py()``; the JsProxy objects are freed by refcount, so nothing outlives a call.
"""

from __future__ import annotations

from typing import Any, Awaitable, Sequence

import numpy as np
from pyodide.ffi import JsException, to_js  # type: ignore[import-not-found]

from ..errors import EmbedderError, EmbedderOffline, StorageError


class _Host:
    """``readingroom_host``, looked up when first used rather than at import: the build's memory
    snapshot holds this module imported (site_build/pyodide_image.py), and the worker registers
    the JS module only after restoring it. A snapshot can hold no JS object."""

    def __getattr__(self, name: str) -> Any:
        import readingroom_host  # type: ignore[import-not-found]

        return getattr(readingroom_host, name)


host = _Host()


def _to_js_param(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return to_js(memoryview(value).cast("B"))  # -> Uint8Array
    return value


def _row_to_py(row: list) -> tuple:
    return tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)


class BrowserStore:
    def __init__(self, kind: str):
        self.kind = kind

    def execute_script(self, sql: str) -> None:
        try:
            out = host.exec(sql)
        except JsException as e:  # the host returns its failures; this is anything else it hit
            raise StorageError(str(e)) from e
        if out is not None:
            raise StorageError(str(out.failed))

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        js_params = to_js([_to_js_param(p) for p in params])
        try:
            rows = host.query(sql, js_params)
        except JsException as e:
            raise StorageError(str(e)) from e
        failed = getattr(rows, "failed", None)  # rows are a JS array, which has no such property
        if failed is not None:
            raise StorageError(str(failed))
        return [_row_to_py(r) for r in rows.to_py()]

    def close(self) -> None:  # the worker owns the database handle
        pass


def open_store(kind: str = "opfs", **_: Any) -> BrowserStore:
    return BrowserStore(kind)


async def _failed(error: EmbedderError) -> Any:
    raise error


def _embed_error(e: JsException) -> EmbedderError:
    """The embedding worker names the error ``OfflineError`` when the model cannot load
    because the browser is offline; the query then says so instead of "failed"."""
    name = str(getattr(e, "name", "") or "")
    message = str(e)
    if name and message.startswith(name + ": "):
        message = message[len(name) + 2 :]  # the page shows the sentence, not the JS class
    if name == "OfflineError" or str(e).startswith("OfflineError"):
        return EmbedderOffline(message)
    return EmbedderError(message)


class BrowserEmbedder:
    def __init__(self, model_id: str, dim: int, max_tokens: int):
        self.model_id, self.dim, self.max_tokens = model_id, dim, max_tokens

    def embed(self, texts: Sequence[str]) -> Awaitable[np.ndarray]:
        """Posts the request now (so the caller can work while the other worker embeds);
        the returned awaitable gives the vectors. For queries: the embedding worker runs
        these ahead of any ingestion work it holds."""
        return self._post(host.embed, texts)

    def embed_background(self, texts: Sequence[str]) -> Awaitable[np.ndarray]:
        """As ``embed``, for ingestion: computed when no query is waiting."""
        return self._post(host.embedBackground, texts)

    def _post(self, call: Any, texts: Sequence[str]) -> Awaitable[np.ndarray]:
        texts = list(texts)
        try:
            promise = call(to_js(texts)) if texts else None
        except JsException as e:
            promise = _failed(_embed_error(e))
        return self._finish(promise, len(texts))

    async def _finish(self, promise: Any, n: int) -> np.ndarray:
        if promise is None:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            arr = await promise
        except JsException as e:
            raise _embed_error(e) from e
        # A JsProxy of a typed array is freed by refcount; to_py() copies it into a buffer.
        flat = np.asarray(arr.to_py(), dtype=np.float32)
        return flat.reshape(n, self.dim)

    async def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        try:
            arr = await host.countTokens(to_js(list(texts)))
        except JsException as e:
            raise _embed_error(e) from e
        return [int(x) for x in arr.to_py()]


def make_embedder(model_dir: Any = None, *, model_id: str, dim: int, max_tokens: int,
                  **_: Any) -> BrowserEmbedder:
    return BrowserEmbedder(model_id, dim, max_tokens)


def report_progress(event: str) -> None:
    host.progress(event)
