"""Spreadsheets (.xlsx, .xlsm, .csv, .tsv; .ods comes through ``odf``): each sheet a
section, its first non-empty row the header, repeated in every piece when the sheet is cut by
rows; each piece's heading path says which rows it holds. Formulas are not evaluated (the
value the file last saved is read) and macros never run. Past ``MAX_CELLS`` cells the rest
is left out and the document says so (a million cells would be some 10,000 passages: hours
of embedding in the page). Sheets are read row by row (``iterparse``), never as one tree."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime, timedelta
from xml.etree import ElementTree as ET

from .. import places
from ..errors import CorruptFile, EmptyDocument
from .document import Document, Section, cell_costs, column_groups, columns_of, line_costs, split_rows, table_lines
from .zipped import Package, main_part, related, relations, transitional

MAX_CELLS = 200_000
MAX_CHARS = 8_000_000  # of cell text: some 10,000 passages, as many as MAX_CELLS makes
S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_COL = re.compile(r"([A-Z]+)(\d+)")
_DATE_FORMATS = set(range(14, 23)) | set(range(45, 48))


class Budget:
    """Cells, and characters in them, left to read in one file. A cell's text can be long and
    many cells can share one string: a 14 KB workbook whose 30,000 cells all show one shared
    string of 1 MB (Apache POI's poc-shared-strings.xlsx) is 30 GB of text."""

    def __init__(self, name: str):
        self.name, self.left, self.chars, self.capped = name, MAX_CELLS, MAX_CHARS, ""

    def take(self, cells: list[str]) -> bool:
        """Whether a row of these cells may still be read."""
        self.left -= len(cells)
        self.chars -= sum(len(c) for c in cells)
        if not self.capped and self.left < 0:
            self.capped = f"{self.name} has more than {MAX_CELLS:,} cells; only the first {MAX_CELLS:,} were read"
        elif not self.capped and self.chars < 0:
            self.capped = (f"{self.name}'s cells hold more than {MAX_CHARS:,} characters; only the rows "
                           "before that were read")
        return not self.capped

    def note(self) -> list[str]:
        return [self.capped] if self.capped else []


def sheet_sections(title: str | None, rows: list[tuple[int, list[str]]]) -> list[Section]:
    """A sheet's rows ``(row number, cells)`` as sections: one when it fits, else pieces."""
    rows = [(n, [c.strip() for c in cells]) for n, cells in rows if any(c.strip() for c in cells)]
    if not rows:
        return []
    width = max(len(c) for _, c in rows)
    while width and not any(len(c) >= width and c[width - 1] for _, c in rows):
        width -= 1
    titles, rows = _titles(rows)
    cells = [c[:width] for _, c in rows]
    head = (places.sheet_heading(title),) if title is not None else ()
    numbers = [n for n, _ in rows[1:]]
    above = "".join(t + "\n\n" for t in titles)
    costs = cell_costs(cells)
    groups = column_groups(cells, costs=costs)
    out = []
    for cols in groups:  # a sheet too wide for a row to fit: by columns, then by rows
        lines = table_lines(cells if len(groups) == 1 else columns_of(cells, cols))
        header, body = lines[:2], lines[2:]
        pieces = split_rows(header, line_costs(costs, cols)[1:])
        where = (places.columns_heading(cols),) if len(groups) > 1 else ()
        if len(pieces) <= 1 and not where:
            return [Section(head, above + "\n".join(lines))]
        out += [Section(head + (places.rows_heading(numbers[a], numbers[b - 1]),) + where,
                        (above if not out and a == 0 else "") + "\n".join(header + body[a:b]))
                for a, b in pieces]
    return out


MAX_TITLE_ROWS = 3


def _titles(rows: list[tuple[int, list[str]]]) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """A sheet's title lines above its header row ("Arrest bookings for 01/30/17" alone in
    A1 over a header of 36 columns), and its rows from the header on. Only rows of one cell,
    at most ``MAX_TITLE_ROWS``, over a row of two cells or more; otherwise none."""
    n = 0
    while n < min(MAX_TITLE_ROWS, len(rows) - 1) and sum(1 for c in rows[n][1] if c) == 1:
        n += 1
    if n == 0 or sum(1 for c in rows[n][1] if c) < 2:
        return [], rows
    return [next(c for c in cells if c) for _, cells in rows[:n]], rows[n:]


def _column(ref: str) -> int:
    m = _COL.match(ref or "")
    if not m:
        return -1
    n = 0
    for ch in m.group(1):
        n = n * 26 + ord(ch) - 64
    return n - 1


def _date_styles(pkg: Package, styles: str) -> set[int]:
    root = pkg.optional_xml(styles)
    if root is None:
        return set()
    custom = {int(f.get("numFmtId", "0")) for f in root.iter(f"{S}numFmt")
              if re.search(r"[dmy]", re.sub(r'"[^"]*"|\[[^]]*\]', "", f.get("formatCode", "").lower()))}
    xfs = root.find(f"{S}cellXfs")
    return {i for i, xf in enumerate(xfs if xfs is not None else [])
            if int(xf.get("numFmtId", "0")) in _DATE_FORMATS | custom}


_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")  # OOXML's escape for a character XML cannot hold


def _string(si: ET.Element) -> str:
    """A string item's text: its runs, not the phonetic guide (``rPh``) over Japanese text;
    ``_x000D_`` and the like read as the characters they stand for (a pair of surrogate
    escapes as one character)."""
    parts = [t.text or "" for t in si.findall(f"{S}t")] + [t.text or "" for t in si.findall(f"{S}r/{S}t")]
    if not parts:
        parts = [t.text or "" for t in si.iter(f"{S}t")]
    return _ESCAPED.sub(lambda m: chr(int(m[1], 16)), "".join(parts))  # halves paired by extract.whole


def _number(text: str) -> str:
    """A number as Excel shows it: at most 15 significant digits (10.2, not the stored
    10.199999999999999)."""
    if len(text) <= 15 or not re.fullmatch(r"-?\d+\.\d+(?:[eE][-+]?\d+)?", text):
        return text
    try:
        return f"{float(text):.15g}"
    except ValueError:
        return text


EPOCH, EPOCH_1904 = datetime(1899, 12, 30), datetime(1904, 1, 1)  # day 0 of a workbook's serial dates


def _value(c: ET.Element, shared: list[str], dates: set[int], epoch: datetime = EPOCH) -> str:
    kind = c.get("t", "n")
    if kind == "inlineStr":
        inline = c.find(f"{S}is")
        return _string(inline) if inline is not None else ""
    v = c.find(f"{S}v")
    text = v.text if v is not None and v.text is not None else ""
    if kind == "s":
        return shared[int(text)] if text.isdigit() and int(text) < len(shared) else ""
    if kind == "b":
        return "TRUE" if text == "1" else "FALSE"
    if kind == "n" and text and c.get("s", "").isdigit() and int(c.get("s")) in dates:
        try:
            day = epoch + timedelta(days=float(text))
            return day.strftime("%Y-%m-%d") if day.hour == day.minute == 0 else day.isoformat(" ", "minutes")
        except (ValueError, OverflowError):
            return text
    return _number(text) if kind == "n" else text


def _rows(pkg: Package, part: str):
    """A worksheet's ``<row>`` elements one at a time."""
    data = transitional(pkg.raw(part))
    if b"<!ENTITY" in data:
        raise CorruptFile(f"{pkg.name} was refused: its part {part} declares XML entities")
    try:
        for _event, el in ET.iterparse(io.BytesIO(data)):
            if el.tag == f"{S}row":
                yield el
    except ET.ParseError as e:
        raise CorruptFile(f"{pkg.name} is damaged: its part {part} is not well-formed XML ({e})") from e


def read_xlsx(name: str, data: bytes) -> Document:
    pkg = Package(name, data, "an Excel workbook")
    book = main_part(pkg, "xl/workbook.xml")
    links = relations(pkg, book)
    rels = {rid: target for rid, _type, target in links}
    root = pkg.optional_xml(related(links, "sharedStrings", "xl/sharedStrings.xml"))
    shared = [_string(si) for si in root.iter(f"{S}si")] if root is not None else []
    dates = _date_styles(pkg, related(links, "styles", "xl/styles.xml"))
    budget = Budget(name)
    sections: list[Section] = []
    workbook = pkg.xml(book)
    props = workbook.find(f"{S}workbookPr")  # a workbook from old Mac Excel counts its days from 1904
    epoch = EPOCH_1904 if props is not None and props.get("date1904") in ("1", "true") else EPOCH
    sheets = list(workbook.iter(f"{S}sheet"))
    for sheet in sheets:
        part = rels.get(sheet.get(f"{R}id", ""))
        if not part or not pkg.has(part) or budget.capped:
            continue
        rows = []
        for row in _rows(pkg, part):
            out: list[str] = []
            for i, c in enumerate(row.findall(f"{S}c")):
                col = _column(c.get("r", "")) if c.get("r") else i
                out += [""] * (max(col, len(out)) - len(out))
                out.append(_value(c, shared, dates, epoch))
            if not budget.take(out):
                break
            rows.append((int(row.get("r", len(rows) + 1)), out))
            row.clear()
        sections += sheet_sections(sheet.get("name", "?"), rows)
    if not sections:
        raise EmptyDocument(f"{name} has no cells with text or numbers")
    return Document("xlsx", sections, notes=budget.note(), pages=len(sheets))


DELIMITERS = (",", ";", "\t", "|")  # the comma first: it wins a tie


def delimiter(text: str, doc_type: str) -> str:
    """The character a .csv's cells are split at: the one that gives its first lines the
    same number of cells, two or more, most often. Excel in much of Europe writes ";" (the
    comma is the decimal mark there: "1.234,50"); a .tsv is split at tabs."""
    if doc_type == "tsv":
        return "\t"
    head = "\n".join(text.splitlines()[:50])

    def steadiness(d: str) -> int:
        try:
            widths = [len(r) for r in csv.reader(io.StringIO(head), delimiter=d) if any(c.strip() for c in r)]
        except csv.Error:
            return 0
        if not widths:
            return 0
        common = max(set(widths), key=widths.count)
        return widths.count(common) if common >= 2 else 0
    return max(DELIMITERS, key=steadiness)


def read_delimited(name: str, text: str, doc_type: str) -> Document:
    budget = Budget(name)
    rows = []
    split = delimiter(text, doc_type)
    reader = csv.reader(io.StringIO(text), delimiter=split)
    try:
        for number, cells in enumerate(reader, start=1):
            if not budget.take(cells):
                break
            rows.append((number, cells))
    except csv.Error:
        rows = [(n, line.split(split)) for n, line in enumerate(text.splitlines(), 1)]
    sections = sheet_sections(None, rows)
    if not sections:
        raise EmptyDocument(f"{name} has no text to index")
    return Document(doc_type, sections, notes=budget.note(), pages=1)
