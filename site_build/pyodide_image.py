"""What makes the page's Python start fast: the Pyodide memory snapshot, the compiled bytecode and
the site-packages image.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

from .fetch import sha256_file
from .pins import CACHE, log, NODE_MODULES, NPM_FILES, NPM_VERSIONS, ROOT


# Starting Pyodide spends seconds of wasm initialising the interpreter (measured in node: 9.7 s
# plain vs 2.1 s from a snapshot, under load). The build makes that state once, in node, with the
# very Pyodide it ships (loadPyodide({_makeSnapshot: true}) then makeMemorySnapshot()), after
# importing the pure-Python stdlib modules readingroom and numpy use; web/retrieval-worker.js
# restores it with loadPyodide({_loadSnapshot}). Only built-in modules may be in it: numpy's
# shared libraries cannot be snapshotted, so numpy still loads after the restore.
# Without node, or if making it fails, the build ships no snapshot and says so; the app then
# starts Python the ordinary way.

SNAPSHOT_PATH = "vendor/pyodide/snapshot.bin.gz"
SNAPSHOT_IMPORTS = [
    # readingroom's own stdlib imports
    "argparse", "asyncio", "concurrent.futures", "contextlib", "dataclasses", "datetime", "hashlib",
    "html.parser", "io", "json", "math", "os", "pathlib", "re", "shutil", "time", "typing",
    # what `import numpy` pulls in from the stdlib
    "ctypes", "pickle", "platform", "numbers", "gettext", "html.entities",
    # `from __future__ import annotations` in every readingroom module; the wheels' unpacking
    "__future__", "tempfile", "zipfile",
    # imported by readingroom's import from Pyodide's stdlib zip, which holds sources only
    "base64", "unicodedata",
]
# readingroom itself is imported into the snapshot too (since 2026-11-27): on a warm reload the
# page spent ~170-330 ms importing it after the restore (its ~70 modules, the dataclasses' generated
# methods, ~100 regular expressions), and now finds it in sys.modules. Its wheel is unpacked into
# site-packages first (the file system is not part of the snapshot: the page unpacks the site
# image as before, for the modules imported later). numpy stays out: readingroom._lazy_numpy's
# stand-in is installed first, as the worker does, and the import must leave it waiting (numpy's
# libraries cannot be in a snapshot). Nothing in it may hold a JS object: the worker registers
# `readingroom_host` after the restore (readingroom._compat._in_pyodide looks it up when used).
_SNAPSHOT_JS = r"""
import { loadPyodide } from %(module)s;
import { readFileSync, writeFileSync } from 'node:fs';
const py = await loadPyodide({ indexURL: %(index)s, _makeSnapshot: true });
py.FS.writeFile('/tmp/readingroom.whl', readFileSync(%(wheel)s));
py.globals.set('SITE', py._api.sitepackages);
const so = py.runPython(`
import sys, zipfile
for name in %(imports)s:
    __import__(name)
with zipfile.ZipFile('/tmp/readingroom.whl') as wheel:
    wheel.extractall(SITE)
del SITE
import readingroom._lazy_numpy as lazy
lazy.install()
import readingroom.worker
if lazy.loaded():
    raise RuntimeError('importing readingroom imported numpy')
[m for m, mod in sys.modules.items() if (getattr(mod, '__dict__', {}).get('__file__') or '').endswith('.so')]
`).toJs();
if (so.length) throw new Error('shared libraries loaded, cannot snapshot: ' + so.join(', '));
writeFileSync(%(out)s, py.makeMemorySnapshot());
"""


def wheel_hash(wheel: Path) -> str:
    """The sha256 of a wheel's members (not of the zip, whose timestamps change on every build)."""
    with zipfile.ZipFile(wheel) as z:
        return hashlib.sha256(b"".join(z.read(n) for n in sorted(z.namelist()))).hexdigest()


def _run_node(node: str, script: str, cwd: Path, doing: str, failed: str, *, made: Path,
              scratch: Path | None = None) -> bool:
    """Run a module script in node that writes ``made``; ``scratch`` (its input file) is
    removed either way. A failure is logged with its error line, and nothing half-made is kept."""
    log(doing)
    proc = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True,
                          cwd=cwd, timeout=600)
    if scratch is not None:
        scratch.unlink(missing_ok=True)
    if proc.returncode != 0 or not made.is_file():
        lines = [line for line in (proc.stderr or proc.stdout).strip().splitlines()
                 if line.strip() and not line.startswith(("Node.js", "    at ", "var Module"))] or ["no output"]
        errors = [line for line in lines if "Error" in line and len(line) < 500]
        log(f"{failed}: {(errors or lines)[-1][:500]}")
        made.unlink(missing_ok=True)
        return False
    return True


def pyodide_snapshot(wheel: Path) -> Path | None:
    """The gzipped snapshot for the pinned Pyodide with ``wheel`` (readingroom) imported, made
    with node and cached by its inputs."""
    node = shutil.which("node")
    if node is None:
        log("no node on PATH: building without a Pyodide memory snapshot (slower first start)")
        return None
    pyodide = NODE_MODULES / "pyodide"
    key = hashlib.sha256("\n".join([
        *(sha for src, _dest, sha in NPM_FILES if src.startswith("pyodide/")),
        _SNAPSHOT_JS, json.dumps(SNAPSHOT_IMPORTS), wheel_hash(wheel)]).encode()).hexdigest()[:16]
    out = CACHE / "pyodide-snapshot" / f"snapshot-{key}.bin.gz"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    raw = out.with_name(f"{out.stem}.{os.getpid()}.raw")
    script = _SNAPSHOT_JS % {"module": json.dumps((pyodide / "pyodide.mjs").as_uri()),
                             "index": json.dumps(str(pyodide) + "/"), "out": json.dumps(str(raw)),
                             "imports": json.dumps(SNAPSHOT_IMPORTS), "wheel": json.dumps(str(wheel))}
    if not _run_node(node, script, ROOT, "making the Pyodide memory snapshot with readingroom imported (once per change; about 15 s)",
                     "no Pyodide memory snapshot", made=raw):
        return None
    tmp = out.with_name(out.name + f".{os.getpid()}.part")
    with open(raw, "rb") as src, gzip.open(tmp, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    raw.unlink()
    tmp.replace(out)
    return out


# --- compiled bytecode for site-packages -------------------------------------------------------
# numpy's wheel and ours ship .py files only, so every start compiled each imported module from
# source in wasm (measured in node: `import numpy` 0.5 s of CPU from source, 0.29 s from .pyc).
# The build compiles them once with the very Python the page runs (Pyodide's, in node) into
# hash-checked .pyc files (PEP 552, CHECKED_HASH: Python uses one only while its source hashes
# the same, so a stale file costs a compile, never a wrong module), shipped in the site image.

_PYC_PY = """
import importlib.util, io, pathlib, py_compile, sys, zipfile
import numpy, readingroom.worker
site = pathlib.Path(SITE)
sources = {pathlib.Path(m.__file__) for m in list(sys.modules.values())
           if (getattr(m, "__file__", "") or "").endswith(".py") and m.__file__.startswith(SITE)}
out = io.BytesIO()
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for src in sorted(sources):
        pyc = importlib.util.cache_from_source(str(src))
        py_compile.compile(str(src), cfile=pyc, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        z.write(pyc, pathlib.Path(pyc).relative_to(site).as_posix())
out.getvalue()
"""
_PYC_JS = r"""
import { loadPyodide } from %(module)s;
import { readFileSync, writeFileSync } from 'node:fs';
const py = await loadPyodide({ indexURL: %(index)s });
await py.loadPackage(['numpy', %(wheel)s], { messageCallback: () => {} });
py.registerJsModule('readingroom_host', {});
py.globals.set('SITE', py._api.sitepackages);
writeFileSync(%(out)s, py.runPython(readFileSync(%(code)s, 'utf8')).toJs());
"""


def pyc_bundle(staging: Path, wheel: Path) -> Path | None:
    """The zip of .pyc files for the modules the worker imports at start (numpy's and readingroom's),
    made with node from the staged wheels and cached by their contents."""
    node = shutil.which("node")
    if node is None:
        log("no node on PATH: building without compiled bytecode (slower first import)")
        return None
    pyodide = NODE_MODULES / "pyodide"
    vendor = staging / "vendor" / "pyodide"  # the shipped Pyodide, its trimmed lock and wheels
    key = hashlib.sha256("\n".join([
        *(sha for src, _dest, sha in NPM_FILES if src.startswith("pyodide/")),
        (vendor / "pyodide-lock.json").read_text(), wheel_hash(wheel), _PYC_PY, _PYC_JS]).encode()).hexdigest()[:16]
    out = CACHE / "pyodide-pyc" / f"site-pyc-{key}.zip"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.part")
    code = out.with_name(f"pyc-{os.getpid()}.py")
    code.write_text(_PYC_PY)
    script = _PYC_JS % {"module": json.dumps((pyodide / "pyodide.mjs").as_uri()),
                        "index": json.dumps(str(vendor) + "/"),
                        "wheel": json.dumps(wheel.as_uri()), "out": json.dumps(str(tmp)),
                        "code": json.dumps(str(code))}
    if not _run_node(node, script, vendor, "compiling numpy's and readingroom's bytecode (once per change; about 10 s)",
                     "no compiled bytecode", scratch=code, made=tmp):
        return None
    tmp.replace(out)
    return out


# Unpacking numpy's wheel in the page took 0.5 s of CPU on every start (Python's zipfile, one
# member at a time, 12 MB), more than numpy's import. The build instead lays out site-packages
# once, as one gzipped image: numpy's wheel (without its type stubs and C headers, which nothing
# reads at run time), ours, and the .pyc files. The worker inflates it with the browser's own
# DecompressionStream and writes each file straight into Pyodide's file system.
# Format: 4-byte little-endian length of a JSON list [{"path", "size"}], the list, the contents.
SITE_PATH = "vendor/pyodide/site-packages.bin.gz"
SITE_SKIP = (".pyi", ".h", ".pxd")


def site_image(staging: Path, wheel: Path, pyc: Path | None) -> None:
    vendor = staging / "vendor" / "pyodide"
    lock = json.loads((vendor / "pyodide-lock.json").read_text())
    index, blobs = [], []
    for src in [vendor / lock["packages"]["numpy"]["file_name"], wheel, *([pyc] if pyc else [])]:
        with zipfile.ZipFile(src) as z:
            for info in z.infolist():
                if info.is_dir() or info.filename.endswith(SITE_SKIP):
                    continue
                blobs.append(z.read(info))
                index.append({"path": info.filename, "size": len(blobs[-1])})
    head = json.dumps(index).encode()
    with open(staging / SITE_PATH, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0) as out:
        out.write(len(head).to_bytes(4, "little") + head)
        for blob in blobs:
            out.write(blob)


def snapshot_manifest(dist: Path) -> dict | None:
    path = dist / SNAPSHOT_PATH
    if not path.is_file():
        return None
    return {"path": SNAPSHOT_PATH, "gzip": True, "size": path.stat().st_size, "sha256": sha256_file(path),
            "pyodide": NPM_VERSIONS["pyodide"], "imports": [*SNAPSHOT_IMPORTS, "readingroom.worker"]}
