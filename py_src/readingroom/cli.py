"""``readingroom``: the same engine in a terminal, over one index file per workspace, or a
shared library on Postgres (``--db postgresql://…``, or ``database`` in readingroom.toml).

Every failure is one line on stderr and a non-zero exit code; the index is only ever
changed one document per transaction, so an interrupted ``index`` can simply be re-run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from . import reasons
from .aio import run as run_sync
from .ask_cli import add_parser as add_ask_parser
from .errors import BadInput, DatabaseUnavailable, ReadingRoomError
from .extract import FORMATS, SUPPORTED
from .ingest import NewDocument, document_hash, prepare
from .store import describe, is_url, size_bytes
from . import workspace as _workspace

DEFAULT_INDEX = Path(".readingroom") / "index.sqlite"
SUFFIXES = {f".{ext}": t for ext, t in FORMATS.items()}


class CliError(Exception):
    """A message for the user and an exit code."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


_WORKSPACE = _workspace.Workspace()  # readingroom.toml, read by ``main``


def _open(index: Path | str, create: bool = False):
    """The library at ``index`` (a file, or a Postgres URL), with the workspace's settings."""
    from .library import Library

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


def _files(paths: list[str]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The files to add, and the files of a folder that will not be, each with its reason
    (hidden files and folders are left out without a word, as a shell's ``*`` does)."""
    out: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for p in map(Path, paths):
        if not p.exists():
            raise CliError(f"{p}: no such file or folder")
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if not f.is_file() or any(part.startswith(".") for part in f.relative_to(p).parts):
                    continue
                if f.suffix.lower() in SUFFIXES:
                    out.append(f)
                else:
                    kind = f"{f.suffix.lower()} files" if f.suffix else "files without an extension"
                    skipped.append((f, f"{kind} are not read (Reading Room reads {SUPPORTED})"))
        else:
            out.append(p)
    return out, skipped


class _Progress:
    """The progress line. Its rate is chunks embedded per second of embedding: the clock runs
    from a file's "prepared" event (its text read and chunked) to its last chunk, so a
    large file's extraction does not count as embedding time."""

    def __init__(self, total_files: int, quiet: bool):
        self.total, self.quiet, self.chunks, self.secs = total_files, quiet, 0, 0.0
        self.started: float | None = None

    def __call__(self, event: dict) -> None:
        now = time.perf_counter()
        if event.get("event") == "prepared":
            self.started = now
            return
        if event.get("event") != "chunks":
            return
        running = now - self.started if self.started is not None else 0.0
        rate = (self.chunks + event["done"]) / max(1e-9, self.secs + running)
        if event["done"] == event["total"]:
            self.chunks += event["total"]
            self.secs += running
            self.started = now  # the next file of the same batch runs from here
        if self.quiet:
            return
        if event.get("event") == "chunks":
            line = f"  {event['name'][-50:]}: {event['done']}/{event['total']} chunks"
        else:
            return
        print(f"\r{line}  [{rate:.1f} chunks/s]".ljust(90), end="", file=sys.stderr, flush=True)


def cmd_index(args) -> int:
    lib = _open(args.index, create=True)
    files, skipped = _files(args.paths)
    for f, why in skipped:
        print(f"skipped: {f}: {why}", file=sys.stderr)
    failures = 0
    added = unchanged = chunks = 0
    t0 = time.perf_counter()
    progress = _Progress(len(files), args.quiet)
    names = [str(f.resolve()) for f in files]
    try:
        # The whole run's to-do list is recorded before the first file and shrinks with each
        # document's own transaction: a kill at any moment leaves `status` naming every file
        # not yet indexed, not only the one in progress.
        lib.index.set_unfinished(names)
        for n, (f, name) in enumerate(zip(files, names), start=1):
            try:
                before = f.stat()
                data = f.read_bytes()
            except OSError as e:
                print(f"\nerror: {f}: {e.strerror or e}", file=sys.stderr)
                failures += 1
                continue
            doc = NewDocument(name=name, data=data, doc_type=SUFFIXES.get(f.suffix.lower(), "txt"))
            [outcome] = run_sync(lib.add([doc], progress=progress, then=names[n:]))
            after = f.stat() if f.exists() else None
            if after is None or (after.st_mtime_ns, after.st_size) != (before.st_mtime_ns, before.st_size):
                print(f"\nerror: {f} changed while it was being indexed; run index again", file=sys.stderr)
                failures += 1
            for note in outcome.notes:
                print(f"\nnote: {note}", file=sys.stderr)
            if outcome.status == "error":
                print(f"\nerror: {outcome.error['message']}", file=sys.stderr)
                failures += 1
            elif outcome.status == "unchanged":
                unchanged += 1
            else:
                added += 1
                chunks += outcome.chunks
        lib.index.set_unfinished([])  # the last file may have failed before its add
        pruned = _prune(lib) if args.prune else 0
    finally:
        lib.close()
    secs = time.perf_counter() - t0
    if not args.quiet:
        print("", file=sys.stderr)
    print(f"{added} indexed, {unchanged} unchanged, {pruned} pruned, {len(skipped)} skipped, {failures} failed; "
          f"{chunks} chunks in {secs:.1f} s ({chunks / max(secs, 1e-9):.1f} chunks/s)")
    return 1 if failures else 0


def _prune(lib) -> int:
    gone = [d for d in lib.documents() if os.path.isabs(d.name) and not Path(d.name).exists()]
    for d in gone:
        lib.delete(d.id)
    return len(gone)


def _say(reason: str | None) -> None:
    """A read that came back empty for a reason: the sentence, and for an empty workspace
    what to run next. Not an error (exit 0): the workspace is fine, only empty."""
    print(reasons.message(reason))
    if reason == reasons.NO_DOCUMENTS:
        print("Index some files with: python3 -m readingroom index FILE_OR_FOLDER ...")


def _filters(args) -> dict:
    f: dict = {}
    if args.type:
        f["doc_types"] = args.type
    if args.doc:
        f["doc_names"] = [str(Path(d).resolve()) for d in args.doc]
    return f


def cmd_search(args) -> int:
    lib = _open(args.index)
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
        _say(r.reason)
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
    lib = _open(args.index)
    try:
        r = run_sync(lib.retrieve(args.query, {"budget": args.budget, "filters": _filters(args)}))
    finally:
        lib.close()
    if r.reason in (reasons.NO_DOCUMENTS, reasons.EMPTY_QUERY):
        _say(r.reason)
    else:
        print(r.to_dict()["context"])
    return 0


def cmd_similar(args) -> int:
    lib = _open(args.index)
    try:
        hits = lib.similar(args.chunk_id, args.k)
    finally:
        lib.close()
    if hits.reason:
        _say(hits.reason)
        return 0
    if not hits:
        raise CliError(f"no chunk {args.chunk_id} in {args.index}")
    for h in hits:
        print(f"{h.chunk_id}\t{h.vector_sim:.4f}\t{h.doc_name}\t{' '.join(h.text.split())[:120]}")
    return 0


def cmd_status(args) -> int:
    lib = _open(args.index)
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
            _say(s["reason"])
        if s["mismatch"]:
            print(f"model mismatch: {s['mismatch']} (run `readingroom reindex`)")
        if s["unfinished"]:
            print(f"did not finish indexing (run `index` again): {', '.join(s['unfinished'])}")
        if s.get("pending"):
            print(f"{s['pending']['message']} Run `index` again to embed them now.")
        print(f"stale files: {len(stale)}" + "".join(f"\n  {x}" for x in stale))
    return 0


def cmd_reindex(args) -> int:
    lib = _open(args.index)
    try:
        if not lib.index.mismatch and not args.force:
            print("the index already matches this model; nothing to do (--force re-embeds anyway)")
            return 0
        progress = _Progress(0, args.quiet)
        t0 = time.perf_counter()
        done = run_sync(lib.reindex(progress=progress))
        if not args.quiet:
            print(file=sys.stderr)
        seconds = time.perf_counter() - t0
        print(f"re-embedded {done.chunks} chunks of {done.documents} documents in {seconds:.1f} s "
              f"({done.chunks / max(seconds, 1e-9):.1f} chunks/s)")
        if done.reason:
            _say(done.reason)
    finally:
        lib.close()
    return 0


def cmd_init(args) -> int:
    if is_url(args.index):
        _open(args.index, create=True).close()
        print(f"using library {describe(args.index)}")
        return 0
    existed = args.index.exists()
    _open(args.index, create=True).close()
    print(f"{'using existing' if existed else 'created'} index {args.index}")
    return 0


def cmd_export(args) -> int:
    lib = _open(args.index)
    out = Path(args.out)
    if out.exists():
        raise CliError(f"{out} exists; choose another name")
    try:
        if is_url(args.index):
            from .store.export import to_sqlite

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
    probe = _open(src)
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
    add_ask_parser(sub, _open)
    from .summarise.cli import add_parser as add_summarise_parser

    add_summarise_parser(sub, _open)
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
    from .serve.cli import add_parser as add_serve_parser

    add_serve_parser(sub, _open)
    return p


def main(argv: list[str] | None = None) -> int:
    global _WORKSPACE
    args = parser().parse_args(argv)
    try:
        _WORKSPACE = _workspace.load(args.workspace)
    except BadInput as e:
        print(f"readingroom: {e}", file=sys.stderr)
        return 2
    args.index = _WORKSPACE.location(args.db, args.index, DEFAULT_INDEX)
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
