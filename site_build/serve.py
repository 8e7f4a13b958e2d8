"""Serving a built site on 127.0.0.1, with or without cross-origin isolation."""

from __future__ import annotations

import http.server
import os
import sys
import threading
from pathlib import Path

from .pins import DIST, MIME_TYPES


# Cross-origin isolation: with these two headers on the page, the browser gives it (and its
# workers) SharedArrayBuffer, so onnxruntime-web and wllama can run wasm threads. Every response
# also says it may be embedded by this origin (CORP), which require-corp asks of anything the page
# loads. `?isolation=off` on a page's URL (or `serve(isolation=False)`, `serve --no-isolation`)
# leaves the page without them: the non-isolated path (one thread) is tested and benched that way.
# web/sw.js adds the same headers to what it serves, so a plain static host is isolated after the
# first visit.
ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}
ISOLATION_OFF = "isolation=off"


def isolation_headers(path: str, isolation: bool = True) -> dict[str, str]:
    """The headers a response for `path` (with its query) gets from this server."""
    headers = {"Cross-Origin-Resource-Policy": "same-origin"}
    query = path.partition("?")[2]
    if isolation and ISOLATION_OFF not in query.split("&"):
        headers.update(ISOLATION_HEADERS)
    return headers


class _Handler(http.server.SimpleHTTPRequestHandler):
    isolation = True

    def guess_type(self, path):
        return MIME_TYPES.get(Path(str(path)).suffix.lower(), "application/octet-stream")

    def end_headers(self):
        # Revalidate on every load; the service worker is what makes the app work offline.
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in isolation_headers(self.path, self.isolation).items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format, *args):
        if os.environ.get("READINGROOM_HTTP_LOG"):
            super().log_message(format, *args)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser closing a connection mid-download is routine, not worth a traceback.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def serve(dist_dir: Path | str = DIST, port: int = 8000, isolation: bool = True):
    """Serve dist_dir on 127.0.0.1:port (0 picks a free port) from a background thread.

    With `isolation` (the default) pages are cross-origin isolated (ISOLATION_HEADERS) unless
    their URL has `?isolation=off`; without it the server sends neither header, as a plain static
    host would. Returns (server, thread); the URL is f"http://127.0.0.1:{server.server_address[1]}/".
    Stop with server.shutdown(); server.server_close().
    """
    directory = str(Path(dist_dir).resolve())

    class Handler(_Handler):
        pass

    Handler.isolation = isolation

    def handler(*args, **kwargs):
        return Handler(*args, directory=directory, **kwargs)

    server = _Server(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, name="readingroom-http", daemon=True)
    thread.start()
    return server, thread
