"""The bundled index: the demo corpus (Python's own reference topics) indexed natively, or the
user's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .fetch import model_dir, sha256_file
from .pins import BuildError, CACHE, log, PY_SRC, ROOT, run_checked


BUNDLE = "bundled/index.sqlite"


def _readingroom(*args: str, capture: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PY_SRC), "READINGROOM_MODEL_DIR": str(model_dir())}
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=env, text=True,
                          capture_output=capture)


def demo_index() -> Path:
    """The demo corpus (Python's own reference topics) indexed natively, cached by content."""
    if _readingroom("readingroom._native_check", capture=True).returncode != 0:
        run_checked([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", ".[native]"])
    fp = _readingroom("readingroom.demo", "--fingerprint", capture=True)
    if fp.returncode != 0:
        raise BuildError(f"cannot read the demo corpus: {fp.stderr.strip().splitlines()[-1:]}")
    out = CACHE / "demo" / f"demo-{fp.stdout.strip()}.sqlite"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        log("indexing the demo corpus (once; about a minute or two)")
        if _readingroom("readingroom.demo", str(out)).returncode != 0:
            raise BuildError("indexing the demo corpus failed (see above)")
    return out


def bundle_manifest(dist: Path) -> dict | None:
    path = dist / BUNDLE
    if not path.is_file():
        return None
    return {"path": BUNDLE, "size": path.stat().st_size, "sha256": sha256_file(path)}
