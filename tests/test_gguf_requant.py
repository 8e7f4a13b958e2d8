"""gguf_requant: Q4_1 tensors become Q8_0 holding the same values; everything else is kept."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import gguf_requant  # noqa: E402


def _string(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def _q4_1_blocks(rng, n_blocks: int) -> tuple[bytes, np.ndarray]:
    """Random Q4_1 blocks and the values they hold."""
    d = rng.uniform(0.001, 0.05, n_blocks).astype(np.float16)
    m = rng.uniform(-0.4, 0.1, n_blocks).astype(np.float16)
    q = rng.integers(0, 16, (n_blocks, 32), dtype=np.uint8)
    raw = b"".join(d[i].tobytes() + m[i].tobytes() + bytes(q[i, :16] | (q[i, 16:] << 4)) for i in range(n_blocks))
    values = d.astype(np.float32)[:, None] * q + m.astype(np.float32)[:, None]
    return raw, values


def _gguf(tensors: list[tuple[str, list[int], int, bytes]]) -> bytes:
    kv = [
        _string("general.name") + struct.pack("<I", 8) + _string("tiny"),
        _string("general.file_type") + struct.pack("<I", 4) + struct.pack("<I", 3),
        _string("tokenizer.ggml.tokens") + struct.pack("<I", 9) + struct.pack("<IQ", 8, 2) + _string("a") + _string("bé"),
    ]
    infos, data, offset = [], b"", 0
    for name, dims, kind, raw in tensors:
        infos.append(_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
                     + struct.pack("<IQ", kind, offset))
        pad = -len(raw) % 32
        data += raw + b"\0" * pad
        offset += len(raw) + pad
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv)) + b"".join(kv) + b"".join(infos)
    return head + b"\0" * (-len(head) % 32) + data


def _read(path: Path) -> tuple[int, dict]:
    """(file_type, {name: (type, bytes)}) of a GGUF written by _gguf / the converter."""
    data = path.read_bytes()
    r = gguf_requant._Reader(data)
    r.pos = 4
    _, n_tensors, n_kv = r.take("I"), r.take("Q"), r.take("Q")
    file_type = None
    for _ in range(n_kv):
        key, kind = r.string(), r.take("I")
        if key == "general.file_type":
            file_type = struct.unpack_from("<I", data, r.pos)[0]
        r.skip_value(kind)
    infos = []
    for _ in range(n_tensors):
        name = r.string()
        dims = [r.take("Q") for _ in range(r.take("I"))]
        kind, offset = r.take("I"), r.take("Q")
        infos.append((name, int(np.prod(dims)), kind, offset))
    start = -(-r.pos // 32) * 32
    out = {}
    for name, count, kind, offset in infos:
        size, per = gguf_requant._TYPE_SIZE[kind]
        out[name] = (kind, data[start + offset: start + offset + count // per * size])
    return file_type, out


def test_q4_1_tensors_become_q8_0_with_the_same_values(tmp_path):
    rng = np.random.default_rng(7)
    raw, values = _q4_1_blocks(rng, 6)
    norm = np.linspace(-1, 1, 64, dtype=np.float32).tobytes()
    src = tmp_path / "in.gguf"
    src.write_bytes(_gguf([("blk.0.ffn_up.weight", [64, 3], gguf_requant.Q4_1, raw),
                           ("blk.0.attn_norm.weight", [64], 0, norm)]))
    counts = gguf_requant.requantize_q4_1_to_q8_0(src, tmp_path / "out.gguf")
    assert counts["converted"] == 1 and counts["tensors"] == 2

    file_type, tensors = _read(tmp_path / "out.gguf")
    assert file_type == gguf_requant.FTYPE_MOSTLY_Q8_0
    kind, q8 = tensors["blk.0.ffn_up.weight"]
    assert kind == gguf_requant.Q8_0
    blocks = np.frombuffer(q8, np.uint8).reshape(-1, 34)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    got = scale * blocks[:, 2:].copy().view(np.int8).astype(np.float32)
    step = np.abs(values).max(axis=1, keepdims=True) / 127
    assert np.all(np.abs(got - values) <= step * 0.51 + 1e-6)
    assert tensors["blk.0.attn_norm.weight"] == (0, norm)


def test_the_same_input_gives_the_same_bytes(tmp_path):
    raw, _ = _q4_1_blocks(np.random.default_rng(1), 4)
    src = tmp_path / "in.gguf"
    src.write_bytes(_gguf([("w", [128], gguf_requant.Q4_1, raw)]))
    gguf_requant.requantize_q4_1_to_q8_0(src, tmp_path / "a.gguf")
    gguf_requant.requantize_q4_1_to_q8_0(src, tmp_path / "b.gguf")
    assert (tmp_path / "a.gguf").read_bytes() == (tmp_path / "b.gguf").read_bytes()


def test_not_a_gguf_is_refused(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(gguf_requant.GGUFError, match="not a GGUF"):
        gguf_requant.requantize_q4_1_to_q8_0(bad, tmp_path / "out.gguf")
