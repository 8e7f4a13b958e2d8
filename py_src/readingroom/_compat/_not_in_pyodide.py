"""The native side: apsw + the sqlite-vec wheel, and ONNX Runtime + ``tokenizers``.

apsw is used rather than the stdlib ``sqlite3`` because it bundles a current SQLite with
FTS5 and can always load extensions (pyenv builds of ``sqlite3`` often cannot).
The embedder reads the very files the browser serves (``onnx/model_quantized.onnx`` and
``tokenizer.json``) and pools the same way transformers.js does, so the vectors agree.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import EmbedderError, ExtensionMissing, StorageError

BATCH = 32


class NativeStore:
    def __init__(self, path: str | os.PathLike = ":memory:"):
        try:
            import apsw
            import sqlite_vec
        except ImportError as e:  # packaging error, not a user error
            raise ExtensionMissing(
                "the native store needs apsw and sqlite-vec: pip install 'readingroom[native]'"
            ) from e
        self.path = str(path)
        self.kind = "memory" if self.path == ":memory:" else "file"
        try:
            self._db = apsw.Connection(self.path)
        except apsw.Error as e:
            raise StorageError(f"cannot open {self.path}: {e}") from e
        self._db.enable_load_extension(True)
        self._db.load_extension(sqlite_vec.loadable_path())
        self._db.enable_load_extension(False)
        self._db.set_busy_timeout(5000)
        self._apsw = apsw

    def execute_script(self, sql: str) -> None:
        try:
            self._db.execute(sql)
        except self._apsw.Error as e:
            raise StorageError(str(e)) from e

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        try:
            return list(self._db.execute(sql, tuple(params)))
        except self._apsw.Error as e:
            raise StorageError(str(e)) from e

    def close(self) -> None:
        self._db.close()


def open_store(path: str | os.PathLike = ":memory:", **_: Any) -> NativeStore:
    return NativeStore(path)


def report_progress(event: str) -> None:
    """Natively, progress is shown by the CLI's own callback; the worker API has no page."""


class NativeEmbedder:
    """ONNX Runtime on the int8 all-MiniLM-L6-v2, batched by similar length."""

    # Rows per ORT call, after sorting by length: larger batches were no faster per text
    # (SciFact chunks, 2 cores), and 8 keeps the padded tensors small.
    batch = 8

    def __init__(self, model_dir: str | os.PathLike, model_id: str, dim: int, max_tokens: int):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise ExtensionMissing(
                "the native embedder needs onnxruntime and tokenizers: pip install 'readingroom[native]'"
            ) from e
        model_dir = Path(model_dir)
        onnx_path = model_dir / "onnx" / "model_quantized.onnx"
        if not onnx_path.exists():
            raise EmbedderError(f"model file missing: {onnx_path}")
        self.model_id, self.dim, self.max_tokens = model_id, dim, max_tokens
        self._tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tok.no_padding()
        self._tok.no_truncation()
        self._count_tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._count_tok.no_padding()
        self._count_tok.no_truncation()
        self._tok.enable_truncation(max_length=max_tokens)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = min(2, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # No busy-waiting between ops: on a shared 2-core machine a spinning worker thread burns
        # the cycles the other one needs (measured: 0.5-2x faster ingestion under load 5-8).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encs = self._tok.encode_batch(list(texts))
        # Sorting by length keeps padding small inside each batch (padding costs time, and
        # is masked out of the mean so it does not change the vectors).
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        for b in range(0, len(order), self.batch):
            idx = order[b : b + self.batch]
            width = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[row, :n] = encs[i].ids
                mask[row, :n] = 1
            hidden = self._session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[idx] = pooled
        return out

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_sync(texts)

    async def count_tokens(self, texts: Sequence[str]) -> list[int]:
        encs = self._count_tok.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encs]


def make_embedder(model_dir: str | os.PathLike | None = None, *, model_id: str, dim: int,
                  max_tokens: int, **_: Any) -> NativeEmbedder:
    from ..model_files import locate_model_dir

    return NativeEmbedder(model_dir or locate_model_dir(), model_id, dim, max_tokens)
