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
# The regular expressions readingroom compiles when it is imported (~100; in wasm, compiling them
# is a good share of the import on every start) are compiled into the snapshot too: they wait
# in `re`'s own cache, keyed by pattern and flags, so the import finds them. The list is read
# from a native import of the same source at build time (``import_patterns``); a pattern that is
# not there (another version of the code) is compiled as ever, so this only ever saves time.
_SNAPSHOT_JS = r"""
import { loadPyodide } from %(module)s;
import { readFileSync, writeFileSync } from 'node:fs';
const py = await loadPyodide({ indexURL: %(index)s, _makeSnapshot: true });
const so = py.runPython(`
import sys
for name in %(imports)s:
    __import__(name)
[m for m, mod in sys.modules.items() if (getattr(mod, '__file__', '') or '').endswith('.so')]
`).toJs();
if (so.length) throw new Error('shared libraries loaded, cannot snapshot: ' + so.join(', '));
py.globals.set('PATTERNS_JSON', readFileSync(%(patterns)s, 'utf8'));
py.runPython(`
import json, re
for pattern, flags in json.loads(PATTERNS_JSON):
    re.compile(pattern, flags)
del PATTERNS_JSON
`);
writeFileSync(%(out)s, py.makeMemorySnapshot());
"""
_PATTERNS_PY = """
import json, re, sys
import numpy, asyncio  # their own patterns are compiled before ours either way
before = set(re._cache)
import readingroom.worker
print(json.dumps(sorted([p, f] for t, p, f in re._cache if t is str and (t, p, f) not in before)))
"""


def import_patterns(py_src: Path) -> list:
    """``[pattern, flags]`` for each regular expression importing ``readingroom.worker`` compiles,
    natively; empty (and said) when the native import fails."""
    import sys

    env = {**os.environ, "PYTHONPATH": str(py_src)}
    proc = subprocess.run([sys.executable, "-c", _PATTERNS_PY], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)
    if proc.returncode == 0:
        try:
            return json.loads(proc.stdout)
        except ValueError:
            why = "its native import printed something other than the list of patterns"
    else:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        why = f"its native import failed ({lines[-1]})"
    log(f"readingroom's regular expressions are not in the snapshot: {why}")
    return []


def _run_node(node: str, script: str, cwd: Path, doing: str, failed: str, *, scratch: Path, made: Path) -> bool:
    """Run a module script in node that writes ``made``; ``scratch`` (its input file) is
    removed either way. A failure is logged with its last line, and nothing half-made is kept."""
    log(doing)
    proc = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True,
                          cwd=cwd, timeout=600)
    scratch.unlink(missing_ok=True)
    if proc.returncode != 0 or not made.is_file():
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        log(f"{failed}: {lines[-1]}")
        made.unlink(missing_ok=True)
        return False
    return True


def pyodide_snapshot(py_src: Path = ROOT / "py_src") -> Path | None:
    """The gzipped snapshot for the pinned Pyodide, made once with node and cached by inputs."""
    node = shutil.which("node")
    if node is None:
        log("no node on PATH: building without a Pyodide memory snapshot (slower first start)")
        return None
    pyodide = NODE_MODULES / "pyodide"
    patterns = json.dumps(import_patterns(py_src))
    key = hashlib.sha256("\n".join([
        *(sha for src, _dest, sha in NPM_FILES if src.startswith("pyodide/")),
        _SNAPSHOT_JS, json.dumps(SNAPSHOT_IMPORTS), patterns]).encode()).hexdigest()[:16]
    out = CACHE / "pyodide-snapshot" / f"snapshot-{key}.bin.gz"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    raw = out.with_name(f"{out.stem}.{os.getpid()}.raw")
    listed = out.with_name(f"{out.stem}.{os.getpid()}.patterns.json")
    listed.write_text(patterns, "utf-8")
    script = _SNAPSHOT_JS % {"module": json.dumps((pyodide / "pyodide.mjs").as_uri()),
                             "index": json.dumps(str(pyodide) + "/"), "out": json.dumps(str(raw)),
                             "imports": json.dumps(SNAPSHOT_IMPORTS), "patterns": json.dumps(str(listed))}
    if not _run_node(node, script, ROOT, "making the Pyodide memory snapshot (once; about 10 s)",
                     "no Pyodide memory snapshot", scratch=listed, made=raw):
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
    with zipfile.ZipFile(wheel) as z:
        ours = hashlib.sha256(b"".join(z.read(n) for n in sorted(z.namelist()))).hexdigest()
    key = hashlib.sha256("\n".join([
        *(sha for src, _dest, sha in NPM_FILES if src.startswith("pyodide/")),
        (vendor / "pyodide-lock.json").read_text(), ours, _PYC_PY, _PYC_JS]).encode()).hexdigest()[:16]
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
            "pyodide": NPM_VERSIONS["pyodide"], "imports": SNAPSHOT_IMPORTS}
