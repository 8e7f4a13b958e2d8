"""The retrieval worker's background warm-up: one task at a time loads the search's in-memory
legs (``Library.warm_in_background``, store/warmup.py) while the worker is idle, so the first
query does not pay for them; status() says "warming" meanwhile.

In the page the worker's event loop lives as long as the worker; natively each call runs in
its own ``asyncio.run``, which would cancel a background task as it returns, so natively
nothing starts here (``BACKGROUND``) and the first query loads the legs.
"""

from __future__ import annotations

import asyncio

from ._compat import IN_PYODIDE

BACKGROUND = IN_PYODIDE
_task: asyncio.Task | None = None


def start(library, restart: bool = True) -> None:
    """Start warming ``library`` unless a warm-up is under way. ``restart``: after a write the
    warm-up cannot follow (a re-index, a bundle) the one under way is loading what is no
    longer there, so it starts again; one follows an add, a delete and the vectors of
    words-first chunks (warmup.py). A failure is not reported: the first query loads the legs
    again and reports what goes wrong then."""
    global _task
    if not BACKGROUND:
        return
    if _task is not None and not _task.done():
        if not restart:
            return
        stop(library)
    library.index.warm_pending = True  # status() says "warming" from now on

    async def run() -> None:
        try:
            await library.warm_in_background()
        except Exception:  # noqa: BLE001 - see the docstring
            pass

    _task = asyncio.ensure_future(run())


def stop(library) -> None:
    """Cancel the warm-up under way (``library``: the one it was warming, or None)."""
    global _task
    if _task is not None:
        _task.cancel()
        _task = None
    if library is not None:
        library.index.stop_warming()


def running() -> asyncio.Task | None:
    """The warm-up task under way, if any (a test awaits it)."""
    return _task
