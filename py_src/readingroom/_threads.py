"""Natively, numpy's BLAS runs on one thread in the processes Reading Room starts itself.

A query's vector leg is a matrix-vector product over the stored vectors. OpenBLAS splits it
over every core and waits for all of them, so on a 2-core machine with anything else running
(an import, serve's other requests, a test run) each search waits for a busy core. At 20,000
chunks natively (``retrieve``, 300 SciFact questions, 2026-11-28) with a CI run beside it (load
~4.5): the vector leg 7.3-7.6 ms p50 with OpenBLAS's two threads against 1.6 ms on one, the
whole search 15.6-16.9 against 5.7-6.6 ms. Quiet (load 1.4-1.5) one thread costs a little: the
vector leg 1.4-1.5 against 1.7-1.8 ms, the search 4.4-5.3 against 5.5 ms. A server answering
several people at once is never quiet, so one thread it is. The embedding model has its own
threads (ONNX Runtime's), which this does not touch, and Pyodide's numpy has none.

The CLI, serve and the bench call ``one_blas_thread`` before numpy is imported. A program that
imports numpy first, or whose environment sets these variables, keeps its own setting.
"""

from __future__ import annotations

import os
import sys

VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> bool:
    """Ask for one BLAS thread; False when numpy is loaded already (too late to ask)."""
    if "numpy" in sys.modules:
        return False
    for name in VARIABLES:
        os.environ.setdefault(name, "1")
    return True
