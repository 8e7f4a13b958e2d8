"""Helpers for driving the app page in tests."""

from __future__ import annotations

import time
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
READY_TIMEOUT_MS = 120_000


def open_app(pg, site: str, query: str = "") -> dict:
    """Load the app and wait until Python and the model are ready; returns status()."""
    pg.goto(f"{site}/{query}")
    return wait_ready(pg)


def wait_ready(pg) -> dict:
    pg.wait_for_function("() => window.readingroom !== undefined", timeout=READY_TIMEOUT_MS)
    return pg.evaluate("async () => { await window.readingroom.ready; return window.readingroom.status(); }")


def screenshot(pg, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def wait_until(pg, predicate_js: str, timeout_s: float = READY_TIMEOUT_MS / 1000) -> None:
    """Poll an (async) page predicate until it is true. Playwright's wait_for_function takes
    the Promise an async function returns as truthy and returns at once, so it cannot wait
    on readingroom.status()."""
    deadline = time.monotonic() + timeout_s
    while not pg.evaluate(predicate_js):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {predicate_js}")
        time.sleep(0.25)
