"""Small helpers shared by the native tests."""

import os
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Beside the checkout in CI; a git worktree elsewhere names it in READINGROOM_SCIFACT.
SCIFACT = Path(os.environ.get("READINGROOM_SCIFACT", ROOT.parent / "shared" / "datasets" / "scifact"))


def run(coro):
    """Run a coroutine to completion, also from inside sync Playwright's running loop."""
    from readingroom.aio import run as run_sync

    return run_sync(coro)


class OtherModel:
    """A stand-in for another embedding model (constant vectors): an index made with it is
    what the provenance check exists for. Only ever used to *make* such an index."""

    def __init__(self, model_id: str = "other/model", dim: int = 384):
        self.model_id, self.dim, self.max_tokens = model_id, dim, 256

    async def embed(self, texts):
        import numpy as np

        return np.ones((len(texts), self.dim), np.float32)

    async def count_tokens(self, texts):
        return [1] * len(texts)


@contextmanager
def serving(app):
    """``app`` served by uvicorn on a free port of 127.0.0.1, in a thread: yields its base URL."""
    import socket
    import threading
    import time

    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):
        if server.started or not thread.is_alive():
            break
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError(f"uvicorn did not start on 127.0.0.1:{port}")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
