"""Run a coroutine to completion from synchronous code.

The library is async because the browser's embedder is a round trip to another worker.
Natively, callers are synchronous (the CLI, the bench, tests) and may themselves sit inside
a running event loop (sync Playwright keeps one), where ``asyncio.run`` refuses to work; then
the coroutine gets a fresh loop on a short-lived thread.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Awaitable, TypeVar

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)  # type: ignore[arg-type]
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()  # type: ignore[arg-type]
