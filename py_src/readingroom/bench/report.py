"""The human report: every target of issue 4 with measured vs target and the gap, Markdown
tables and hand-drawn SVG bar charts (no plotting library).

The report covers every bench result in the report folder (``quality.json``, ``latency.json``,
``ingest.json``, ``peer.json``, ``answers.json``), with the run just made taking precedence, so running one
command does not drop the others' figures from ``report.md``.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

SECTIONS = ("quality", "latency", "ingest", "peer", "answers", "latency_postgres")


def bars(title: str, items: list[tuple[str, float]], unit: str = "", width: int = 560) -> str:
    """A horizontal bar chart as an SVG string."""
    top = max((v for _, v in items), default=1.0) or 1.0
    row, label_w = 22, 170
    h = 30 + row * len(items)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="4" y="16" font-weight="bold">{html.escape(title)}</text>']
    for i, (label, v) in enumerate(items):
        y = 26 + i * row
        w = (width - label_w - 70) * (v / top)
        out.append(f'<text x="4" y="{y + 13}">{html.escape(label)}</text>')
        out.append(f'<rect x="{label_w}" y="{y + 2}" width="{w:.1f}" height="{row - 6}" fill="#4a7bb7"/>')
        out.append(f'<text x="{label_w + w + 4:.1f}" y="{y + 13}">{v:.3f}{html.escape(unit)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def table(headers: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        lines.append("| " + " | ".join(f"{c:.4f}" if isinstance(c, float) else str(c) for c in r) + " |")
    return "\n".join(lines)


# --- targets ---------------------------------------------------------------------------------

def _num(x: float) -> str:
    if 0 < abs(x) < 1:
        return f"{x:.3g}"  # a recall or an nDCG difference, not rounded away
    return f"{x:,.1f}" if abs(x) < 1000 else f"{x:,.0f}"


def _during(d: dict, how: str) -> str:
    """A sentence on queries asked while documents were added (bench ingest)."""
    return (f"\n{how} while {d['added_chunks']} more chunks were added: p50 {d['during_ms']['p50']} ms "
            f"(p95 {d['during_ms']['p95']}, n={d['during_ms']['n']}) against {d['idle_ms']['p50']} ms idle "
            f"(p95 {d['idle_ms']['p95']}): {d['ratio_p50']}× (load {d['load_average']}; "
            f"{d.get('embedding_sessions')} embedding sessions, tab peak "
            f"{(d.get('renderer_rss_mb') or {}).get('peak')} MB)\n")


def _at_most(name: str, measured: float | None, target: float, unit: str, load) -> dict:
    if measured is None:
        return {"target": name, "measured": None, "goal": f"≤ {_num(target)} {unit}".rstrip(), "met": None,
                "gap": "not measured", "load": load}
    met = measured <= target
    gap = (f"met ({measured / target:.2f}× of the limit)" if met
           else f"{measured / target:.1f}× over (+{_num(measured - target)} {unit})")
    return {"target": name, "measured": f"{_num(measured)} {unit}".rstrip(), "goal": f"≤ {_num(target)} {unit}".rstrip(),
            "met": met, "gap": gap, "load": load}


def _at_least(name: str, measured: float | None, target: float, unit: str, load) -> dict:
    if measured is None:
        return {"target": name, "measured": None, "goal": f"≥ {_num(target)} {unit}".rstrip(), "met": None,
                "gap": "not measured", "load": load}
    met = measured >= target
    gap = (f"met ({measured / target:.2f}× the target)" if met
           else f"{target / measured:.1f}× short ({measured / target:.0%} of the target)")
    return {"target": name, "measured": f"{_num(measured)} {unit}".rstrip(), "goal": f"≥ {_num(target)} {unit}".rstrip(),
            "met": met, "gap": gap, "load": load}


def _load(section: dict | None) -> str:
    m = (section or {}).get("machine", {})
    start, end = m.get("load_average_at_start"), m.get("load_average_at_end")
    if not start:
        return "?"
    return f"{start[0]:.1f}→{end[0]:.1f}" if end else f"{start[0]:.1f}"


def _load_at(sizes: dict, size: str, fallback: str) -> str:
    """The load average a size's own measurement recorded (1 minute), else the run's."""
    load = _get(sizes, size, "load_average")
    return f"{load[0]:.1f}" if load else fallback


def _get(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def targets(sections: dict[str, dict]) -> list[dict]:
    """Issue 4's targets, each with measured, goal, met (True/False/None) and the gap in words."""
    out = []
    lat = sections.get("latency", {})
    ll = _load(lat)
    sizes = _get(lat, "latency", "sizes") or {}
    t20 = _get(sizes, "20000", "stages", "total")
    t100 = _get(sizes, "100000", "stages", "total")
    out.append(_at_most("hot path p50 at 20k chunks", t20 and t20["p50"], 25, "ms", ll))
    out.append(_at_most("hot path p95 at 20k chunks", t20 and t20["p95"], 50, "ms", ll))
    out.append(_at_most("hot path p95 at 100k chunks", t100 and t100["p95"], 100, "ms", ll))
    t1m = _get(sizes, "1000000", "stages", "total")
    out.append(_at_most("hot path p95 at 1M chunks", t1m and t1m["p95"], 250, "ms", _load_at(sizes, "1000000", ll)))
    mem = _get(sizes, "1000000", "memory")  # issue 15: the retrieval worker's heaps hold the matrices
    out.append(_at_most("Pyodide + sqlite heaps at 1M chunks", mem and (mem["pyodide_heap_bytes"] + mem["sqlite_heap_bytes"]) / 2**30,
                        1.5, "GB", ll))
    tab = _get(mem, "tab", "pss_bytes")  # the whole tab: renderer processes' PSS, after the queries
    out.append(_at_most("tab memory (renderer PSS) at 1M chunks", tab and tab / 2**30, 1.5, "GB", _load_at(sizes, "1000000", ll)))
    start = _get(lat, "latency", "startup_ms") or {}
    out.append(_at_most("cold first visit to ready", start.get("cold_first_visit") and start["cold_first_visit"] / 1000, 4, "s", ll))
    out.append(_at_most("warm reload to ready", start.get("warm_reload") and start["warm_reload"] / 1000, 2, "s", ll))
    # later visits, for the record: the first reload compiles the cached wasm afresh (latency.startup)
    out.append(_at_most("second reload to ready (later visits)", start.get("second_reload") and start["second_reload"] / 1000, 2, "s", ll))
    ing = sections.get("ingest", {})
    il = _load(ing)
    out.append(_at_least("browser ingestion, ~150-token chunks", _get(ing, "ingest", "browser", "chunks_per_s"), 12, "chunks/s", il))
    pdf = _get(ing, "ingest", "browser_pdf")
    if pdf:
        out.append(_at_least(f"browser ingestion, {pdf['pages']}-page PDF", pdf.get("pages_per_s"), 2, "pages/s", il))
        out.append(_at_most(f"{pdf['pages']}-page PDF: drop to first word answer", pdf.get("first_word_answer_s"), 5, "s", il))
    during = _get(ing, "ingest", "queries_during_ingest", "ratio_p50")
    out.append(_at_most("query p50 during an import, × idle p50", during, 2, "×", il))
    out.append(_at_least("native ingestion, ~150-token chunks", _get(ing, "ingest", "native", "chunks_per_s"), 35, "chunks/s", il))
    peer = sections.get("peer", {})
    p = peer.get("peer")
    for name in [k for k in (p or {}) if k.startswith("orama") and isinstance(p[k], dict) and "hybrid" in p[k]] or ["orama"]:
        label = "faster than " + ("Orama (defaults)" if name == "orama" else f"Orama ({name.split('_', 1)[-1]})") + " at ≥ nDCG"
        if not p or name not in p:
            out.append({"target": label, "measured": None, "goal": "ours p50 < Orama p50 and nDCG ≥", "met": None,
                        "gap": "not measured", "load": _load(peer)})
            continue
        o, us = p[name], p["ours"]
        ours_ms, their_ms = us["latency_ms"]["p50"], o["latency_ms"]["p50"]
        nd_us, nd_them = us["hybrid"]["ndcg@10"], o["hybrid"]["ndcg@10"]
        faster, better = ours_ms < their_ms, nd_us >= nd_them
        speed = (f"ours {their_ms / ours_ms:.2f}× faster" if faster else f"ours {ours_ms / their_ms:.2f}× slower "
                 f"(+{_num(ours_ms - their_ms)} ms)")
        search = f"search alone: ours {us['search_ms']['p50']:.1f} vs {o['search_ms']['p50']:.1f} ms"
        quality = f"nDCG {nd_us - nd_them:+.4f}"
        out.append({"target": label,
                    "measured": f"p50 {ours_ms:.1f} vs {their_ms:.1f} ms; nDCG@10 {nd_us:.4f} vs {nd_them:.4f}",
                    "goal": "ours p50 < Orama p50 and nDCG ≥", "met": faster and better,
                    "gap": ("met: " if faster and better else "") + f"{speed}, {quality}; {search}",
                    "load": _load(peer)})
    from .answer_scores import targets as answer_targets

    from .pg_targets import targets as pg_targets

    for key, rows in (("answers", answer_targets), ("latency_postgres", pg_targets)):
        for name, measured, goal, unit, at_least in rows(sections.get(key)):
            out.append((_at_least if at_least else _at_most)(name, measured, goal, unit, _load(sections.get(key))))
    return out


def targets_text(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        mark = {True: "MET ", False: "MISS", None: "n/a "}[r["met"]]
        lines.append(f"[{mark}] {r['target']}: {r['measured'] or 'not measured'} vs {r['goal']}: {r['gap']} "
                     f"(load {r['load']})")
    return "\n".join(lines)


def targets_markdown(rows: list[dict]) -> str:
    return table(["target", "measured", "goal", "met", "gap", "load avg (start→end)"],
                 [[r["target"], r["measured"] or "—", r["goal"], {True: "yes", False: "**no**", None: "—"}[r["met"]],
                   r["gap"], r["load"]] for r in rows])


# --- the report ------------------------------------------------------------------------------

def gather(results: dict, folder: Path) -> dict[str, dict]:
    """Per section, the whole results dict (machine and command included) it came from."""
    sections: dict[str, dict] = {}
    for name in SECTIONS:
        path = folder / f"{name}.json"
        if path.is_file():
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if name in data:
                sections[name] = data
    for name in SECTIONS:
        if name in results:
            sections[name] = results
    return sections


def _provenance(section: dict) -> str:
    m = section.get("machine", {})
    load = [m.get("load_average_at_start"), m.get("load_average_at_end")]
    return (f"`{section.get('command', '?')}` at {m.get('time', '?')}, {m.get('cpus', '?')} CPUs, "
            f"load average at start {load[0]}, at end {load[1]}\n")


def write(results: dict, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    sections = gather(results, folder)
    rows = targets(sections)
    parts = ["# Reading Room benchmark\n", "## Targets (issues 4, 12 and 23)\n", targets_markdown(rows), ""]
    q = sections.get("quality", {}).get("quality")
    if q:
        parts.append("## Quality (" + q.get("data", "") + ", split " + q.get("split", "") + ")\n")
        parts.append(_provenance(sections["quality"]))
        qrows = []
        for side in ("native", "browser"):
            for m in ("lexical", "vector", "hybrid"):
                if side in q and m in q[side]:
                    f = q[side][m]
                    qrows.append([side, m, f["ndcg@10"], f["recall@10"], f["recall@100"], f["mrr@10"]])
        parts.append(table(["side", "method", "nDCG@10", "R@10", "R@100", "MRR@10"], qrows))
        side = q.get("native") or q.get("browser")
        (folder / "quality.svg").write_text(bars("nDCG@10", [(m, side[m]["ndcg@10"]) for m in ("lexical", "vector", "hybrid")]))
        parts.append("\n![nDCG@10](quality.svg)\n")
    lat = sections.get("latency", {}).get("latency")
    if lat:
        parts.append("## Latency in headless Chromium (ms)\n")
        parts.append(_provenance(sections["latency"]))
        parts.append(f"Start-up: {lat.get('startup_ms')}\n")
        phases = lat.get("startup_phases")
        if phases:
            parts.append("Start-up phases (ms since navigation start; worker phases on the page's clock):\n")
            for visit, ph in phases.items():
                parts.append(f"- {visit}: " + ", ".join(f"{k} {v}" for k, v in ph.items()))
            parts.append("")
        for n, d in lat["sizes"].items():
            srows = [[stage, s["p50"], s["p95"]] for stage, s in d["stages"].items()]
            parts.append(f"### {n} chunks\n\n" + table(["stage", "p50", "p95"], srows) + "\n")
            (folder / f"latency-{n}.svg").write_text(
                bars(f"p95 per stage at {n} chunks", [(k, v["p95"]) for k, v in d["stages"].items()], " ms"))
            parts.append(f"![latency {n}](latency-{n}.svg)\n")
    ing = sections.get("ingest", {}).get("ingest")
    if ing:
        parts.append("## Ingestion (chunks/s, embedding included)\n")
        parts.append(_provenance(sections["ingest"]))
        parts.append(f"{ing.get('documents')} SciFact abstracts, {ing.get('chunks')} chunks, tokens per chunk "
                     f"{ing.get('tokens_per_chunk')}\n")
        irows = []
        for s in ("browser", "browser_not_isolated", "native"):
            if s in ing:
                how = (f"{'isolated' if ing[s].get('cross_origin_isolated') else 'not isolated'}, "
                       f"{ing[s].get('backend')} x {ing[s].get('threads')}") if s != "native" else "ONNX Runtime"
                irows.append([s, how, ing[s]["chunks"], ing[s]["seconds"], ing[s]["chunks_per_s"],
                              ing[s].get("embed_only_chunks_per_s", "—"), ing[s].get("load_average", "—")])
        parts.append(table(["side", "embedding", "chunks", "seconds", "chunks/s", "embedding alone, chunks/s",
                            "load average"], irows))
        pdf = ing.get("browser_pdf")
        if pdf:
            parts.append(f"\nPDF ({pdf['file']}, {pdf['pages']} pages) added as a File in the browser: "
                         f"{pdf['chunks']} chunks in {pdf['seconds']} s = {pdf['pages_per_s']} pages/s, "
                         f"{pdf['chunks_per_s']} chunks/s (pdf.js extraction alone {pdf['pdfjs_extract_s']} s); "
                         f"renderer memory {(pdf.get('renderer_rss_mb') or {}).get('before')} MB before, "
                         f"peak {(pdf.get('renderer_rss_mb') or {}).get('peak')} MB while adding it; "
                         f"words first: first word answer {pdf.get('first_word_answer_s')} s after the drop, "
                         f"fully hybrid after {pdf.get('full_hybrid_s')} s\n")
        for key, how in (("queries_during_ingest", "Queries"),
                         ("queries_during_ingest_shared_session",
                          "The same with ingestion sharing the query session (?queryworker=off): queries")):
            if ing.get(key):
                parts.append(_during(ing[key], how))
    peer = sections.get("peer", {}).get("peer")
    if peer:
        parts.append("\n## Reading Room vs Orama " + peer["orama_version"] + "\n")
        parts.append(_provenance(sections["peer"]))
        names = ["ours"] + [k for k in peer if k.startswith("orama") and isinstance(peer[k], dict) and "hybrid" in peer[k]]
        prows = []
        for name in names:
            x = peer[name]
            prows.append([name, x["hybrid"]["ndcg@10"], x["hybrid"]["recall@100"], x["latency_ms"]["p50"],
                          x["latency_ms"]["p95"], _get(x, "search_ms", "p50") or "—", _get(x, "search_ms", "p95") or "—",
                          _get(x, "legs", "vector", "ndcg@10") or "—",
                          (_get(x, "legs", "lexical", "ndcg@10") or _get(x, "legs", "fulltext", "ndcg@10") or "—")])
        parts.append(f"{peer['queries']} queries ({peer.get('timed_queries', '?')} timed after "
                     f"{peer.get('warmup', '?')} warm-up), {peer['chunks']} chunks, depth "
                     f"{peer.get('depth_chunks', '?')} chunks per query.\n")
        parts.append(table(["system", "nDCG@10", "R@100", "p50 ms (with embed)", "p95 ms (with embed)",
                            "search p50 ms", "search p95 ms", "vector leg nDCG", "text leg nDCG"], prows))
        (folder / "peer.svg").write_text(bars("p50 latency (ms), embedding included",
                                              [(n, peer[n]["latency_ms"]["p50"]) for n in names], " ms"))
        parts.append("\n![peer](peer.svg)\n")
        if peer.get("pglite"):
            from .peer_pglite import table as pglite_table

            parts.append(pglite_table(peer["pglite"], peer["ours"]))
    ans = sections.get("answers", {}).get("answers")
    if ans:
        from .answers import tables

        parts.append("\n## Answers (issue 12)\n")
        parts.append(_provenance(sections["answers"]))
        parts.append(f"Sets {', '.join(ans.get('sets') or [])}" + (f", at most {ans['limit']} per set" if ans.get("limit") else "")
                     + "; dev is what calibration saw, test is held out.\n")
        parts.append(tables(ans) + "\n")
    path = folder / "report.md"
    path.write_text("\n".join(parts) + "\n")
    return path
