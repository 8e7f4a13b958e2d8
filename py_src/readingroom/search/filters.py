"""Filters as SQL: fixed fragments with parameters, never user text in the SQL.

The fragments refer to ``c`` (chunks) and ``d`` (documents), which every candidate query
joins, so a filter means the same thing in the vector leg and the lexical leg.
"""

from __future__ import annotations

from typing import Any

from ..store import sqlite_sql as sql
from ..errors import BadInput
from ..records import Filters


def _in(column: str, values: tuple, param: str = "?") -> tuple[str, list[Any]]:
    return f"{column} IN ({', '.join([param] * len(values))})", list(values)


def where(f: Filters, dialect=None) -> tuple[str, list[Any]]:
    """A WHERE body (true when nothing is filtered) and its parameters, in ``dialect``'s
    terms (``store.sqlite_dialect`` unless given)."""
    if dialect is None:
        from ..store import sqlite_dialect as dialect
    p = dialect.PARAM
    parts: list[str] = []
    params: list[Any] = []

    def add(sql: str, ps: list[Any]) -> None:
        parts.append(sql)
        params.extend(ps)

    if f.doc_ids:
        add(*_in("d.id", f.doc_ids, p))
    if f.doc_names:
        add(*_in("d.name", f.doc_names, p))
    if f.doc_types:
        add(*_in("d.doc_type", f.doc_types, p))
    if f.source_types:
        add(*_in("d.source_type", f.source_types, p))
    for tag in f.tags:
        add(f"EXISTS (SELECT 1 FROM doc_tags t WHERE t.doc_id = d.id AND t.tag = {p})", [tag])
    for key, value in f.metadata:
        add(dialect.META_EQUALS, dialect.meta_params(key, value))
    if f.date_from:
        add(f"d.date >= {p}", [f.date_from])
    if f.date_to:
        add(f"d.date <= {p}", [f.date_to])
    return (" AND ".join(parts) or dialect.TRUE), params


def from_dict(d: dict | None) -> Filters:
    """Filters from the JSON the page and the CLI send; unknown keys are an error."""
    if not d:
        return Filters()
    if not isinstance(d, dict):
        raise BadInput("filters must be an object")
    known = set(Filters.__dataclass_fields__)
    unknown = set(d) - known
    if unknown:
        raise BadInput(f"unknown filter(s): {', '.join(sorted(unknown))}")
    kw: dict[str, Any] = {}
    for k, v in d.items():
        if k == "metadata":
            kw[k] = tuple(sorted((str(a), b) for a, b in dict(v).items()))
        elif k in ("date_from", "date_to"):
            kw[k] = v
        elif k == "doc_ids":
            try:
                kw[k] = tuple(int(i) for i in (v if isinstance(v, (list, tuple)) else (v,)))
            except (TypeError, ValueError) as e:
                raise BadInput(f"doc_ids must be whole numbers: {e}") from e
            if not all(sql.is_rowid(i) for i in kw[k]):
                raise BadInput("doc_ids must be document ids (whole numbers below 2**63)")
        else:
            kw[k] = tuple(str(x) for x in v) if isinstance(v, (list, tuple)) else (str(v),)
    return Filters(**kw)
