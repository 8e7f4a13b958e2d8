"""Run the CLI and SIGKILL it at a chosen moment, deterministically (for test_cli).

``python kill_cli.py between N ARGS...``: dies when the CLI starts reading file N+1, after
file N's transaction committed. ``python kill_cli.py during N ARGS...``: dies while file N+1
is in progress, its passages embedded but not stored. The kill is a real SIGKILL of this
process: no ``finally`` runs, as when a user kills the command or the machine stops.
"""

import os
import pathlib
import signal
import sys

from readingroom import cli, index

moment, n = sys.argv[1], int(sys.argv[2])
folder = pathlib.Path(sys.argv[-1]).resolve()  # only the files being indexed count
calls = {"read": 0, "store": 0}


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


pathlib.Path.read_bytes = reading
index.Index.replace_document = storing
sys.exit(cli.main(sys.argv[3:]))
