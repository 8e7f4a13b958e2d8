"""Small helpers shared by the native tests."""

import os
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
