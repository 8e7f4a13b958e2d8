"""Helpers for driving the app page in tests."""

from __future__ import annotations

from pathlib import Path

from readingroom.bench.browser import wait_until  # noqa: F401 - the tests' own, from here

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


