"""``readingroom index`` and ``readingroom reindex``: files and folders into the library, one
document per transaction, with a progress line whose rate is the embedding's own."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ..aio import run as run_sync
from .base import SUFFIXES, CliError, open_library, say
from ..extract import why_unread
from ..ingest.add import NewDocument


def files_to_add(paths: list[str]) -> tuple[list[Path], list[tuple[Path, str]]]:
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
                    skipped.append((f, why_unread(f.suffix.lower().lstrip("."))))
        else:
            out.append(p)
    return out, skipped


class Progress:
    """The progress line. Its rate is chunks embedded per second of embedding: the clock runs
    from a file's "prepared" event (its text read and chunked) to its last chunk, so a
    large file's extraction does not count as embedding time."""

    def __init__(self, total_files: int, quiet: bool):
        self.total, self.quiet, self.chunks, self.secs = total_files, quiet, 0, 0.0
        self.started: float | None = None
        self.line_open = False  # a progress line is on screen without its newline

    def say(self, text: str) -> None:
        """A line of its own on stderr, after ending the progress line if one is open."""
        print(("\n" if self.line_open else "") + text, file=sys.stderr)
        self.line_open = False

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
        self.line_open = True


def cmd_index(args) -> int:
    lib = open_library(args.index, create=True)
    files, skipped = files_to_add(args.paths)
    for f, why in skipped:
        print(f"skipped: {f}: {why}", file=sys.stderr)
    failures = 0
    added = unchanged = chunks = 0
    t0 = time.perf_counter()
    progress = Progress(len(files), args.quiet)
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
                progress.say(f"error: {f}: {e.strerror or e}")
                failures += 1
                continue
            doc = NewDocument(name=name, data=data, doc_type=SUFFIXES.get(f.suffix.lower(), "txt"))
            [outcome] = run_sync(lib.add([doc], progress=progress, then=names[n:]))
            after = f.stat() if f.exists() else None
            if after is None or (after.st_mtime_ns, after.st_size) != (before.st_mtime_ns, before.st_size):
                progress.say(f"error: {f} changed while it was being indexed; run index again")
                failures += 1
            for note in outcome.notes:
                progress.say(f"note: {note}")
            if outcome.status == "error":
                progress.say(f"error: {outcome.error['message']}")
                failures += 1
            elif outcome.status == "unchanged":
                unchanged += 1
            else:
                added += 1
                chunks += outcome.chunks
        lib.index.set_unfinished([])  # the last file may have failed before its add
        pruned = prune(lib) if args.prune else 0
        kept = lib.index.keep_postings()
        if kept is not None and not args.quiet:
            progress.say(f"kept the postings of {kept['words']:,} common words for quick word search "
                         f"({kept['bytes'] / 1e6:.0f} MB, {kept['seconds']:.1f} s)")
    finally:
        lib.close()
    secs = time.perf_counter() - t0
    if progress.line_open:
        print("", file=sys.stderr)
    print(f"{added} indexed, {unchanged} unchanged, {pruned} pruned, {len(skipped)} skipped, {failures} failed; "
          f"{chunks} chunks in {secs:.1f} s ({chunks / max(secs, 1e-9):.1f} chunks/s)")
    return 1 if failures else 0


def prune(lib) -> int:
    gone = [d for d in lib.documents() if os.path.isabs(d.name) and not Path(d.name).exists()]
    for d in gone:
        lib.delete(d.id)
    return len(gone)


def cmd_reindex(args) -> int:
    lib = open_library(args.index)
    try:
        if not lib.index.mismatch and not args.force:
            print("the index already matches this model; nothing to do (--force re-embeds anyway)")
            return 0
        progress = Progress(0, args.quiet)
        t0 = time.perf_counter()
        done = run_sync(lib.reindex(progress=progress))
        if not args.quiet:
            print(file=sys.stderr)
        seconds = time.perf_counter() - t0
        print(f"re-embedded {done.chunks} chunks of {done.documents} documents in {seconds:.1f} s "
              f"({done.chunks / max(seconds, 1e-9):.1f} chunks/s)")
        if done.reason:
            say(done.reason)
    finally:
        lib.close()
    return 0
