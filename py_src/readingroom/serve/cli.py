"""``readingroom serve`` and ``readingroom token``: the API over this workspace's library."""

from __future__ import annotations

import sys
from pathlib import Path

DEFAULT_TOKENS = Path(".readingroom") / "tokens.json"


def add_parser(sub, open_library) -> None:
    s = sub.add_parser("serve", help="the library over HTTP for a team (bearer tokens)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8765)
    s.add_argument("--tokens", type=Path, default=DEFAULT_TOKENS, help=f"token file (default {DEFAULT_TOKENS})")
    s.add_argument("--cors-origin", action="append", default=[],
                   help="a page origin allowed to call the API from a browser (none by default)")
    s.add_argument("--max-body", type=int, default=None, help="largest request in bytes (default 16 MiB)")
    s.add_argument("--rate", type=float, default=None, help="requests per minute per token (default 1200)")
    s.add_argument("--threads", type=int, default=None, help="library calls at once (default 4 on Postgres)")
    s.set_defaults(fn=lambda args: cmd_serve(args, open_library))
    t = sub.add_parser("token", help="make, list or revoke serve's bearer tokens")
    t.add_argument("action", choices=["add", "list", "revoke"])
    t.add_argument("name", nargs="?")
    t.add_argument("--write", action="store_true", help="the token may add and delete documents")
    t.add_argument("--tokens", type=Path, default=DEFAULT_TOKENS)
    t.set_defaults(fn=cmd_token)


def cmd_token(args) -> int:
    from ..errors import BadInput
    from .tokens import TokenFile

    args.tokens.parent.mkdir(parents=True, exist_ok=True)
    tokens = TokenFile(args.tokens)
    if args.action == "list":
        for t in tokens.tokens:
            print(f"{t.name}\t{t.access}")
        return 0
    if not args.name:
        raise BadInput(f"token {args.action} needs a name")
    if args.action == "add":
        print(tokens.add(args.name, args.write))
        print(f"(shown once; {args.tokens} keeps only its hash)", file=sys.stderr)
        return 0
    if not tokens.revoke(args.name):
        raise BadInput(f"no token named {args.name!r}")
    return 0


def cmd_serve(args, open_library) -> int:
    import uvicorn

    from ..errors import BadInput
    from .app import Config, make_app
    from .tokens import TokenFile

    tokens = TokenFile(args.tokens)
    if not tokens.tokens:
        raise BadInput(f"no tokens in {args.tokens}: make one with `readingroom token add NAME [--write]`")
    defaults = Config()
    config = Config(max_body=args.max_body or defaults.max_body, rate_per_minute=args.rate or defaults.rate_per_minute,
                    cors_origins=tuple(args.cors_origin), threads=args.threads or defaults.threads)
    library = open_library(args.index)
    try:
        uvicorn.run(make_app(library, tokens, config), host=args.host, port=args.port, log_level="warning",
                    limit_concurrency=256, timeout_graceful_shutdown=5)
    finally:
        library.close()
    return 0
