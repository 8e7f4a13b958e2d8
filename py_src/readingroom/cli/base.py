"""What every ``readingroom`` command shares: the error a command ends with, the workspace
(readingroom.toml) the command line chose, and the library it opens."""

from __future__ import annotations

from pathlib import Path

from .. import reasons
from .. import workspace as _workspace
from ..errors import ReadingRoomError
from ..extract import FORMATS
from ..store import describe, is_url

DEFAULT_INDEX = Path(".readingroom") / "index.sqlite"
SUFFIXES = {f".{ext}": t for ext, t in FORMATS.items()}


class CliError(Exception):
    """A message for the user and an exit code."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


_WORKSPACE = _workspace.Workspace()  # readingroom.toml, set by ``cli.main`` (use_workspace)


def use_workspace(ws: _workspace.Workspace) -> None:
    global _WORKSPACE
    _WORKSPACE = ws


def open_library(index: Path | str, create: bool = False):
    """The library at ``index`` (a file, or a Postgres URL), with the workspace's settings."""
    from ..library import Library

    shown = describe(index)
    if not is_url(index):
        if not create and not index.exists():
            raise CliError(f"no index at {index}; run `readingroom init` (or pass --index or --db)", 2)
        index.parent.mkdir(parents=True, exist_ok=True)
    try:
        lib = Library.open(index, model_dir=_WORKSPACE.model_dir)
    except ReadingRoomError as e:
        raise CliError(f"cannot open {shown}: {e}", 2) from e
    lib.chunking = _WORKSPACE.chunking
    lib.defaults = dict(_WORKSPACE.search)
    return lib


def say(reason: str | None) -> None:
    """A read that came back empty for a reason: the sentence, and for an empty workspace
    what to run next. Not an error (exit 0): the workspace is fine, only empty."""
    print(reasons.message(reason))
    if reason == reasons.NO_DOCUMENTS:
        print("Index some files with: python3 -m readingroom index FILE_OR_FOLDER ...")
