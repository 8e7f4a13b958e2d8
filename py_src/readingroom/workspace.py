"""A workspace file, ``readingroom.toml``, that the CLI and ``serve`` read: where the library
lives (an index file or a Postgres URL), the model's folder, the chunk size and the search
settings (fusion, weights, ...). Every key is optional; an unknown key or a wrong value is a
``BadInput`` naming the file and the key.

    database = "postgresql://reader@db.example/library"   # or "notes.sqlite"
    model_dir = "/opt/models/all-MiniLM-L6-v2"
    chunk_tokens = 200
    chunk_overlap = 30

    [search]              # any retrieval option (see Options), as JSON would give it
    weights = [1.0, 2.0]
    fusion = "rrf"
    ef_search = 600
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .ingest.chunking import ChunkSettings
from .errors import BadInput
from .search.options import Options
from .store import is_url

FILE_NAME = "readingroom.toml"
_KEYS = {"database", "model_dir", "chunk_tokens", "chunk_overlap", "search"}


@dataclass(frozen=True)
class Workspace:
    path: Path | None = None  # the file read, if any
    database: str | None = None  # a URL, or an index file's path (relative to the file's folder)
    model_dir: str | None = None
    chunking: ChunkSettings = ChunkSettings()
    search: dict = field(default_factory=dict)

    def location(self, db: str | None, index: Path | None, default: Path) -> str | Path:
        """Where the library is: ``--db``, else ``--index``, else the file's ``database``,
        else ``default``."""
        if db:
            return db if is_url(db) else Path(db)
        if index is not None:
            return index
        if self.database:
            return self.database if is_url(self.database) else Path(self.database)
        return default


def load(path: str | Path | None = None, cwd: Path | None = None) -> Workspace:
    """The workspace file at ``path``, or ``readingroom.toml`` in ``cwd`` if there is one."""
    if path is None:
        found = (cwd or Path.cwd()) / FILE_NAME
        if not found.exists():
            return Workspace()
        path = found
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise BadInput(f"{path}: no such workspace file") from e
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read it ({e})") from e
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{path} is not valid TOML: {e}") from e
    unknown = set(data) - _KEYS
    if unknown:
        raise BadInput(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(_KEYS))}")

    def text(key: str) -> str | None:
        v = data.get(key)
        if v is not None and not isinstance(v, str):
            raise BadInput(f"{path}: {key} must be a string")
        return v

    database = text("database")
    if database and not is_url(database):
        database = str((path.parent / database).resolve())
    model_dir = text("model_dir")
    if model_dir:
        model_dir = str((path.parent / model_dir).resolve())
    defaults = ChunkSettings()
    chunk = {}
    for key, attr in (("chunk_tokens", "target_tokens"), ("chunk_overlap", "overlap_tokens")):
        v = data.get(key, getattr(defaults, attr))
        if not isinstance(v, int) or isinstance(v, bool) or v < (16 if key == "chunk_tokens" else 0):
            raise BadInput(f"{path}: {key} must be a whole number (at least 16 for chunk_tokens)")
        chunk[attr] = v
    if chunk["overlap_tokens"] >= chunk["target_tokens"]:
        raise BadInput(f"{path}: chunk_overlap must be smaller than chunk_tokens")
    search = data.get("search", {})
    if not isinstance(search, dict):
        raise BadInput(f"{path}: [search] must be a table of retrieval options")
    try:
        Options.from_dict(search)  # checked now, so a typo is found before any work
    except BadInput as e:
        raise BadInput(f"{path} [search]: {e}") from e
    return Workspace(path, database, model_dir, ChunkSettings(**chunk), dict(search))
