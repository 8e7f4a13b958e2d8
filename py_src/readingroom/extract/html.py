"""Text out of HTML (and EPUB chapters), as the chunker wants it.

HTML becomes Markdown-like text: scripts, styles and other non-content elements are
dropped, block elements end lines, ``<h1>``–``<h6>`` become ``#`` headings, list items keep a
marker, and a table becomes a pipe table (its first row the header), whole when it fits and
cut by rows with the header repeated otherwise. ``sections`` then cuts that text at its
headings, as Markdown is cut: each section has the path of headings above it and opens with
its heading's words, without the ``#`` a person never wrote. It runs in Python on both sides,
so a page's text is the same natively and in the browser.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ..ingest.chunking import HEADING, markdown_sections
from .document import Section, table_blocks
from .numbering import label

_SKIP = {"script", "style", "noscript", "template", "head", "svg", "iframe", "object"}
_BLOCK = {"p", "div", "section", "article", "header", "footer", "main", "aside", "nav", "li",
          "ul", "ol", "table", "tr", "blockquote", "pre", "hr", "dd", "dt", "figure",
          "figcaption", "h1", "h2", "h3", "h4", "h5", "h6"}
FENCE = "```"  # a <pre> block of code, as Markdown writes it
VERBATIM, END_VERBATIM = "\x02", "\x03"  # around other <pre> text while it is read: its lines kept as they are
_CODE_CLASS = re.compile(r"highlight|sourceCode|\bcode\b|language-|lang-|\bsrc\b", re.I)


MAX_COLSPAN, MAX_ROWSPAN = 50, 500  # a span past these is read as this wide or tall
_NONE = re.compile(r"display\s*:\s*none", re.I)
_PAGE_BREAK = re.compile(r"(?:^|[\s:-])pagebreak\b")  # epub:type="pagebreak", role="doc-pagebreak"


def _hidden(attrs) -> bool:
    """An element the page does not show: ``hidden``, or ``display: none`` in its style
    (Wikipedia's sort keys: "01879-07-01-0000" before "1 July 1879"); or an e-book's page-break
    marker, the printed edition's page number ("who suffer. 190 I will"), layout, not text."""
    return any(k == "hidden" or (k == "style" and v and _NONE.search(v))
               or (k in ("epub:type", "role") and v and _PAGE_BREAK.search(v))
               for k, v in attrs)


def _navigation(tag: str, attrs) -> bool:
    """A site's menus: ``<nav>`` or ``role="navigation"`` (a documentation page's sidebar, its
    "next / previous" bar). Their links are the site's, not the page's text, and a list of
    twenty titles would match every question by its words."""
    return tag == "nav" or any(k == "role" and (v or "").strip().lower() == "navigation" for k, v in attrs)


def _span(attrs, name: str, most: int) -> int:
    value = next((v for k, v in attrs if k == name), None) or "1"
    return min(most, int(value)) if value.strip().isdigit() and int(value) > 0 else 1


def _grid(rows: list[list[list]]) -> list[list[str]]:
    """A table's rows of [text, colspan, rowspan] cells as the grid it draws, so every value
    sits under its column's header: a cell spanning rows stands in each of them (a category
    merged down a column belongs to each row); one spanning columns stands in the first, the
    rest left empty (a note across a whole row reads once)."""
    out: list[list[str]] = []
    above: dict[int, list] = {}  # column -> [text, rows still to cover] from a rowspan above
    for row in rows:
        line: list[str] = []

        def carry() -> None:
            while len(line) in above:
                text, left = above[len(line)]
                line.append(text)
                if left > 1:
                    above[len(line) - 1][1] = left - 1
                else:
                    del above[len(line) - 1]
        for text, cols, rows_down in row:
            carry()
            for k in range(cols):
                value = text if k == 0 else ""  # across: once (a note row over all columns reads once)
                if rows_down > 1:
                    above[len(line)] = [value, rows_down - 1]
                line.append(value)
        carry()
        while above and max(above) >= len(line):
            if len(line) not in above:
                line.append("")
            carry()
        out.append(line)
    return out


def _codeish(attrs) -> bool:
    return any(k == "class" and v and _CODE_CLASS.search(v) for k, v in attrs)

_VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source",
         "track", "wbr"}


class _Text(HTMLParser):
    def __init__(self, navigation: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.navigation = navigation  # read menus too (an e-book's contents, a page of nothing else)
        self.parts: list[str] = []
        self.skip = 0
        self.tables: list[list[list[str]]] = []  # open tables (nested ones too): rows of cells
        self.lists: list[list] = []  # open lists: [tag, the last item's number, its format]
        self.heading = False  # inside <h1>-<h6>: its text stays on the heading's line
        self.heading_at = 0  # where its "#" marks are in parts
        self.pre = 0  # inside <pre>: its lines keep their indentation
        self.pre_at = 0  # where the open <pre> began in ``parts``
        self.code = False  # the open <pre> is code (a <code> in it, or a code class on it or around it)
        self.divs: list[bool] = []  # open <div>s: has each a code class ("highlight", "sourceCode")?
        self.hidden: list[list] = []  # open hidden elements (display:none, ``hidden``): [tag, depth]

    def handle_starttag(self, tag: str, attrs) -> None:
        closes = tag not in _VOID
        if tag in _SKIP or (closes and (_hidden(attrs) or (not self.navigation and _navigation(tag, attrs)))):
            if closes:
                self.skip += 1
                if tag not in _SKIP:
                    self.hidden.append([tag, 1])  # its own end tag closes it, however deep it nests
            return
        if self.hidden and tag == self.hidden[-1][0] and closes:
            self.hidden[-1][1] += 1
        if self.skip:
            return  # inside what is not read: no list marker, table or line of its own
        if self.tables:
            rows = self.tables[-1]
            if tag == "table":
                self.tables.append([])
            elif tag == "tr":
                rows.append([])
            elif tag in ("td", "th"):
                (rows[-1] if rows else rows.append([]) or rows[-1]).append(["", _span(attrs, "colspan", MAX_COLSPAN),
                                                                           _span(attrs, "rowspan", MAX_ROWSPAN)])
            elif tag in _BLOCK or tag == "br":
                self._cell(" ")
            return
        if tag == "table":
            self.tables.append([])
            return
        if tag == "br":  # a line break inside its paragraph (a heading stays one line)
            self.parts.append(" " if self.heading else "\n")
            return
        if tag in ("ul", "ol"):
            a = dict(attrs)
            start = (a.get("start") or "1").strip()
            self.lists.append([tag, int(start) - 1 if start.lstrip("-").isdigit() else 0, a.get("type") or "1"])
        if tag in _BLOCK:
            self.parts.append("\n\n")
        if tag == "div":
            self.divs.append(_codeish(attrs))
        if tag == "pre":
            self.pre += 1
            if self.pre == 1:
                self.pre_at, self.code = len(self.parts), _codeish(attrs) or any(self.divs)
                self.parts.append(f"{VERBATIM}\n")
        if tag == "code" and self.pre:
            self.code = True
        if tag == "li" and self.lists:
            value = (dict(attrs).get("value") or "").strip()  # <li value="7">: numbering goes on from 7
            self.lists[-1][1] = int(value) if value.lstrip("-").isdigit() else self.lists[-1][1] + 1
            kind, n, fmt = self.lists[-1]
            self.parts.append(f"{label(n, fmt)}. " if kind == "ol" else "- ")
        if re.fullmatch(r"h[1-6]", tag):
            self.heading_at = len(self.parts)
            self.parts.append("#" * int(tag[1]) + " ")
            self.heading = True

    def handle_endtag(self, tag: str) -> None:
        if self.hidden and tag == self.hidden[-1][0]:
            self.hidden[-1][1] -= 1
            if not self.hidden[-1][1]:
                self.hidden.pop()
                self.skip = max(0, self.skip - 1)
            return
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        if tag == "table" and self.tables:
            rows = [r for r in _grid(self.tables.pop()) if any(c.strip() for c in r)]
            flat = table_blocks(rows) if rows else ""
            if self.tables:
                self._cell(" " + " ".join(flat.split()) + " ")
            elif flat:
                self.parts.append("\n\n" + flat + "\n\n")
        elif self.tables:
            if tag in _BLOCK:
                self._cell(" ")
        elif tag == "div" and self.divs and not self.tables:
            self.divs.pop()
            self.parts.append("\n\n")
        elif tag == "pre" and self.pre:
            self.pre -= 1
            if not self.pre:
                if self.parts and self.parts[-1].endswith("\n"):
                    self.parts[-1] = self.parts[-1][:-1]  # the newline before </pre> ends its last line
                # code is fenced as Markdown writes it; other preformatted text (a plain-text
                # page, an RFC) keeps its lines and stays prose
                end = FENCE if self.code else END_VERBATIM
                if self.code:
                    self.parts[self.pre_at] = f"{FENCE}\n"
                self.parts.append(f"\n{end}\n\n")
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self.parts.append("\n\n")
        elif tag in _BLOCK:
            self.parts.append("\n\n")
        if re.fullmatch(r"h[1-6]", tag) and self.heading:
            self.heading = False
            if not "".join(self.parts[self.heading_at + 1:]).strip():
                self.parts[self.heading_at] = ""  # an empty heading (a spacer, an icon) leaves no "#" behind

    def _cell(self, text: str) -> None:
        rows = self.tables[-1]
        if rows and rows[-1]:
            rows[-1][-1][0] += text

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.tables:
            self._cell(data)
        else:
            if self.pre and self.parts and self.parts[-1] == f"{VERBATIM}\n" and data.startswith("\n"):
                data = data[1:]  # a newline right after <pre> is not part of its text
            self.parts.append(data.replace("\n", " ") if self.heading else data)  # a heading is one line


def html_to_text(html: str, navigation: bool = False) -> str:
    """The page's text (``navigation``: its menus too)."""
    parser = _Text(navigation)
    parser.feed(html)
    parser.close()
    while parser.tables:  # a table never closed still counts
        parser.handle_endtag("table")
    text = "".join(parser.parts)
    lines, fenced, verbatim = [], False, False
    for line in text.split("\n"):
        if line in (VERBATIM, END_VERBATIM):
            verbatim = line == VERBATIM
            continue
        if line == FENCE:
            fenced = not fenced
        lines.append(line.rstrip() if (fenced or verbatim) and line != FENCE else " ".join(line.split()))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def plain_headings(body: str) -> str:
    """A section's opening heading lines (a chapter's "# The storm", a bare heading folded into
    the next) as their words, as every other format's sections begin: the heading path says
    what they are, and a person reads no "#" in a web page or a book."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        m = HEADING.match(line)
        if m:
            lines[i] = m.group(2)
        elif line.strip():
            break
    return "\n".join(lines)


def sections(text: str) -> list[Section]:
    """``html_to_text``'s text cut at its headings: each section under the path of headings
    above it, opening with its heading's words (``plain_headings``); none without text."""
    return [Section(p.heading_path, body) for p in markdown_sections(text)
            if (body := plain_headings(text[p.start:p.end].strip()))]
