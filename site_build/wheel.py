"""The readingroom wheel, built from py_src/ on every build (reproducible: fixed dates, sorted
entries).
"""

from __future__ import annotations

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

from .pins import BuildError, ROOT


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
