"""Natively, the processes Reading Room starts run numpy's BLAS on one thread (the vector leg
waited for a busy second core otherwise), unless the person's environment says otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOW = "print(os.environ.get('OPENBLAS_NUM_THREADS'), os.environ.get('MKL_NUM_THREADS'))"


def _run(code: str, **env: str) -> list[str]:
    """What ``code`` prints in a fresh Python whose environment sets no BLAS thread count but ``env``."""
    clean = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    clean["PYTHONPATH"] = str(ROOT / "py_src")
    return subprocess.run([sys.executable, "-c", code], env={**clean, **env},
                          capture_output=True, text=True, check=True).stdout.split()


def test_the_cli_and_the_bench_ask_for_one_blas_thread_before_numpy_loads():
    assert _run(f"import readingroom.cli.main, numpy, os; {SHOW}") == ["1", "1"]
    assert _run(f"import readingroom.bench.quality, numpy, os; {SHOW}") == ["1", "1"]


def test_a_thread_count_the_person_set_is_kept():
    assert _run(f"import readingroom.cli.main, numpy, os; {SHOW}", OPENBLAS_NUM_THREADS="2") == ["2", "1"]


def test_too_late_once_numpy_is_loaded_and_says_so():
    assert _run("import numpy, os; from readingroom._threads import one_blas_thread; "
                "print(one_blas_thread(), os.environ.get('OPENBLAS_NUM_THREADS'))") == ["False", "None"]
