"""``readingroom summarise FILE… [--compare] [--json]``, and how a whole-document answer prints
(``readingroom ask`` routes such questions here too): the outline under each document's
headings, every sentence verbatim with its ``[n]``; for a comparison, the paired points side by
side and what only one document says.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..aio import run as run_sync
from . import outline
from .route import COMPARE, SUMMARY, _resolve
from .run import doc_refs


def _flat(text: str) -> str:
    return " ".join(text.split())


def print_summary(d: dict, out=sys.stdout) -> None:
    if d.get("message"):
        print(d["message"], file=out)
    s = d.get("summary") or {}
    by_n = {p["n"]: p for b in s.get("documents", []) for sec in b["sections"] for p in sec["points"]}
    for b in s.get("documents", []):
        print("", file=out)
        for line in outline.as_text({**b, "message": None}):
            print(line, file=out)
    c = s.get("comparison")
    if c:
        names = {b["doc_id"]: b["doc_name"] for b in s["documents"]}
        print(f"\nBoth say ({names.get(c['a'])} | {names.get(c['b'])}):", file=out)
        for p in c["pairs"]:
            print(f"  - {_flat(by_n[p['a']]['text'])} [{p['a']}]", file=out)
            print(f"    ~ {_flat(by_n[p['b']]['text'])} [{p['b']}]", file=out)
        for key, doc in (("only_a", c["a"]), ("only_b", c["b"])):
            print(f"\nOnly {names.get(doc)}:", file=out)
            for n in c[key]:
                print(f"  - {_flat(by_n[n]['text'])} [{n}]", file=out)


def _ids(lib, files: list[str]) -> tuple[list[int], list[str]]:
    """The stored documents the arguments name (a path as indexed, or a name or title);
    and a sentence for each that names none or several."""
    docs = {d.name: d.id for d in lib.documents()}
    refs = doc_refs(lib.index)
    ids, problems = [], []
    for f in files:
        path = str(Path(f).resolve())
        if path in docs or f in docs:
            ids.append(docs.get(path, docs.get(f)))
            continue
        one, several = _resolve(f, refs)
        if one is not None:
            ids.append(one.id)
        elif several:
            problems.append(f"{f} names several documents: {', '.join(c.name for c in several)}")
        else:
            problems.append(f"{f} is not in this library; index it first (readingroom index {f})")
    return ids, problems


def cmd_summarise(args, open_library) -> int:
    lib = open_library(args.index)
    try:
        ids, problems = _ids(lib, args.files)
        for p in problems:
            print(f"readingroom: {p}", file=sys.stderr)
        if problems:
            return 1
        options = {"kind": COMPARE if args.compare else SUMMARY}
        if args.length:
            options["length"] = args.length
        d = run_sync(lib.summarise(ids, options)).to_dict()
        if args.json:
            print(json.dumps(d, ensure_ascii=False, indent=1))
        else:
            print_summary(d)
        return 0
    finally:
        lib.close()


def add_parser(sub, open_library) -> None:
    s = sub.add_parser("summarise", aliases=["summarize"],
                       help="an outline of each file's most representative sentences, or a comparison")
    s.add_argument("files", nargs="+", metavar="FILE", help="indexed files (a path, a name or a title)")
    s.add_argument("--compare", action="store_true", help="two files side by side")
    s.add_argument("--length", type=int, help="sentences per document (default: by its length)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=lambda args: cmd_summarise(args, open_library))
