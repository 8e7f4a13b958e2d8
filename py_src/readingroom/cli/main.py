"""``readingroom``: the same engine in a terminal, over one index file per workspace, or a
shared library on Postgres (``--db postgresql://…``, or ``database`` in readingroom.toml).

Every failure is one line on stderr and a non-zero exit code; the index is only ever
changed one document per transaction, so an interrupted ``index`` can simply be re-run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from .. import reasons
from .. import workspace as _workspace
from ..aio import run as run_sync
from .ask import add_parser as add_ask_parser
from .base import DEFAULT_INDEX, CliError, open_library, say, use_workspace
from ..errors import BadInput, DatabaseUnavailable, ReadingRoomError
from .index import cmd_index, cmd_reindex
from ..ingest.add import NewDocument, document_hash, prepare
from ..store import describe, is_url, size_bytes


def _filters(args) -> dict:
    f: dict = {}
    if args.type:
        f["doc_types"] = args.type
    if args.doc:
        f["doc_names"] = [str(Path(d).resolve()) for d in args.doc]
    return f


def cmd_search(args) -> int:
    lib = open_library(args.index)
    try:
        opts = {"k": args.k, "filters": _filters(args)}
        r = run_sync(lib.retrieve(args.query, opts))
    except ReadingRoomError as e:
        raise CliError(str(e)) from e
    finally:
        lib.close()
    if args.json:
        print(json.dumps(r.to_dict(), ensure_ascii=False, indent=1))
        return 0
    if r.reason in (reasons.NO_DOCUMENTS, reasons.EMPTY_QUERY):
        say(r.reason)
        return 0
    if r.reason:
        print(f"note: {r.to_dict()['message']}", file=sys.stderr)
    if r.stats.get("meaning"):
        print(f"note: {r.stats['meaning']['message']} Run `index` again to embed them now.", file=sys.stderr)
    for i, s in enumerate(r.results, start=1):
        print(f"[{i}] {s.score:.4f}  {s.place}  (chunks {', '.join(map(str, s.chunk_ids))})")
        print("    " + " ".join(s.text.split())[:300])
    if not r.results:
        print("no results")
    return 0


def cmd_recall(args) -> int:
    lib = open_library(args.index)
    try:
        r = run_sync(lib.retrieve(args.query, {"budget": args.budget, "filters": _filters(args)}))
    finally:
        lib.close()
    if r.reason in (reasons.NO_DOCUMENTS, reasons.EMPTY_QUERY):
        say(r.reason)
    else:
        print(r.to_dict()["context"])
    return 0


def cmd_similar(args) -> int:
    lib = open_library(args.index)
    try:
        hits = lib.similar(args.chunk_id, args.k)
    finally:
        lib.close()
    if hits.reason:
        say(hits.reason)
        return 0
    if not hits:
        raise CliError(f"no chunk {args.chunk_id} in {args.index}")
    for h in hits:
        print(f"{h.chunk_id}\t{h.vector_sim:.4f}\t{h.doc_name}\t{' '.join(h.text.split())[:120]}")
    return 0


def cmd_status(args) -> int:
    lib = open_library(args.index)
    try:
        s = lib.status()
        stale = []
        for d in lib.documents():
            p = Path(d.name)
            if not p.exists():
                stale.append(f"missing: {d.name}")
            else:
                try:
                    doc = NewDocument(d.name, data=p.read_bytes(), doc_type=d.doc_type)
                    _, text, _ = prepare(doc, lib.chunking)
                    if document_hash(text, {}) != d.content_hash:
                        stale.append(f"changed: {d.name}")
                except (OSError, ReadingRoomError):
                    stale.append(f"unreadable: {d.name}")
    finally:
        lib.close()
    s.update(index=describe(args.index), size_bytes=size_bytes(args.index), stale=stale)
    if args.json:
        print(json.dumps(s, indent=1))
    else:
        print(f"index: {s['index']} ({s['size_bytes'] / 1e6:.1f} MB)\ndocuments: {s['documents']}\n"
              f"chunks: {s['chunks']}\nmodel: {s['model']['id']} ({s['model']['dim']}-d)")
        if s["reason"]:
            say(s["reason"])
        if s["mismatch"]:
            print(f"model mismatch: {s['mismatch']} (run `readingroom reindex`)")
        if s["unfinished"]:
            print(f"did not finish indexing (run `index` again): {', '.join(s['unfinished'])}")
        if s.get("pending"):
            print(f"{s['pending']['message']} Run `index` again to embed them now.")
        print(f"stale files: {len(stale)}" + "".join(f"\n  {x}" for x in stale))
    return 0


def cmd_init(args) -> int:
    if is_url(args.index):
        open_library(args.index, create=True).close()
        print(f"using library {describe(args.index)}")
        return 0
    existed = args.index.exists()
    open_library(args.index, create=True).close()
    print(f"{'using existing' if existed else 'created'} index {args.index}")
    return 0


def cmd_export(args) -> int:
    lib = open_library(args.index)
    out = Path(args.out)
    if out.exists():
        raise CliError(f"{out} exists; choose another name")
    try:
        if is_url(args.index):
            from ..store.export import to_sqlite

            to_sqlite(lib.index, out)  # one snapshot, written as the page's index file
        else:
            lib.index.store.query("VACUUM INTO ?", (str(out),))  # a consistent snapshot
    finally:
        lib.close()
    print(f"exported {describe(args.index)} to {out}")
    return 0


def cmd_import(args) -> int:
    src = Path(args.file)
    if not src.exists():
        raise CliError(f"{src}: no such file")
    if is_url(args.index):
        raise CliError("import replaces an index file; to fill a Postgres library, run `readingroom index` "
                       "with --db on the files", 2)
    if args.index.exists() and not args.force:
        raise CliError(f"{args.index} exists; pass --force to replace it")
    probe = open_library(src)
    try:
        if probe.index.mismatch:
            raise CliError(f"{src} was made by another model or chunker ({probe.index.mismatch})")
    finally:
        probe.close()
    args.index.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.index.with_suffix(".importing")
    shutil.copyfile(src, tmp)
    tmp.replace(args.index)
    print(f"imported {src} into {args.index}")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="readingroom", description="Search your documents, privately.")
    p.add_argument("--index", type=Path, default=None, help=f"index file (default {DEFAULT_INDEX})")
    p.add_argument("--db", help="the library: a Postgres URL (postgresql://user@host/db) or an index file")
    p.add_argument("--workspace", type=Path, help=f"workspace file (default ./{_workspace.FILE_NAME} if present)")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("init", help="create the index").set_defaults(fn=cmd_init)
    i = sub.add_parser("index", help="add or update files and folders")
    i.add_argument("paths", nargs="+")
    i.add_argument("--prune", action="store_true", help="remove documents whose files are gone")
    i.add_argument("--quiet", action="store_true")
    i.set_defaults(fn=cmd_index)
    for name, fn, help_ in (("search", cmd_search, "hybrid search"), ("recall", cmd_recall, "packed context for an LLM")):
        s = sub.add_parser(name, help=help_)
        s.add_argument("query")
        s.add_argument("--type", action="append", help="only this document type (md, txt, html, pdf, docx, pptx, xlsx, csv, epub, py ...)")
        s.add_argument("--doc", action="append", help="only this file")
        s.set_defaults(fn=fn)
        if name == "search":
            s.add_argument("--k", type=int, default=8)
            s.add_argument("--json", action="store_true")
        else:
            s.add_argument("--budget", type=int, default=1200)
    add_ask_parser(sub, open_library)
    from ..summarise.cli import add_parser as add_summarise_parser

    add_summarise_parser(sub, open_library)
    s = sub.add_parser("similar", help="chunks like a stored chunk")
    s.add_argument("chunk_id", type=int)
    s.add_argument("--k", type=int, default=8)
    s.set_defaults(fn=cmd_similar)
    s = sub.add_parser("status", help="documents, chunks, model, size, stale files")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_status)
    s = sub.add_parser("reindex", help="re-embed every chunk with this model (after a model change)")
    s.add_argument("--force", action="store_true", help="even when the index already matches")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(fn=cmd_reindex)
    s = sub.add_parser("export", help="write a consistent copy of the index")
    s.add_argument("out")
    s.set_defaults(fn=cmd_export)
    s = sub.add_parser("import", help="replace the index with an exported one")
    s.add_argument("file")
    s.add_argument("--force", action="store_true")
    s.set_defaults(fn=cmd_import)
    from ..serve.cli import add_parser as add_serve_parser

    add_serve_parser(sub, open_library)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        ws = _workspace.load(args.workspace)
    except BadInput as e:
        print(f"readingroom: {e}", file=sys.stderr)
        return 2
    use_workspace(ws)
    args.index = ws.location(args.db, args.index, DEFAULT_INDEX)
    try:
        return args.fn(args)
    except DatabaseUnavailable as e:
        print(f"readingroom: {e}", file=sys.stderr)
        return 2
    except CliError as e:
        print(f"readingroom: {e}", file=sys.stderr)
        return e.code
    except ReadingRoomError as e:
        print(f"readingroom: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("readingroom: interrupted; what was indexed is kept, run the same command again", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
