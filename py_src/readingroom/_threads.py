"""Natively, numpy's BLAS runs on one thread in the processes Reading Room starts itself.

A query's vector leg is a matrix-vector product over the stored vectors. OpenBLAS splits it
over every core and waits for all of them, so on a 2-core machine with anything else running
(an import, serve's other requests, a test run) each search waits for a busy core: at 20,000
chunks natively the vector leg took 7.6 ms p50 with OpenBLAS's threads and 1.6 ms on one, the
whole search 16.1 against 5.7 ms (``retrieve``, 300 SciFact questions, load ~4.5). The
embedding model has its own threads (ONNX Runtime's), which this does not touch, and Pyodide's
numpy has none.

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
