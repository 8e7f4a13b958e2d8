"""Bearer tokens for ``serve``, kept only as SHA-256 hashes in a JSON file.

A token is 32 random bytes (``secrets.token_urlsafe``), shown once when it is made; the file
holds its name, its hash and whether it may write. 256 random bits need no slow hash: a
stolen file gives nothing to guess from. Comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..errors import BadInput

READ, WRITE = "read", "read-write"
PREFIX = "rr_"


@dataclass(frozen=True)
class Token:
    name: str
    digest: str
    access: str  # READ or WRITE

    @property
    def writes(self) -> bool:
        return self.access == WRITE


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenFile:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.tokens = self._read()

    def _read(self) -> list[Token]:
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [Token(t["name"], t["sha256"], t["access"]) for t in data["tokens"]]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise BadInput(f"{self.path} is not a token file ({e}); make tokens with `readingroom token add`") from e

    def _write(self) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps({"tokens": [{"name": t.name, "sha256": t.digest, "access": t.access}
                                              for t in self.tokens]}, indent=1), encoding="utf-8")
        os.chmod(tmp, 0o600)
        tmp.replace(self.path)

    def add(self, name: str, writes: bool) -> str:
        """A new token named ``name``; returns it (it is not stored, only its hash)."""
        if not name or any(t.name == name for t in self.tokens):
            raise BadInput(f"a token needs a new name; {name!r} is empty or taken")
        token = PREFIX + secrets.token_urlsafe(32)
        self.tokens.append(Token(name, digest(token), WRITE if writes else READ))
        self._write()
        return token

    def revoke(self, name: str) -> bool:
        kept = [t for t in self.tokens if t.name != name]
        found = len(kept) != len(self.tokens)
        self.tokens = kept
        self._write()
        return found

    def find(self, token: str) -> Token | None:
        d = digest(token)
        found = None
        for t in self.tokens:  # every entry compared, in constant time each
            if hmac.compare_digest(t.digest, d):
                found = t
        return found
