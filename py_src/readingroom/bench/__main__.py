"""``python -m readingroom.bench``: quality, latency, ingestion and a peer comparison.

    quality --data DIR --split SPLIT --json OUT [--browser | --native] [--embed-in-browser]
    latency --chunks N [--chunks M] --json OUT
    ingest [--docs N] [--pdf-pages P] [--browser | --native] --json OUT
    ingest --formats [--browser | --native] --json OUT   pages (slides, sheets) per second per format
    layout [PDF ...] [--json OUT]                        layout noise in PDF chunks, before and after
    embedding [--texts N] [--rounds R] --json OUT     thread set-ups side by side (A/B interleaved)
    peer --json OUT
    answers [--native | --browser] [--set answerable,paraphrased,followups,unanswerable,scifact,manuals] [--limit N]
            [--llm URL] --json OUT

Every command prints its figures, writes them to the JSON file with machine info, and
writes a Markdown report with charts under bench-results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from . import beir, qa_data, quality

DEFAULT_DATA = Path(__file__).resolve().parents[4] / "shared" / "datasets" / "scifact"


def machine() -> dict:
    import numpy

    info = {"cpus": os.cpu_count(), "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "platform": platform.platform(), "numpy": numpy.__version__,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    for mod in ("apsw", "onnxruntime", "tokenizers"):
        try:
            info[mod] = __import__(mod).__version__ if mod != "apsw" else __import__(mod).apsw_version()
        except Exception:  # noqa: BLE001 - informative only
            pass
    return info


def main(argv: list[str] | None = None) -> int:
    if (argv if argv is not None else sys.argv[1:])[:1] == ["summaries"]:  # its own options
        from . import summaries

        return summaries.main((argv if argv is not None else sys.argv[1:])[1:])
    p = argparse.ArgumentParser(prog="python -m readingroom.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("quality", help="nDCG/Recall/MRR for lexical, vector, hybrid")
    q.add_argument("--data", type=Path, default=DEFAULT_DATA)
    q.add_argument("--split", default="train")
    side = q.add_mutually_exclusive_group()
    side.add_argument("--browser", action="store_true", help="only the in-browser run")
    side.add_argument("--native", action="store_true", help="only the native run")
    q.add_argument("--embed-in-browser", action="store_true", help="embed the corpus in the browser instead of importing the native index")
    lat = sub.add_parser("latency", help="hot path, start-up")
    lat.add_argument("--chunks", type=int, action="append", help="index sizes (repeatable); default 20000 and 100000")
    lat.add_argument("--queries", type=int, default=120)
    lat.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite",
                     help="postgres: a shared library on Postgres + pgvector, directly and through serve")
    lat.add_argument("--db", default=None, help="with --store postgres: an empty database's URL (default: start one)")
    lat.add_argument("--vectors", choices=["mixed", "jitter"], default="mixed",
                     help="with --store postgres: each copy's vectors, distinct blends of the real ones (mixed) or "
                          "near-twins of them (jitter; bench/corpus.py copy_vectors)")
    lat.add_argument("--startup-only", action="store_true", help="only cold first visit and warm reload")
    lat.add_argument("--startup-reps", type=int, default=1, help="cold+warm visits (medians reported)")
    lat.add_argument("--no-startup", action="store_true", help="only the index sizes (no cold/warm visits)")
    lat.add_argument("--corpus", choices=["repeated", "natural"], default="repeated",
                     help="repeated: SciFact copied to each size; natural: generated passages with natural "
                          "term statistics, calibrated on SciFact (bench/natural.py)")
    ing = sub.add_parser("ingest", help="chunks/s in the browser and natively")
    ing.add_argument("--docs", type=int, default=200, help="SciFact abstracts to add (one document each)")
    ing.add_argument("--pdf-pages", type=int, default=200, help="pages of the generated PDF (0: none)")
    ing_side = ing.add_mutually_exclusive_group()
    ing_side.add_argument("--browser", action="store_true", help="only the in-browser runs")
    ing_side.add_argument("--native", action="store_true", help="only the native run")
    ing.add_argument("--formats", action="store_true", help="per format (docx, pptx, xlsx, epub, pdf): units/s natively and in the page")
    lay = sub.add_parser("layout", help="layout noise in PDF chunks before and after the clean-up")
    lay.add_argument("pdfs", nargs="*", type=Path, help="PDFs (default: Debian r-doc-pdf's R manuals but the reference)")
    lay.add_argument("--json", type=Path, default=Path("bench-results/layout.json"))
    lay.add_argument("--browser", action="store_true", help="read the PDFs with pdf.js in the page")
    emb = sub.add_parser("embedding", help="embedding threads vs workers in the page, interleaved")
    emb.add_argument("--texts", type=int, default=96, help="SciFact chunk texts per round")
    emb.add_argument("--rounds", type=int, default=5)
    peer = sub.add_parser("peer", help="Orama and PGlite + pgvector side by side")
    peer.add_argument("--queries", type=int, default=None)
    peer.add_argument("--no-pglite", action="store_true", help="Orama only")
    peer.add_argument("--passages", type=int, default=None,
                      help="the corpus repeated to this many chunks (e.g. 100000), as bench latency does")
    ans = sub.add_parser("answers", help="quick answers, follow-ups, refusals, generated answers")
    ans_side = ans.add_mutually_exclusive_group()
    ans_side.add_argument("--browser", action="store_true", help="only through window.readingroom.ask in the page")
    ans_side.add_argument("--native", action="store_true", help="only through Library.ask natively")
    ans.add_argument("--set", default="answerable,paraphrased,conversation,followups,unanswerable,scifact",
                     help="comma-separated: answerable, paraphrased, conversation (those two asked one after "
                          "another), followups, unanswerable, scifact, manuals")
    ans.add_argument("--limit", type=int, default=None, help="at most N questions (or pairs, or claims) per set")
    ans.add_argument("--llm", default=None, help="an OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1")
    ans.add_argument("--llm-model", default=None, help="model name to send, if the server needs one")
    ans.add_argument("--llm-limit", type=int, default=20, help="answerable questions sent to each model")
    ans.add_argument("--qa-data", type=Path, default=None,
                     help="public QA sets (see docs/answer-model.md): adds the squad, wikiqa and heldback sets, natively")
    ans.add_argument("--public", default="squad,wikiqa,heldback",
                     help="which public sets, with --qa-data: squad, wikiqa, heldback (WikiQA/SelQA) and "
                          "heldback-NAME for the other training groups ("
                          + ", ".join(g for g in qa_data.TRAIN_GROUPS if g != "wiki") + ")")
    ans.add_argument("--chunks", type=int, default=None,
                     help="also time ask() in the page over an index of this many chunks (SciFact repeated, e.g. 20000)")
    for s in (q, lat, ing, emb, peer, ans):
        s.add_argument("--json", type=Path, required=True)
        s.add_argument("--no-build", action="store_true", help="use the existing dist/")
        s.add_argument("--report", type=Path, default=Path("bench-results"))
    lay.add_argument("--no-build", action="store_true", help="use the existing dist/")
    for s in (lat, ing, emb, peer, ans):
        s.add_argument("--data", type=Path, default=DEFAULT_DATA)
        s.add_argument("--split", default="train")
    args = p.parse_args(argv)

    results: dict = {"machine": machine(), "command": " ".join(sys.argv)}
    if args.cmd == "layout":
        from . import layout

        pdfs = args.pdfs or sorted(p for p in Path("/usr/share/R/doc/manual").glob("*.pdf") if "refman" not in p.name)
        if not pdfs:
            p.error("no PDFs given and none in /usr/share/R/doc/manual (apt-get install r-doc-pdf)")
        results["layout"] = layout.run(pdfs, browser=args.browser, rebuild=not args.no_build)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1))
        return 0
    if args.cmd == "ingest" and args.formats:
        from . import formats

        results["formats"] = formats.run(not args.no_build, native_side=not args.browser, browser_side=not args.native)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1))
        print(f"wrote {args.json}", file=sys.stderr)
        return 0
    if args.cmd == "answers":
        from . import answers

        try:
            sets = answers.parse_sets(args.set)
        except ValueError as e:
            p.error(str(e))
        if args.limit is not None and args.limit < 1:
            p.error("--limit must be at least 1")
    need_ds = args.cmd != "answers" or "scifact" in sets or bool(getattr(args, "chunks", None))
    ds = beir.load(args.data, args.split) if need_ds else None
    rebuild = not args.no_build
    status = 0
    if args.cmd == "quality":
        out: dict = {"data": str(args.data), "split": args.split}
        if not args.browser:
            out["native"] = quality.run_native(ds)
        if not args.native:
            out["browser"] = quality.run_browser(ds, args.embed_in_browser, rebuild)
        if "native" in out and "browser" in out:
            out["differences"] = quality.compare(out["native"], out["browser"])
            if out["differences"]:
                print("native and browser differ beyond 0.001:\n  " + "\n  ".join(out["differences"]), file=sys.stderr)
                status = 1
        results["quality"] = out
    elif args.cmd == "latency" and args.store == "postgres":
        import tempfile

        from . import pg_bench

        with tempfile.TemporaryDirectory() as tmp:
            results["latency_postgres"] = pg_bench.run_bench(ds, args.chunks or [100_000], args.queries, args.db, Path(tmp),
                                                               args.json.with_suffix(".partial.json"), args.vectors)
    elif args.cmd == "latency":
        from . import latency

        sizes = [] if args.startup_only else (args.chunks or [20_000, 100_000])
        results["latency"] = latency.run(ds, sizes, args.queries, rebuild, args.startup_reps,
                                         with_startup=not args.no_startup, corpus=args.corpus)
    elif args.cmd == "ingest":
        from . import ingest

        results["ingest"] = ingest.run(ds, args.docs, args.pdf_pages, rebuild,
                                       browser=not args.native, native=not args.browser)
    elif args.cmd == "embedding":
        from . import embedding

        results["embedding"] = embedding.run(ds, args.texts, args.rounds, rebuild)
    elif args.cmd == "peer":
        from . import peer as peer_mod

        results["peer"] = peer_mod.run(ds, rebuild, args.queries, pglite=not args.no_pglite, passages=args.passages)
    elif args.cmd == "answers":
        results["answers"] = answers.run(sets, args.limit, native=not args.browser, browser=not args.native, ds=ds,
                                         rebuild=rebuild, llm=args.llm, llm_limit=args.llm_limit,
                                         llm_model=args.llm_model, scale=args.chunks)
        if args.qa_data:
            from . import answers_public

            results["answers"]["public"] = {}
            for name in [x.strip() for x in args.public.split(",") if x.strip()]:
                print(f"answers, public set {name}:", file=sys.stderr)
                results["answers"]["public"][name] = answers_public.evaluate(name, args.qa_data, args.limit)
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=1))
    from . import report

    path = report.write(results, args.report)
    if args.cmd == "answers":
        print(answers.tables(results["answers"]))
    else:
        print(json.dumps({k: v for k, v in results.items() if k != "machine"}, indent=1))
    print("\nTargets (issues 4, 12 and 23), measured vs target:")
    print(report.targets_text(report.targets(report.gather(results, args.report))))
    print(f"wrote {args.json} and {path}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
