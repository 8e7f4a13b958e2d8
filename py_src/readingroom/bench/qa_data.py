"""Public question-answering sets for training and checking the answer models.

Never shipped and never read at build or test time: a developer fetches public copies once
(see ``docs/answer-model.md`` for where from, with their sha256) into a folder of JSON-lines
files, one question a line::

    {"id", "source", "split", "question", "title", "context", "sentences": [...], "labels": [0/1...],
     "answers": [...], "impossible": bool}

Sentence-selection sets (WikiQA, SelQA) label each sentence of the context; reading-comprehension
sets (SQuAD) give answer spans instead. Either way a question becomes: its document (the
title's distinct contexts, in order of first appearance), and a test that tells whether a
sentence the engine quotes holds the answer.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

# The training data, in groups: each group's articles are split (train / held back / left out)
# and indexed into a library of their own, so a group's questions meet only its own articles.
# A group may take at most ``per_title`` questions of an article (a set of 80,000 questions
# teaches no more than a sample of it, and costs hours of retrieval).
TRAIN_GROUPS: dict[str, tuple[tuple[str, ...], int | None]] = {
    "wiki": (("selqa/dev.jsonl", "selqa/test.jsonl", "wikiqa/train.jsonl", "wikiqa/dev.jsonl"), None),
    "squad": (("squad-train-part/train.jsonl",), 40),  # parts of SQuAD 1.1/2.0 *train*
    "nq": (("qed/train.jsonl",), None),  # Natural Questions search queries (QED's dev file)
    "shifts": (("squadshifts-new-wiki/train.jsonl",), 40),  # SQuADShifts New Wiki (then never reported)
}
SQUAD_DEV = "squad11-dev/dev.jsonl"  # reserved: checking only, never training or calibration
WIKIQA_TEST = "wikiqa/test.jsonl"  # held out: reported, never trained or calibrated on

_TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> str:
    """Lower-case alphanumeric tokens joined by single spaces: sentences compare across the
    sets' tokenisation ("cave ." vs "cave.") and our splitter's boundaries."""
    return " ".join(_TOKEN.findall(text.lower()))


@dataclass
class Item:
    id: str
    source: str
    question: str
    title: str
    gold: list[str] = field(default_factory=list)  # answer sentences (tokens form)
    answers: list[str] = field(default_factory=list)  # answer spans (tokens form)

    @property
    def answerable(self) -> bool:
        return bool(self.gold or self.answers)

    def holds_answer(self, sentence: str) -> bool:
        t = tokens(sentence)
        if not t:
            return False
        if any(a and f" {a} " in f" {t} " for a in self.answers):
            return True
        for g in self.gold:
            if g and (g in t or (len(t.split()) >= 5 and t in g)):
                return True
        return False


def read(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load(root: Path, files: tuple[str, ...]) -> tuple[list[Item], dict[str, str]]:
    """Items and documents (title -> text) of the given files."""
    items: list[Item] = []
    contexts: dict[str, list[str]] = {}
    for rel in files:
        for r in read(root / rel):
            title = r.get("title") or "paragraph " + hashlib.sha1(r["context"].encode()).hexdigest()[:12]
            ctxs = contexts.setdefault(title, [])
            if r["context"] not in ctxs:
                ctxs.append(r["context"])
            gold = [tokens(s) for s, y in zip(r.get("sentences") or [], r.get("labels") or []) if y]
            answers = [tokens(a) for a in r.get("answers") or []] if not r.get("sentences") else []
            items.append(Item(r["id"], r["source"], r["question"], title, gold, [a for a in answers if a]))
    return items, {t: "\n\n".join(c) for t, c in contexts.items()}


def group(root: Path, name: str) -> tuple[list[Item], dict[str, str]]:
    """A training group's items (at most its ``per_title`` of each article, the first ones in
    file order) and documents."""
    files, per_title = TRAIN_GROUPS[name]
    items, docs = load(root, files)
    if per_title:
        seen: dict[str, int] = {}
        kept = []
        for it in items:
            seen[it.title] = seen.get(it.title, 0) + 1
            if seen[it.title] <= per_title:
                kept.append(it)
        items = kept
    return items, docs


def split_titles(titles: list[str], seed: int = 11, held: float = 0.25, outside: float = 0.15
                 ) -> tuple[set[str], set[str], set[str]]:
    """(train, held back, outside the library) by title, so no article is on two sides: the
    first two are indexed; questions about the third are ones the library does not cover."""
    ts = sorted(titles)
    random.Random(seed).shuffle(ts)
    a = int(len(ts) * outside)
    b = a + int(len(ts) * held)
    return set(ts[b:]), set(ts[a:b]), set(ts[:a])


def split_group(root: Path, name: str) -> tuple[list[Item], dict[str, str], tuple[set[str], set[str], set[str]]]:
    """A training group's items, documents and (train, held back, outside) titles: the one split
    training and the held-back figures (``bench answers --public heldback-NAME``) both use."""
    items, docs = group(root, name)
    return items, docs, split_titles(list(docs))


def squad_subset(root: Path, articles: int = 12, per_article: int = 25, seed: int = 5
                 ) -> tuple[list[Item], dict[str, str]]:
    """SQuAD v1.1 dev: ``per_article`` questions of each of ``articles`` articles (check only)."""
    items, docs = load(root, (SQUAD_DEV,))
    titles = sorted(docs)
    rng = random.Random(seed)
    chosen = set(rng.sample(titles, min(articles, len(titles))))
    out = []
    for t in sorted(chosen):
        its = [i for i in items if i.title == t]
        out += rng.sample(its, min(per_article, len(its)))
    return out, {t: docs[t] for t in chosen}
