"""Layout noise in PDF chunks, before and after ``extract.pdfclean`` (``bench layout``).

"Before" is what ingestion did until now: pypdf's text per page, chunked page by page.
"After" is ``prepare`` today. A chunk carries layout noise when it holds any of:

- a word broken at a line end ("differ-" / "ences": a letter, ``-``, a line break, a
  lower-case letter);
- a ligature code point (ﬁ, ﬂ ...) or a split ligature ("f ixed": a lone f/ff before a
  lower-case word fragment that is no word on its own in the same document);
- a running line: a line with a letter or digit whose shape (digits as ``#``) stands at the
  top or bottom of at least three pages of the raw document, and there at least as often as in
  the pages' other lines, or a line that is only a number (a page number; numbers on their own
  in a table of contents or a figure's axis count too).

The same definition measures both, from the raw pages, so the cleaner is not its own judge.

Headings by font size (what a PDF without an outline gets) are measured against the outline
these manuals have: the share of bookmarks whose title a font heading on the same page ends
with (or is the end of), and the share of font headings that are such a bookmark.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..ingest.chunking import ChunkSettings, chunk_text
from ..extract.pdf import pdf_pages
from ..extract.pdfclean import _is_page_number, _norm, _shape, document
from ..extract.pdffonts import font_outline
from ..ingest.add import NewDocument, prepare
from .stats import load_average

_BROKEN = re.compile(r"[^\W\d_]-\n[a-z]")
_LIGATURE = re.compile(r"[\ufb00-\ufb06]")
_SPLIT = re.compile(r"(?<![\w-])(ff?) ([a-z]{2,})")


def running_shapes(pages: list[str]) -> set[str]:
    """Shapes at the top or bottom of at least three pages, and found there at least as often
    as anywhere else: a label the text itself repeats ("Syntax:", "Example:" before each
    command of a reference) lands at a page's edge now and then without being a running head."""
    edges, everywhere = Counter(), Counter()
    for p in pages:
        lines = [x for x in p.split("\n") if x.strip()]
        edges.update({_shape(x) for x in lines[:2] + lines[-2:] if re.search(r"[^\W_]", x)})
        everywhere.update(_shape(x) for x in lines[2:-2])
    return {s for s, n in edges.items() if n >= 3 and n >= everywhere[s]}


def noisy(text: str, shapes: set[str], words: set[str]) -> list[str]:
    why = []
    if _BROKEN.search(text):
        why.append("broken word")
    if _LIGATURE.search(text) or any(m.group(2) not in words for m in _SPLIT.finditer(text)):
        why.append("ligature")
    if any(_shape(x) in shapes or _is_page_number(x) for x in text.split("\n") if x.strip()):
        why.append("running line")
    return why


_PDFJS = """
async (b64) => {
  const { pdfPages } = await import('./api/pdf.js');
  const file = new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'x.pdf');
  return pdfPages('x.pdf', file);
}
"""


def font_agreement(fonts: list, outline: list) -> dict:
    """Headings by font size against the bookmarks: how many of each the other confirms."""
    real = {(_norm(t), p) for _l, t, p in outline if _norm(t)}
    got = {(_norm(t), p) for _l, t, p in font_outline(fonts)}

    def same(a, b):
        return a[1] == b[1] and (a[0].endswith(b[0]) or b[0].endswith(a[0]))

    return {"bookmarks": len(real), "found": sum(any(same(g, r) for g in got) for r in real),
            "font_headings": len(got), "agree": sum(any(same(g, r) for r in real) for g in got)}


def measure(path: Path, page=None) -> dict:
    """Natively (pypdf), or with ``page`` (a Playwright page of the app) through pdf.js, whose
    pages and outline go through the very same clean-up and chunking."""
    data = path.read_bytes()
    if page is None:
        fonts: list = []
        pages, outline = pdf_pages(path.name, data, fonts)
    else:
        import base64

        got = page.evaluate(_PDFJS, base64.b64encode(data).decode())
        pages, outline, fonts = got["pages"], [tuple(o) for o in got["outline"]], got["fonts"]
    shapes = running_shapes(pages)
    words = set(re.findall(r"[a-z]+", " ".join(pages).lower()))
    before = []
    for number, page in enumerate(pages, start=1):
        before += chunk_text(page, "txt", ChunkSettings(), page=number, base_index=len(before))
    _t, _text, after = prepare(NewDocument(path.name, pages=tuple(pages), outline=tuple(outline),
                                           fonts=tuple(fonts), doc_type="pdf"), ChunkSettings())
    out = {"file": path.name, "pages": len(pages), "outline": len(outline), "fonts": font_agreement(fonts, outline)}
    for side, chunks in (("before", before), ("after", after)):
        reasons = Counter(r for c in chunks for r in noisy(c.text, shapes, words))
        out[side] = {"chunks": len(chunks),
                     "noisy": sum(1 for c in chunks if noisy(c.text, shapes, words)),
                     "with_heading": sum(1 for c in chunks if c.heading_path),
                     "reasons": dict(reasons)}
    return out


def run(paths: list[Path], browser: bool = False, rebuild: bool = True) -> dict:
    load = load_average()
    if browser:
        from . import browser as bb

        with bb.session(rebuild) as (chromium, url):
            ctx, page, _ms = bb.open_app(chromium, url)
            try:
                rows = [measure(p, page) for p in paths]
            finally:
                ctx.close()
    else:
        rows = [measure(p) for p in paths]
    total = {side: {k: sum(r[side][k] for r in rows) for k in ("chunks", "noisy", "with_heading")}
             for side in ("before", "after")}
    print(f"layout noise in PDF chunks, {'in the page (pdf.js)' if browser else 'natively (pypdf)'} "
          f"(load average {load[0]}):")
    print(f"{'file':<18}{'pages':>6}{'outline':>8}  {'noisy before':>14}{'noisy after':>13}  {'heading before':>15}{'heading after':>14}")
    for r in rows + [{"file": "all", "pages": sum(r["pages"] for r in rows),
                      "outline": sum(r["outline"] for r in rows), **total}]:
        b, a = r["before"], r["after"]
        print(f"{r['file']:<18}{r['pages']:>6}{r['outline']:>8}  "
              f"{b['noisy'] / max(1, b['chunks']):>13.1%} {a['noisy'] / max(1, a['chunks']):>12.1%}  "
              f"{b['with_heading'] / max(1, b['chunks']):>14.1%} {a['with_heading'] / max(1, a['chunks']):>13.1%}")
    f = {k: sum(r["fonts"][k] for r in rows) for k in ("bookmarks", "found", "font_headings", "agree")}
    print(f"headings by font size alone, against the outline: {f['found'] / max(1, f['bookmarks']):.1%} of the "
          f"bookmarks found, {f['agree'] / max(1, f['font_headings']):.1%} of the font headings are bookmarks")
    cut = 1 - (total["after"]["noisy"] / max(1, total["after"]["chunks"])) / max(1e-9, total["before"]["noisy"] / max(1, total["before"]["chunks"]))
    print(f"noise cut by {cut:.1%}; load average at the end {load_average()[0]}")
    return {"files": rows, "total": total, "noise_cut": cut, "font_headings": f, "load_average": [load, load_average()]}


__all__ = ["run", "measure", "document"]
