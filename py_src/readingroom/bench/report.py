"""The human report: Markdown tables and hand-drawn SVG bar charts (no plotting library)."""

from __future__ import annotations

import html
from pathlib import Path


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


def write(results: dict, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    parts = [f"# Reading Room benchmark\n\n{results.get('machine', {})}\n"]
    q = results.get("quality")
    if q:
        parts.append("## Quality (" + q.get("data", "") + ", split " + q.get("split", "") + ")\n")
        rows = []
        for side in ("native", "browser"):
            for m in ("lexical", "vector", "hybrid"):
                if side in q and m in q[side]:
                    f = q[side][m]
                    rows.append([side, m, f["ndcg@10"], f["recall@10"], f["recall@100"], f["mrr@10"]])
        parts.append(table(["side", "method", "nDCG@10", "R@10", "R@100", "MRR@10"], rows))
        side = q.get("native") or q.get("browser")
        (folder / "quality.svg").write_text(bars("nDCG@10", [(m, side[m]["ndcg@10"]) for m in ("lexical", "vector", "hybrid")]))
        parts.append("\n![nDCG@10](quality.svg)\n")
    lat = results.get("latency")
    if lat:
        parts.append("## Latency in headless Chromium (ms)\n")
        parts.append(f"Start-up: {lat.get('startup_ms')}\n")
        for n, d in lat["sizes"].items():
            rows = [[stage, s["p50"], s["p95"]] for stage, s in d["stages"].items()]
            parts.append(f"### {n} chunks\n\n" + table(["stage", "p50", "p95"], rows) + "\n")
            (folder / f"latency-{n}.svg").write_text(
                bars(f"p95 per stage at {n} chunks", [(k, v["p95"]) for k, v in d["stages"].items()], " ms"))
            parts.append(f"![latency {n}](latency-{n}.svg)\n")
    ing = results.get("ingest")
    if ing:
        parts.append("## Ingestion (chunks/s, embedding included)\n\n" + table(
            ["side", "chunks", "seconds", "chunks/s"],
            [[s, ing[s]["chunks"], ing[s]["seconds"], ing[s]["chunks_per_s"]] for s in ("browser", "native")]))
    peer = results.get("peer")
    if peer:
        parts.append("\n## Reading Room vs Orama " + peer["orama_version"] + "\n\n" + table(
            ["system", "nDCG@10", "R@100", "p50 ms", "p95 ms"],
            [[name, peer[name]["hybrid"]["ndcg@10"], peer[name]["hybrid"]["recall@100"],
              peer[name]["latency_ms"]["p50"], peer[name]["latency_ms"]["p95"]] for name in ("ours", "orama")]))
        (folder / "peer.svg").write_text(bars("p50 latency (ms)", [("Reading Room", peer["ours"]["latency_ms"]["p50"]),
                                                                   ("Orama", peer["orama"]["latency_ms"]["p50"])], " ms"))
        parts.append("\n![peer](peer.svg)\n")
    path = folder / "report.md"
    path.write_text("\n".join(parts) + "\n")
    return path
