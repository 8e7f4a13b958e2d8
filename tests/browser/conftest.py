"""Browser fixtures: the built site on 127.0.0.1, Debian's Chromium through Playwright, and a
guard that fails the test on any request that leaves the page's origin.

Each test gets a fresh browser context, so its OPFS storage and service worker start empty.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pages import open_app

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("READINGROOM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def pytest_collection_modifyitems(items):
    for item in items:
        if "browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def site():
    """Build dist/ from this checkout (cached downloads make it fast) and serve it."""
    import build

    if not os.environ.get("READINGROOM_NO_BUILD"):
        build.build(dist=build.EMPTY_DIST, demo=False)  # tests start from an empty library; test_bundle checks the demo
    server, _thread = build.serve(build.EMPTY_DIST, 0)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def playwright():
    """One Playwright for the whole run: its sync API cannot be started twice in one process, so
    a module that needs a differently launched Chromium launches it from this one."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()


class OriginGuard:
    """Records every request; aborts and remembers any that is not for the app's origin."""

    def __init__(self, origin: str, allowed: tuple[str, ...] = ()):
        self.origins = {origin, *allowed}
        self.offending: list[str] = []
        self.requests: list[str] = []

    def origin_of(self, url: str) -> str:
        p = urlsplit(url)
        return f"{p.scheme}://{p.netloc}"

    def route(self, route):
        url = route.request.url
        if url.startswith(("data:", "blob:")) or self.origin_of(url) in self.origins:
            route.continue_()
        else:
            self.offending.append(url)
            route.abort("blockedbyclient")

    def on_request(self, request):
        url = request.url
        self.requests.append(url)
        if not url.startswith(("data:", "blob:")) and self.origin_of(url) not in self.origins:
            if url not in self.offending:
                self.offending.append(url)


@pytest.fixture
def guard(site):
    return OriginGuard(site)


@pytest.fixture
def context(browser, site, guard, request):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    ctx.route("**/*", guard.route)
    ctx.on("request", guard.on_request)
    yield ctx
    ctx.close()
    assert guard.offending == [], f"requests left the origin: {guard.offending}"


@pytest.fixture
def page(context, site):
    pg = context.new_page()
    pg.console_messages = []
    pg.on("console", lambda m: pg.console_messages.append(f"{m.type}: {m.text}"))
    open_app(pg, site)
    return pg
