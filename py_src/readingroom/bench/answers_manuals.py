"""``bench answers --set manuals``: questions over real PDFs that nobody here wrote.

Five R manuals from Debian's ``r-doc-pdf`` (``/usr/share/doc/r-doc-pdf/manual``; ``build.py
test`` installs the package) are indexed natively through the same ingestion as ``readingroom
index`` (extraction, the PDF clean-up, chunking, embedding) and cached by the files' bytes and
the code that reads them. The questions (``data/answers/manuals.json``) are asked through
``Library.ask`` and scored as the Python-reference sets are (``answer_scores``). A ``--limit``ed
run indexes only the manuals its questions name (the whole set names all five), and says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from ..aio import run as run_sync
from ..ingest import code_digest
from . import answer_scores as sc
from .stats import load_average as load

DATA = Path(__file__).resolve().parent / "data" / "answers" / "manuals.json"
MANUAL_DIR = Path(os.environ.get("READINGROOM_R_MANUALS", "/usr/share/doc/r-doc-pdf/manual"))
MANUALS = ("R-intro.pdf", "R-data.pdf", "R-FAQ.pdf", "R-lang.pdf", "R-admin.pdf")
PREFIX = "r-manuals/"  # the documents' names in the index, as the questions' expected_topics give them


class ManualsMissing(RuntimeError):
    """The R manuals are not on this machine."""


def load_items() -> list[dict]:
    return json.loads(DATA.read_text("utf-8"))["items"]


def named(items: list[dict]) -> list[str]:
    """The manuals these questions name, in ``MANUALS`` order."""
    want = {t.removeprefix(PREFIX) for it in items for t in it["expected_topics"]}
    return [m for m in MANUALS if m in want]


def manual_files(folder: Path = MANUAL_DIR, names: tuple[str, ...] | list[str] = MANUALS) -> list[Path]:
    files = [folder / m for m in names]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise ManualsMissing(f"the R manuals are not in {folder} ({', '.join(missing)} missing): install Debian's "
                             "r-doc-pdf (apt-get install r-doc-pdf) or set READINGROOM_R_MANUALS to their folder")
    return files


def fingerprint(files: list[Path]) -> str:
    """The manuals' bytes and the source of everything that turns them into chunks."""
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
    code_digest.update(h)
    return h.hexdigest()[:16]


def build_index(log: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
                names: tuple[str, ...] | list[str] = MANUALS) -> tuple[Path, dict]:
    """The cached native index of these manuals, built once for these files and this code."""
    from ..ingest.add import NewDocument
    from ..library import Library
    from .quality import cache_dir

    files = manual_files(names=names)
    final = cache_dir() / f"r-manuals-{fingerprint(files)}.sqlite"
    if final.exists():
        return final, {"cached": True}
    tmp = final.with_name(f"{final.stem}.{os.getpid()}.building")
    tmp.unlink(missing_ok=True)
    lib = Library.open(tmp)
    t0 = time.perf_counter()
    chunks = 0
    try:
        for f in files:
            out = run_sync(lib.add([NewDocument(name=PREFIX + f.name, data=f.read_bytes(), doc_type="pdf")]))
            chunks += sum(o.chunks for o in out)
            log(f"  indexed {f.name}: {chunks} chunks so far, {chunks / (time.perf_counter() - t0):.1f} chunks/s")
    except BaseException:
        lib.close()
        tmp.unlink(missing_ok=True)  # a half-built index is never cached, nor left behind
        raise
    lib.close()
    shutil.move(tmp, final)
    seconds = time.perf_counter() - t0
    return final, {"cached": False, "chunks": chunks, "seconds": round(seconds, 1)}


def evaluate(limit: int | None = None, log: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> dict:
    """Each question asked once through ``Library.ask``; the same figures as the reference sets."""
    from ..library import Library
    from .answers import ask_answerable, native_asker, scratch_copy, warm_up

    items = load_items()[:limit] if limit else load_items()
    manuals = named(items)
    try:
        path, built = build_index(log, manuals)
    except ManualsMissing as e:
        return {"error": str(e)}
    with tempfile.TemporaryDirectory(prefix="rr-manuals-") as tmp:
        lib = Library.open(scratch_copy(path, Path(tmp)))
        try:
            ask = native_asker(lib)
            warm_up(ask)
            l0 = load()
            rs, out = ask_answerable(ask, items)
            out.update(records=rs, load=[l0, load()], chunks=lib.status().get("chunks"), index=built,
                       manuals=manuals, partial=len(manuals) < len(MANUALS),
                       latency_ms=sc.latency(rs))
        finally:
            lib.close()
    log(f"  R manuals: {len(rs)} asked (load {out['load'][0][0]:.1f}→{out['load'][1][0]:.1f})")
    return out
