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


# What the page was doing when its API did not appear: the document's state, the service worker's,
# which scripts it loaded and how long each took. The first failure then explains itself
# (a reload after a killed embedder once never defined the API in a CI run and could not be
# reproduced alone).
PAGE_STATE = """async () => {
    const r = await navigator.serviceWorker?.getRegistration().catch(() => null);
    return {
        api: typeof window.readingroom, // defined by now: the wait's polling (requestAnimationFrame) stalled
        visibility: document.visibilityState,
        readyState: document.readyState,
        controlled: !!navigator.serviceWorker?.controller,
        worker: [r?.installing?.state ?? null, r?.waiting?.state ?? null, r?.active?.state ?? null],
        loaded: performance.getEntriesByType('resource').slice(-40)
            .map((e) => `${e.name.split('/').pop()} ${Math.round(e.startTime)}+${Math.round(e.duration)} ms`),
    };
}"""


def wait_for_api(pg, timeout_ms: int = READY_TIMEOUT_MS) -> None:
    """Wait for window.readingroom (set once app.js's modules have run); on a timeout fail with
    the page's console and state."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        pg.wait_for_function("() => window.readingroom !== undefined", timeout=timeout_ms)
    except PlaywrightTimeout:
        try:
            state = pg.evaluate(PAGE_STATE)
        except Exception as err:  # the page itself may be what hangs
            state = f"(could not be read: {err})"
        console = "\n".join(getattr(pg, "console_messages", [])[-60:])
        raise AssertionError(f"window.readingroom not defined after {timeout_ms / 1000:.1f} s at {pg.url}\n"
                             f"page state: {state}\nconsole (last 60):\n{console}") from None


def wait_ready(pg) -> dict:
    wait_for_api(pg)
    return pg.evaluate("async () => { await window.readingroom.ready; return window.readingroom.status(); }")


# The library's database file as stored, as base64: Playwright hands a byte array over as a JSON
# list of numbers, ~35 s for the few MB of a small library on a slow 2-core machine; base64 takes
# well under a second.
EXPORT_B64 = """async () => {
    const bytes = await window.readingroom.debug.exportDatabase();
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
}"""


def exported_database(pg) -> bytes:
    """The page's library database file, byte for byte as exportDatabase() gives it."""
    import base64

    return base64.b64decode(pg.evaluate(EXPORT_B64))


def screenshot(pg, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


