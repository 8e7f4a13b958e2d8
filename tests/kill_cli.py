"""Run the CLI and SIGKILL it at a chosen moment, deterministically (for test_cli).

``python kill_cli.py between N ARGS...``: dies when the CLI starts reading file N+1, after
file N's transactions committed. ``python kill_cli.py during N ARGS...``: dies while file N+1
is in progress, read and chunked but not stored. ``python kill_cli.py half N ARGS...``: dies
while file N+1 is half-embedded: its words stored, one passage per batch, the first batch's
vector written and the second about to be. The kill is a real SIGKILL of this
process: no ``finally`` runs, as when a user kills the command or the machine stops.
"""

import os
import pathlib
import signal
import sys

from readingroom.cli import main as cli
from readingroom.ingest import add as ingest
from readingroom.store import index

moment, n = sys.argv[1], int(sys.argv[2])
folder = pathlib.Path(sys.argv[-1]).resolve()  # only the files being indexed count
calls = {"read": 0, "store": 0, "vectors": 0}


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


read_bytes = pathlib.Path.read_bytes
replace_document = index.Index.replace_document


def reading(self):
    if self.resolve().parent == folder:
        calls["read"] += 1
        if moment == "between" and calls["read"] == n + 1:
            die()
    return read_bytes(self)


def storing(self, **kw):
    calls["store"] += 1
    if moment == "during" and calls["store"] == n + 1:
        die()
    return replace_document(self, **kw)


store_vectors = index.Index.store_vectors


def embedding(self, ids, vectors):
    if calls["store"] == n + 1:  # file N+1's words are stored; these are its vectors
        calls["vectors"] += 1
        if moment == "half" and calls["vectors"] == 2:
            die()
    return store_vectors(self, ids, vectors)


if moment == "half":
    ingest.EMBED_BATCH = 1
pathlib.Path.read_bytes = reading
index.Index.replace_document = storing
index.Index.store_vectors = embedding
sys.exit(cli.main(sys.argv[3:]))
