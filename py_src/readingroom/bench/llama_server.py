"""A real llama-server on 127.0.0.1 for the chat benches and tests (``bench/generation.py``,
``tests/browser/test_chat.py``, ``tests/test_llama_build.py``): started on a free port it
chooses itself, waited for until healthy, asked through its OpenAI-compatible API."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

_LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")


class LlamaServer:
    """A real llama-server on 127.0.0.1 with one GGUF (one slot, ``threads`` threads): by default
    the portable build ``llama_build.py`` compiles from pinned source (x86-64 with AVX2)."""

    def __init__(self, model: Path, threads: int = 1, ctx: int = 4096, extra: list[str] = (),
                 log: Path | None = None, binary: Path | None = None, timeout: float = 120):
        if binary is None:
            from .browser import _build_module

            _build_module()  # puts the repository root, where llama_build.py lives, on sys.path
            import llama_build

            binary = llama_build.build()
        from llama_build import death_line

        # Port 0: the server binds a free port itself and logs it, so no other process can take
        # the port between our choosing it and the server binding it.
        self.binary = Path(binary)
        # Our own log lives in a folder of its own, removed by close(); a caller's log is kept.
        self._own_dir = None if log else Path(tempfile.mkdtemp(prefix="llama-server-"))
        self.log = log or self._own_dir / "server.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [str(self.binary), "-m", str(model), "--host", "127.0.0.1", "--port", "0",
                 "-c", str(ctx), "-np", "1", "-t", str(threads), "--no-webui", *extra],
                stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        self.port = None
        while True:
            rc = self.proc.poll()
            if rc is not None:
                tail = self.log.read_text("utf-8", "replace")[-2000:]
                self.close()
                raise RuntimeError(death_line(self.binary, rc) or f"{self.binary} exited with {rc}: {tail}")
            if self.port is None:
                found = _LISTENING.search(self.log.read_text("utf-8", "replace"))
                if found:
                    self.port = int(found.group(1))
                    self.url = f"http://127.0.0.1:{self.port}"
            if self.port is not None:
                try:
                    with urllib.request.urlopen(f"{self.url}/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
            if time.monotonic() > deadline:
                tail = self.log.read_text("utf-8", "replace")[-2000:]
                self.close()
                raise RuntimeError(f"{self.binary} did not become healthy in {timeout:.0f} s: {tail}")
            time.sleep(0.3)

    def complete(self, messages: list[dict], max_tokens: int = 160) -> dict:
        body = json.dumps({"messages": messages, "temperature": 0, "max_tokens": max_tokens,
                           "cache_prompt": False}).encode()
        req = urllib.request.Request(f"{self.url}/v1/chat/completions", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=600) as r:
            out = json.load(r)
        return {"text": out["choices"][0]["message"]["content"], "timings": out.get("timings", {}),
                "usage": out.get("usage", {})}

    def tokens(self, text: str) -> int:
        req = urllib.request.Request(f"{self.url}/tokenize", json.dumps({"content": text}).encode(),
                                     {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return len(json.load(r)["tokens"])

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self._own_dir is not None:
            shutil.rmtree(self._own_dir, ignore_errors=True)
