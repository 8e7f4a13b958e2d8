"""A client for OpenAI-compatible ``/v1/chat/completions`` servers, standard library only.

For the CLI's ``ask --llm`` (llama.cpp's llama-server, Ollama, LM Studio, vLLM, OpenAI):
stream an answer token by token over server-sent events, and, with a short timeout,
rewrite a follow-up into a standalone query. Every failure (unreachable server, an HTTP
error and its body, a stream that stops before ``[DONE]``) is an ``LlmError`` whose text
is the one line the CLI prints; the caller keeps what it already has.
"""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.request
from typing import Iterator, Sequence

from ..errors import ReadingRoomError

REWRITE_TIMEOUT = 4.0  # seconds: a rewrite that takes longer is not worth waiting for
STREAM_TIMEOUT = 120.0  # seconds between two pieces of a stream
BODY_CHARS = 300


class LlmError(ReadingRoomError):
    kind = "llm"


def _request(base_url: str, body: dict, api_key: str | None) -> urllib.request.Request:
    url = base_url.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream, application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")


def _open(req: urllib.request.Request, timeout: float):
    try:
        return urllib.request.urlopen(req, timeout=timeout)  # noqa: S310 - a URL the user gave
    except urllib.error.HTTPError as e:
        body = e.read().decode("utf-8", "replace").strip().replace("\n", " ")[:BODY_CHARS]
        raise LlmError(f"{req.full_url} answered HTTP {e.code} {e.reason}: {body or '(no body)'}") from e
    except urllib.error.URLError as e:
        raise LlmError(f"cannot reach {req.full_url}: {getattr(e, 'reason', e)}") from e
    except (OSError, http.client.HTTPException) as e:
        raise LlmError(f"cannot reach {req.full_url}: {e}") from e


def _body(messages: Sequence[dict], model: str | None, stream: bool, **extra) -> dict:
    body = {"messages": list(messages), "stream": stream, **extra}
    if model:
        body["model"] = model
    return body


def stream_chat(base_url: str, messages: Sequence[dict], model: str | None = None,
                api_key: str | None = None, timeout: float = STREAM_TIMEOUT) -> Iterator[str]:
    """The answer's pieces as the server sends them."""
    req = _request(base_url, _body(messages, model, True), api_key)
    resp = _open(req, timeout)
    finished = False
    try:
        for raw in resp:
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            try:
                event = json.loads(data)
            except json.JSONDecodeError as e:
                raise LlmError(f"the server sent something that is not JSON: {data[:80]!r}") from e
            if event.get("error"):
                raise LlmError(f"the server reported an error: {json.dumps(event['error'])[:BODY_CHARS]}")
            for choice in event.get("choices") or ():
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    yield piece
                finished = finished or bool(choice.get("finish_reason"))
    except (OSError, http.client.HTTPException, socket.timeout) as e:
        raise LlmError(f"the answer stream broke off: {e or type(e).__name__}") from e
    finally:
        resp.close()
    if not finished:
        raise LlmError("the answer stream ended before the server said it was done")


def complete(base_url: str, messages: Sequence[dict], model: str | None = None,
             api_key: str | None = None, timeout: float = REWRITE_TIMEOUT, max_tokens: int = 64) -> str:
    """One short non-streamed reply."""
    req = _request(base_url, _body(messages, model, False, max_tokens=max_tokens, temperature=0), api_key)
    resp = _open(req, timeout)
    try:
        reply = json.loads(resp.read().decode("utf-8", "replace"))
        return str(reply["choices"][0]["message"]["content"] or "")
    except (OSError, http.client.HTTPException, ValueError, KeyError, IndexError, TypeError) as e:
        raise LlmError(f"the server's reply could not be read: {e}") from e
    finally:
        resp.close()


REWRITE_INSTRUCTIONS = (
    "Rewrite the user's last question so it can be understood without the conversation: "
    "replace words like it, that or they with what they refer to. Reply with the rewritten "
    "question only, on one line."
)


def rewrite_query(base_url: str, question: str, earlier: Sequence[str], fallback: str,
                  model: str | None = None, api_key: str | None = None,
                  timeout: float = REWRITE_TIMEOUT) -> tuple[str, str | None]:
    """(query, error): the model's standalone rewrite of ``question``, or ``fallback`` (the
    deterministic rewrite) with the reason when the model is slow, failing or rambling."""
    convo = "\n".join(f"Earlier question: {q}" for q in earlier[-3:])
    msgs = [{"role": "system", "content": REWRITE_INSTRUCTIONS},
            {"role": "user", "content": f"{convo}\nLast question: {question}"}]
    try:
        text = " ".join(complete(base_url, msgs, model, api_key, timeout).split())
    except LlmError as e:
        return fallback, str(e)
    if not text or len(text) > 4 * len(fallback) + 200:
        return fallback, "the model's rewrite was empty or too long"
    return text, None
