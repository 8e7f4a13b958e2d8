"""The demo corpus bundled with the site: the Python language reference topics.

They ship with CPython itself (``pydoc_data.topics``, under the PSF licence, which allows
redistribution), so the app can answer questions on first open without the visitor adding
anything. ``python -m readingroom.demo OUT`` writes the index ``build.py`` bundles.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from .aio import run as run_sync
from .ingest import code_digest
from .ingest.add import NewDocument

SOURCE = "Python language reference (pydoc_data.topics, PSF licence)"


def documents() -> list[NewDocument]:
    from pydoc_data.topics import topics

    return [NewDocument(name=f"python-reference/{name}.txt", text=text, doc_type="txt",
                        meta={"source_type": "bundled", "source": SOURCE})
            for name, text in sorted(topics.items())]


def fingerprint() -> str:
    """The topics' text and the code that chunks them: the build's cached index of this
    corpus is made again when either changes."""
    h = hashlib.sha256()
    for d in documents():
        h.update(d.name.encode() + b"\0" + (d.text or "").encode() + b"\0")
    code_digest.update(h)
    return h.hexdigest()[:16]


def build(out: Path) -> Path:
    from .library import Library

    # Per-process scratch name: two builds at once (a test run beside a manual build) must
    # not write into each other's file; the last finished one wins the rename, whole.
    tmp = out.with_name(f"{out.stem}.{os.getpid()}.building")
    tmp.unlink(missing_ok=True)
    lib = Library.open(tmp)
    docs = documents()
    for i in range(0, len(docs), 10):
        run_sync(lib.add(docs[i : i + 10]))
        print(f"demo index: {min(i + 10, len(docs))}/{len(docs)} topics", file=sys.stderr, flush=True)
    lib.index.store.execute_script("VACUUM")
    lib.close()
    tmp.replace(out)
    return out


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--fingerprint":
        print(fingerprint())
    elif len(sys.argv) == 2:
        build(Path(sys.argv[1]))
    else:
        sys.exit("usage: python -m readingroom.demo OUT.sqlite | --fingerprint")
