"""Small helpers shared by the native tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "datasets" / "scifact"


def run(coro):
    """Run a coroutine to completion, also from inside sync Playwright's running loop."""
    from readingroom.aio import run as run_sync

    return run_sync(coro)
