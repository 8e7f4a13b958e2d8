"""Chooses the native or the browser side of the two seams, once, at import time.

Like micropip's ``_compat``: the rest of the package imports ``open_store`` and
``make_embedder`` from here and never asks which platform it runs on.
"""

import sys

IN_PYODIDE = sys.platform == "emscripten"

if IN_PYODIDE:
    from ._in_pyodide import make_embedder, open_store, report_progress
else:
    from ._not_in_pyodide import make_embedder, open_store, report_progress

__all__ = ["IN_PYODIDE", "make_embedder", "open_store", "report_progress"]
