"""What a line, or a block of lines, is before it is split into sentences: code, a command
typed at a prompt, a title set above its paragraph, or a contents page's or an index's
listing. Manuals typeset as PDFs put all of these among the lines of their paragraphs
(the R manuals: "> help(solve)", "5. Missing values", "1.1 The R environment 2"); the
splitter (``sentences.py``) asks these predicates and keeps the units apart.
"""

from __future__ import annotations

import re

# Documents that are programs or data: only their comments and docstrings read as sentences.
PROGRAM_TYPES = frozenset(("py", "js", "ts", "java", "go", "rs", "c", "h", "cpp", "json", "yaml", "yml", "toml"))
_CODE_CHARS = set("=(){}[]<>#@;:*|\\/_`")
# Inline code as reference prose quotes it: a spaceless name in quotes or backticks, or *emphasis*.
_QUOTED_NAME = re.compile(r'"[^"\s]{1,60}"|“[^”\s]{1,60}”|`[^`\n]{1,60}`|\*[^*\s]{1,60}\*')


def looks_like_code(block: str) -> bool:
    """An indented block is code unless it reads like prose: words, a sentence end, few
    code symbols (reference docs indent their prose under each signature)."""
    lines = [ln for ln in block.splitlines() if ln.strip()]
    if any(ln.lstrip().startswith((">>>", "... ", "$ ")) for ln in lines) or "::=" in block:
        return True
    flat = " ".join(block.split())
    words = re.findall(r"[^\W\d_]{2,}", flat)
    if len(words) < 4 or not re.search(r"[.!?:…][\"'”’)\]]*(?:\s*\[\d+\])?$", flat):
        return True
    return _dense_marks(flat)


def _dense_marks(flat: str) -> bool:
    """Code marks dense enough for code; a name quoted in prose ("__eq__()", `x<y`, *cls*) is a
    word of the sentence, not code."""
    flat = _QUOTED_NAME.sub("x", flat)
    symbols = sum(1 for c in flat if c in _CODE_CHARS)
    return symbols / max(1, len(flat.replace(" ", ""))) > 0.08


def not_a_sentence(text: str) -> bool:
    """A unit no one would quote as a sentence, whatever the splitter made of it: fewer than
    three words of two letters or more ("y x 1 ex": a figure's labels read along with its
    page). Dense code marks are no sign here: reference prose quotes code ("Thus > y <- x[-(1:5)]
    gives y all but the first five elements of x.")."""
    return len(re.findall(r"[^\W\d_]{2,}", text)) < 3


# A command typed at a prompt ("> help(solve)" in the R manuals, "$ make"), as manuals set their
# examples among the lines of a paragraph; "> " before a sentence of prose is a quotation.
_PROMPT = re.compile(r"^\s*(?:[A-Za-z][\w.-]{0,9})?[>$]\s+(\S.*)$")  # "> ", "$ ", "R> ", "sqlite> "
_CALL_MARKS = re.compile(r"[()\[\]{}=<^?|]")
MAX_LEAD_IN_LINES = 3
MAX_TITLE_WORDS = 6
ENDS_SENTENCE = re.compile(r"[.!?…:][\"'”’)\]]*$")
# A numbered section's title on its own line ("1.8 R commands, case sensitivity, etc.").
SECTION_TITLE = re.compile(r"\d+(?:\.\d+)+\s+[^\W\d_]")
# A table of contents' or an index's entry: words, then the page number.
_PAGE_ENTRY = re.compile(r"[^\W\d_].*\s\d{1,4}\s*$")


# What a console prints back under a command: "[1] -4", "[[2]]", or a line without a word.
_OUTPUT = re.compile(r"^\s*(?:\[{1,2}\d+\]{1,2}(?:\s|$)|[^A-Za-z]*(?:[A-Za-z]{1,2}[^A-Za-z]+)*[A-Za-z]{0,2}\s*$)")


def is_output(line: str) -> bool:
    return bool(line.strip()) and bool(_OUTPUT.match(line))


# A figure's labels as a PDF's text layer reads them along with the page: ticks ("10−1 100 101",
# "−0.5"), an axis' letter ("y", "x/10"), a point ("(3,5)"): a digit or a letter, never two
# letters in a row, no sentence's end or comma after them, no "=" and no ">>>". Marks alone (a
# bullet, a reference's quoted '"_*"' above its definition) are not labels.
_LABEL = re.compile(r"[^A-Za-z]*(?:[A-Za-z][^A-Za-z]+)*[A-Za-z]?")


_NOT_LABEL = re.compile(r"[.!?:;,]$|=|^(>>>|\.\.\.)")  # a sentence's end, a statement, a doctest's line


def is_label_line(line: str) -> bool:
    flat = line.strip()
    return bool(re.search(r"[A-Za-z0-9]", flat)) and bool(_LABEL.fullmatch(flat)) and not _NOT_LABEL.search(flat)


def figure_labels(lines: list[str]) -> list[bool]:
    """Which lines are a figure's labels: a run of label lines right before a line that opens
    with a capital letter, which starts a sentence of its own ("x" / "(3,5)" / "By extending the
    ticks, ..."), instead of the labels being read into it."""
    label = [is_label_line(ln) for ln in lines]
    out = [False] * len(lines)
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and label[j]:
            j += 1
        if j > i and j < len(lines) and lines[j].lstrip()[:1].isupper():
            out[i:j] = [True] * (j - i)
        i = max(j, i + 1)
    return out


# An R assignment opening a line ("total <<- total + amount", "x[i] <- 0"), a line that only
# closes brackets ("}", "})"), or one name opening a bracket it does not close ("list(").
_STATEMENT = re.compile(r"[\w.$]+(?:\[[^\]]*\]{1,2})?\s*<<?-\s*\S.*|[)}\]]+[;,]?|[\w.$]+\s*[(\[{]")


def is_code_line(line: str) -> bool:
    """A statement set as a line of a paragraph, as PDFs set listings without their
    indentation: a C-like one ("size(400,200,IgnoreAspect);", "real f(real x) {") ends in ; {
    or } and its code marks are as dense as code's, and a "//" comment is a line of it; an R
    one assigns with <- (and does not end a sentence: "x <- 1:10 gives ... ."), or only closes
    or opens a bracket."""
    flat = " ".join(line.split())
    if (flat.endswith((";", "{", "}")) and _dense_marks(flat)) or flat.startswith("//"):
        return True
    return bool(_STATEMENT.fullmatch(flat)) and not ENDS_SENTENCE.search(flat)


_CALL_LINE = re.compile(r"(?:[\w.$]+\s*(?:<<?-|=)\s*)?[\w.$]+\s*\(.*\)\s*[;{]?")


def reads_as_code(line: str) -> bool:
    """A line that is a statement when it stands among statements: one call ("stop(...)",
    "if(amount <= 0)", "plot(x, y)") or code marks as dense as code's. Alone, in prose, such
    lines are often words (a signature above its description), so this only extends a listing
    that ``is_code_line`` or a prompt has begun."""
    flat = " ".join(line.split())
    return bool(flat) and (bool(_CALL_LINE.fullmatch(flat)) or (_dense_marks(flat) and not ENDS_SENTENCE.search(flat)))


def extend_listing(lines: list[str], code: list) -> None:
    """Mark as code each line that reads as code next to a line marked so: one sweep down, one
    up (a line marked going up has its lower neighbour marked already), so a listing of any
    length costs one look at each line per sweep."""
    for i in range(1, len(lines)):
        if not code[i] and code[i - 1] is True and reads_as_code(lines[i]):
            code[i] = True
    for i in range(len(lines) - 2, -1, -1):
        if not code[i] and code[i + 1] is True and reads_as_code(lines[i]):
            code[i] = True


def is_prompt(line: str) -> bool:
    m = _PROMPT.match(line)  # a quoted line of prose ("> This wraps") has none of a call's marks
    return bool(m) and bool(_CALL_MARKS.search(m.group(1)) or len(m.group(1).split()) == 1) \
        and looks_like_code(m.group(1))


def is_listing(text: str, body: list[tuple[int, int]]) -> bool:
    """Four lines or more, most a title and a page number and almost none a sentence's end:
    a contents page or an index (prose wrapped in a PDF seldom ends three lines in five so)."""
    lines = [text[x:y].strip() for x, y in body if text[x:y].strip()]
    entries = sum(1 for ln in lines if _PAGE_ENTRY.search(ln))
    ends = sum(1 for ln in lines if re.search(r"[.!?]$", ln))
    return len(lines) >= 4 and entries >= 0.6 * len(lines) and ends <= 0.2 * len(lines)


def is_title_line(text: str, body: list[tuple[int, int]]) -> bool:
    """A run's first line is a title set above its paragraph: a few words, no stop or comma at
    its end, and the next line opens with a capital (a wrapped line of prose is much longer)."""
    if len(body) < 2:
        return False
    first, nxt = text[body[0][0]:body[0][1]].strip(), text[body[1][0]:body[1][1]].lstrip()
    words = re.findall(r"[^\W\d_]{2,}", first)
    return (0 < len(words) <= MAX_TITLE_WORDS and len(first.split()) <= MAX_TITLE_WORDS + 1
            and not re.search(r"[.!?:;,…\-–—(\[{=][\"'”’)\]]*$", first) and nxt[:1].isupper()
            and not _CALL_MARKS.search(first) and words[-1] not in _JOINING)


# Words a title does not end with but a wrapped line of prose often does.
_JOINING = frozenset("a an and as at but by for from if in into is of on or than that the to was "
                     "were which with".split())
