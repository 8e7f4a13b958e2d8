"""Small builders of plain records for the pure-function tests."""

from readingroom.text import tokens
from readingroom.search.merge import text_hash
from readingroom.records import Hit


def hit(cid, doc=1, idx=None, text=None, score=0.0, start=None, end=None, page=None, meta=None,
        heading=()):
    idx = cid if idx is None else idx
    text = text if text is not None else f"chunk {cid} text."
    start = idx * 100 if start is None else start
    end = start + len(text) if end is None else end
    return Hit(chunk_id=cid, doc_id=doc, doc_name=f"doc{doc}", doc_type="txt", chunk_index=idx,
               text=text, start=start, end=end, text_hash=text_hash(text), token_count=tokens.estimate(text),
               heading_path=tuple(heading), page=page, meta=meta or {}, fused=score, score=score)
