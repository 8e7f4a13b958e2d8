"""Small helpers shared by the native tests."""

import asyncio
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "datasets" / "scifact"


def run(coro):
    return asyncio.run(coro)
