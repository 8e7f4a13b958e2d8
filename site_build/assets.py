"""The lazily fetched runtimes (WebGPU, OCR) and build-manifest.json, which lists every asset with
its hash.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from .bundle import bundle_manifest
from .chat import CHAT_LAZY_DIR, chat_manifest
from .fetch import copy_verified, sha256_file
from .pins import BuildError, MODEL_INFO, MODEL_NAME, NODE_MODULES, WEBGPU_FILES, WEBGPU_LAZY_DIR
from .pyodide_image import SITE_PATH, snapshot_manifest


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
