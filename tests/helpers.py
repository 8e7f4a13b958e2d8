"""Small helpers shared by the native tests."""

import asyncio
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "datasets" / "scifact"


def run(coro):
    """Run a coroutine to completion, also from inside a running loop (sync Playwright has
    one), by giving it a fresh loop on a short-lived thread when needed."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
