"""Read a BEIR-format folder: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..ingest.add import NewDocument


@dataclass(frozen=True)
class Dataset:
    corpus: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    corpus_hash: str

    def documents(self) -> list[NewDocument]:
        """One document per corpus entry, named by its id; the title leads the text."""
        return [NewDocument(name=did, text=(f"{t}\n\n{x}" if t else x), doc_type="txt")
                for did, (t, x) in self.corpus.items()]

    def subset(self, distractors: int) -> "Dataset":
        """Every judged document and ``distractors`` of the others, spread evenly over the
        corpus in its order (the same ones every time): a smaller corpus with the same questions
        and answers, for a quality check that must not embed the whole corpus."""
        judged = {d for rel in self.qrels.values() for d in rel}
        others = [d for d in self.corpus if d not in judged]
        step = max(1, len(others) // max(1, distractors))
        keep = judged | set(others[::step][:distractors])
        corpus = {d: v for d, v in self.corpus.items() if d in keep}
        h = hashlib.sha256(f"{self.corpus_hash}:{distractors}:".encode() + "\n".join(corpus).encode())
        return Dataset(corpus, self.queries, self.qrels, h.hexdigest()[:16])


def load(folder: str | Path, split: str = "train") -> Dataset:
    folder = Path(folder)
    corpus_path = folder / "corpus.jsonl"
    if not corpus_path.exists():
        raise FileNotFoundError(f"{corpus_path} not found: is {folder} a BEIR folder?")
    raw = corpus_path.read_bytes()
    corpus = {}
    for line in raw.decode("utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            corpus[str(d["_id"])] = (d.get("title") or "", d.get("text") or "")
    queries = {}
    for line in (folder / "queries.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            queries[str(d["_id"])] = d["text"]
    qrels: dict[str, dict[str, int]] = {}
    for i, line in enumerate((folder / "qrels" / f"{split}.tsv").read_text("utf-8").splitlines()):
        parts = line.split("\t")
        if i == 0 and not parts[-1].strip().lstrip("-").isdigit():
            continue  # header
        if len(parts) >= 3:
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return Dataset(corpus, queries, qrels, hashlib.sha256(raw).hexdigest()[:16])
