"""A stand-in for a remote OpenAI-compatible chat server: the one fake the tests allow.

A remote LLM API cannot run here, so the tests that need one get a real HTTP server on
127.0.0.1 speaking the real protocol: ``POST …/chat/completions``, server-sent events of
``chat.completion.chunk`` objects ending in ``data: [DONE]``, CORS for the page. One class, so
the CLI, the bench and the page are tested against the same server.

The path's first segment picks how a request is answered, so one server covers a test's cases:
``/fail/…`` is an HTTP 500 with an OpenAI-style error body; ``/drop/…`` streams ``drop_after``
pieces and then closes the connection without a finish event or ``[DONE]``, as a crashed
server or a dropped network would; any other path streams every piece, a finish event and
``[DONE]``. A request with ``"stream": false`` (the follow-up rewrite) gets one JSON completion
whose content is ``rewrite``. Every request is recorded whole in ``requests``.
"""

from __future__ import annotations

import http.server
import json
import threading


def _chunk(delta: dict, finish: str | None = None) -> bytes:
    event = {"id": "stand-in", "object": "chat.completion.chunk", "created": 0, "model": "stand-in",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(event)}\n\n".encode()


class LocalServer:
    """A threaded HTTP server on a free port of 127.0.0.1 that records requests; subclasses
    give the handler class and append to ``requests``."""

    def __init__(self, handler: type[http.server.BaseHTTPRequestHandler]):
        self.requests: list[dict] = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def posts(self) -> list[dict]:
        return [r for r in self.requests if r["method"] == "POST"]

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class StandInChat(LocalServer):
    def __init__(self, pieces: list[str] | str, *, rewrite: str = "", drop_after: int = 2):
        # A string streams one word per event, the way a model's tokens arrive.
        if isinstance(pieces, str):
            words = pieces.split(" ")
            pieces = [w if i == 0 else f" {w}" for i, w in enumerate(words)]
        self.pieces, self.rewrite, self.drop_after = list(pieces), rewrite, drop_after
        super().__init__(self._handler())

    def _handler(self):
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def record(self) -> dict | None:
                length = int(self.headers.get("Content-Length") or 0)
                text = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                try:
                    body = json.loads(text) if text else None
                except ValueError:
                    body = None
                stand_in.requests.append({"method": self.command, "path": self.path, "body": text, "json": body,
                                          "headers": {k.lower(): v for k, v in self.headers.items()}})
                return body

            def start(self, status: int, content_type: str, length: int | None = None):
                self.send_response(status)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Headers", "authorization, content-type, accept")
                self.send_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
                self.send_header("Content-Type", content_type)
                self.send_header("Cache-Control", "no-cache")
                if length is not None:
                    self.send_header("Content-Length", str(length))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()

            def whole(self, status: int, payload: dict):
                data = json.dumps(payload).encode()
                self.start(status, "application/json", len(data))
                self.wfile.write(data)

            def do_OPTIONS(self):  # noqa: N802 - the stdlib's name
                self.record()
                self.start(204, "text/plain", 0)

            def do_POST(self):  # noqa: N802
                body = self.record() or {}
                mode = self.path.split("/")[1] if self.path.count("/") > 1 else ""
                if mode == "fail":
                    return self.whole(500, {"error": {"message": "model not loaded", "type": "server_error"}})
                if body.get("stream") is False:
                    return self.whole(200, {"id": "stand-in", "object": "chat.completion", "model": "stand-in",
                                            "choices": [{"index": 0, "finish_reason": "stop",
                                                         "message": {"role": "assistant", "content": stand_in.rewrite}}]})
                self.start(200, "text/event-stream")
                drop = mode == "drop"
                for i, piece in enumerate(stand_in.pieces):
                    if drop and i == stand_in.drop_after:
                        return  # the connection closes with the stream unfinished
                    self.wfile.write(_chunk({"content": piece}))
                    self.wfile.flush()
                self.wfile.write(_chunk({}, "stop") + b"data: [DONE]\n\n")
                self.wfile.flush()

            do_GET = do_POST

        return Handler
