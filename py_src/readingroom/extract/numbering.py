"""A numbered list's numbers as the program that made the list draws them: 1, a, A, i, I (and 01).

Word names its formats (``w:numFmt``: decimal, lowerLetter, upperRoman, ...); OpenDocument
(``style:num-format``) and HTML (``<ol type>``) use one character for the same five. Formats this
does not draw (Chinese counting, ordinals in words, ...) are written as decimal numbers; "none"
draws nothing."""

SHORT = {"1": "decimal", "a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman", "I": "upperRoman"}

_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
          (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def _roman(n: int) -> str:
    out = []
    for value, digits in _ROMAN:
        count, n = divmod(n, value)
        out.append(digits * count)
    return "".join(out)


def _letters(n: int, repeat: bool) -> str:
    """1 -> a, 26 -> z; then Word's aa, bb, ... (``repeat``) or a spreadsheet's aa, ab, ..."""
    if repeat:
        return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)
    out = ""
    while n > 0:
        n, rest = divmod(n - 1, 26)
        out = chr(ord("a") + rest) + out
    return out


def label(n: int, fmt: str) -> str:
    """``n`` in ``fmt``: a Word format name (after z: aa, bb, as Word counts), or one of
    ``SHORT``'s characters (after z: aa, ab, as OpenDocument and HTML count)."""
    repeat_letters = fmt not in SHORT
    fmt = SHORT.get(fmt, fmt)
    if fmt == "none":
        return ""
    if fmt in ("lowerLetter", "upperLetter") and n >= 1:
        text = _letters(n, repeat_letters)
        return text.upper() if fmt == "upperLetter" else text
    if fmt in ("lowerRoman", "upperRoman") and 1 <= n < 4000:
        text = _roman(n)
        return text.upper() if fmt == "upperRoman" else text
    if fmt == "decimalZero" and 0 <= n < 10:
        return f"0{n}"
    return str(n)
