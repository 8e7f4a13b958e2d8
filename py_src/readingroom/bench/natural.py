"""A bench corpus of any size with natural term statistics (``bench latency --corpus natural``).

``corpus.scaled_index`` repeats SciFact: at a million chunks every word's postings are exactly
200 times SciFact's and no word is new, so the lexical leg's work and the page's lexicon are
those of a strange corpus. Real text keeps meeting new words (Heaps' law), and most of its
vocabulary is rare (Zipf's law). No million-passage public corpus can be fetched here at bench
time, so this one is generated, calibrated on SciFact's own chunks:

- word frequencies follow SciFact's rank-frequency curve for its words seen at least
  ``RELIABLE`` times, and the power law fitted to the middle of that curve past them;
- the vocabulary grows with the token count as Heaps' law fitted on SciFact predicts (about
  three hundred thousand distinct words at 1M passages), SciFact's rarer words first, then made-up
  words;
- each document has a topic (``TOPIC_WORDS`` words it repeats, ``TOPIC_SHARE`` of its tokens),
  as real documents do; passage lengths and passages per document are drawn from SciFact's;
- vectors: a document's passages lie near one real SciFact chunk vector (Gaussian noise,
  renormalised), so the vector leg sees MiniLM's geometry and real queries have neighbours.

The text is not language: answers read as nonsense. It is for latency, memory and postings
lengths; ``term_stats`` compares its postings with the repeated corpus' for the same queries.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from ..store import sqlite_sql as sql
from .._compat import open_store
from ..store.index import Index, Provenance
from ..search.merge import text_hash
from ..model_files import DIM, MODEL_ID
from .corpus import read_chunks, with_kept_postings

RELIABLE = 5  # SciFact's counts are used as they are down to this many occurrences
TOPIC_WORDS, TOPIC_SHARE = 30, 0.2
NOISE_SD = 0.01  # per vector component, before renormalising (as corpus.scaled_index)
BLOCK_DOCS = 5_000  # documents per transaction
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def calibrate(texts: list[str]) -> dict:
    """SciFact's rank-frequency curve and Heaps' law, fitted on its chunks in order."""
    counts: dict[str, int] = {}
    tokens, growth = 0, []
    for text in texts:
        ws = words(text)
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
        tokens += len(ws)
        growth.append((tokens, len(counts)))
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    freq = np.array([counts[w] for w in ranked], dtype=np.float64)
    n, v = np.array(growth[len(growth) // 10:], dtype=np.float64).T  # past the first tenth's burst
    beta, log_k = np.polyfit(np.log(n), np.log(v), 1)
    reliable = int((freq >= RELIABLE).sum())
    r = np.arange(1, len(freq) + 1, dtype=np.float64)
    middle = slice(100, max(reliable, 200))
    slope, _ = np.polyfit(np.log(r[middle]), np.log(freq[middle]), 1)
    lengths = np.array([len(words(t)) for t in texts])
    return {"words": ranked, "freq": freq, "reliable": reliable, "heaps_k": float(np.exp(log_k)),
            "heaps_beta": float(beta), "zipf_s": float(-slope), "tokens": tokens,
            "lengths": lengths[lengths > 0]}


def probabilities(cal: dict, vocabulary: int) -> np.ndarray:
    """P(word of rank r) for r = 1..vocabulary: SciFact's counts while reliable, then the
    fitted power law, continuous where they meet."""
    head = cal["freq"][: cal["reliable"]]
    r = np.arange(cal["reliable"] + 1, vocabulary + 1, dtype=np.float64)
    tail = head[-1] * (r / cal["reliable"]) ** -cal["zipf_s"]
    p = np.concatenate([head, tail])
    return p / p.sum()


def made_up(count: int, taken: set[str], seed: int) -> list[str]:
    """``count`` distinct pronounceable non-words (none of ``taken``), 3 to 5 syllables."""
    rng = np.random.default_rng(seed)
    onsets = list("bdfgklmnprstvz") + ["br", "ch", "dr", "gl", "kr", "pl", "sh", "st", "th", "tr"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ou", "ea"]
    out: list[str] = []
    seen = set(taken)
    while len(out) < count:
        n = count - len(out)
        syll = rng.integers(3, 6, n)
        for k in syll:
            w = "".join(onsets[rng.integers(len(onsets))] + vowels[rng.integers(len(vowels))] for _ in range(k))
            if w not in seen:
                seen.add(w)
                out.append(w)
    return out


def vocabulary_for(cal: dict, tokens: int, seed: int) -> tuple[list[str], np.ndarray]:
    """The words of a corpus of ``tokens`` tokens, by rank, and their probabilities."""
    size = max(len(cal["words"]), int(cal["heaps_k"] * tokens ** cal["heaps_beta"]))
    vocab = cal["words"] + made_up(size - len(cal["words"]), set(cal["words"]), seed)
    return vocab, probabilities(cal, size)


def natural_index(source: Path, n_chunks: int, out: Path, seed: int = 11) -> Path:
    """An index of exactly ``n_chunks`` generated passages (cached by name); see the module."""
    if out.exists():
        return with_kept_postings(out)
    chunks = read_chunks(source)
    cal = calibrate([c["text"] for c in chunks])
    anchors = np.stack([np.frombuffer(c["vector"], np.float32) for c in chunks])
    per_doc = np.bincount(np.unique([c["doc"] for c in chunks], return_inverse=True)[1])
    rng = np.random.default_rng(seed)
    lengths = rng.choice(cal["lengths"], n_chunks)
    vocab, p = vocabulary_for(cal, int(lengths.sum()), seed)
    cdf = np.cumsum(p)
    content = int(np.searchsorted(cdf, 0.5))  # topic words come from past the most common half

    tmp = out.with_name(f"{out.stem}.{os.getpid()}.building")
    if tmp.exists():
        tmp.unlink()
    index = Index(open_store(tmp), Provenance(MODEL_ID, DIM))
    store = index.store
    store.execute_script("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF")
    chunk_id, doc_id, written = 0, 0, 0
    while written < n_chunks:
        with index.transaction():
            for _ in range(BLOCK_DOCS):
                if written >= n_chunks:
                    break
                doc_id += 1
                k = int(min(rng.choice(per_doc), n_chunks - written))
                below = cdf[content - 1]
                topic = np.minimum(np.searchsorted(cdf, below + rng.random(TOPIC_WORDS) * (1 - below)),
                                   len(vocab) - 1)
                anchor = anchors[rng.integers(len(anchors))]
                texts = []
                for n in lengths[written: written + k]:
                    ranks = np.minimum(np.searchsorted(cdf, rng.random(n)), len(vocab) - 1)
                    local = rng.random(n) < TOPIC_SHARE
                    ranks[local] = topic[rng.integers(TOPIC_WORDS, size=int(local.sum()))]
                    texts.append(" ".join(vocab[r] for r in ranks) + ".")
                body = "\n\n".join(texts)
                store.query(_INSERT_DOC, (doc_id, f"natural/{doc_id:07d}.txt", f"natural-{doc_id}", len(body)))
                vecs = anchor + rng.normal(0, NOISE_SD, (k, DIM)).astype(np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                start = 0
                for i, (text, vec) in enumerate(zip(texts, vecs)):
                    chunk_id += 1
                    store.query(_INSERT_CHUNK, (chunk_id, doc_id, i, start, start + len(text),
                                                len(text.split()), text, text_hash(text)))
                    store.query(sql.INSERT_VECTOR, (chunk_id, vec.tobytes()))
                    start += len(text) + 2
                written += k
    index.keep_postings()
    store.close()
    tmp.rename(out)
    return out


def term_stats(index_path: Path, queries: list[str], repeated_from: Path | None = None) -> dict:
    """Postings of the queries' words in this index (FTS5's own document counts), and in the
    SciFact index ``repeated_from`` repeated to this index's size (what corpus.scaled_index
    would hold)."""
    def read(path: Path) -> tuple[dict, int]:
        store = open_store(path)
        try:
            store.execute_script("CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, 'chunks_fts', 'row')")
            return dict(store.query("SELECT term, doc FROM temp.v")), int(store.query(sql.COUNTS)[0][1])
        finally:
            store.close()

    def postings(df: dict, chunks: int, scale: float) -> dict:
        per_word = [df.get(w, 0) * scale for q in queries for w in _stems(q)]
        return {"chunks": round(chunks * scale), "distinct_terms": len(df),
                "query_term_postings_mean": round(float(np.mean(per_word)), 1),
                "query_term_postings_p50": float(np.median(per_word)),
                "query_term_postings_p95": float(np.percentile(per_word, 95))}

    df, chunks = read(index_path)
    out = {"natural": postings(df, chunks, 1)}
    if repeated_from is not None:
        source_df, source_chunks = read(repeated_from)
        out["repeated"] = postings(source_df, source_chunks, chunks / source_chunks)
    return out


def _stems(text: str) -> list[str]:
    from ..search.porter import stem

    return [s for w in words(text) if (s := stem(w))]


_INSERT_DOC = """
INSERT INTO documents(id, name, doc_type, content_hash, size, added_at)
VALUES (?, ?, 'text', ?, ?, '2026-11-25T00:00:00Z')
"""
_INSERT_CHUNK = """
INSERT INTO chunks(id, doc_id, idx, start_char, end_char, token_count, text, text_hash)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
"""
