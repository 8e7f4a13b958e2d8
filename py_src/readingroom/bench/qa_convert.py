"""Convert the public question-answering sets into the JSON-lines files ``qa_data`` reads.

    python -m readingroom.bench.qa_convert --raw RAWDIR --out DIR

Run once, at development time, never at build or test time. ``RAWDIR/<name>/`` holds each raw
file at its path in the repository it comes from (``docs/answer-model.md`` gives the commits
and the sha256 of every raw file). What each source becomes, one question a line::

    {"id", "source", "split", "question", "title", "context", "sentences", "labels", "answers", "impossible"}

* ``selqa/ass/selqa-ass-{dev,test}.json`` (emorynlp/selqa, answer-sentence selection) ->
  ``selqa/dev.jsonl``, ``selqa/test.jsonl``: the title is the Wikipedia article, the
  sentences are the section's candidates with their 0/1 labels, the context their join;
  the ids (SelQA has none) are ``selqa-SPLIT-N``, N the question's place in its file.
* ``wikiqa/data/WikiQA/WikiQA-{train,dev,test}.tsv.gz`` (a copy of WikiQA in
  rohantilva/Google-Like-Question-Answering-System) -> ``wikiqa/{train,dev,test}.jsonl``: the
  TSV rows grouped by question, in order; a question with no positive sentence is kept, with
  no answers and ``impossible`` true.
* ``squad-train-v2/train-v2.0.json`` (its first 10 articles), ``squad-train-v1/train-v1.1.json``
  (a SQuAD 1.1 train file cut at 1.28 MB: its complete articles; the cut last one is dropped)
  and ``squad-train-flan/data/squad/train.json`` (800 SQuAD train paragraphs with 5 questions
  each, no titles and no ids) -> ``squad-train-part/train.jsonl``, in that order. A question
  already taken (by SQuAD id, or a paragraph question by paragraph and question text) is not
  taken again. The paragraphs keep an empty title (``qa_data`` names each by its hash) and get
  the id ``flan-`` + sha1 of paragraph and question. SQuAD 2.0's impossible questions are kept
  with ``impossible`` true and no answers.
* ``qed/qed-dev.jsonlines`` (google-research-datasets/QED) -> ``qed/train.jsonl``: the Natural
  Questions search query, the Wikipedia paragraph as context, NQ's short answer texts.
* ``squadshifts/datasets/new_wiki_v1.0.json`` (albertvillanova/squadshifts-website) ->
  ``squadshifts-new-wiki/train.jsonl``: SQuAD format, answers are the answer span texts.
* ``squad11-dev/explore/1.1/dev/*.html`` (rajpurkar/SQuAD-explorer, branch gh-pages) ->
  ``squad11-dev/dev.jsonl`` (checking only, never training): each article page's paragraphs,
  question ids, questions and ground-truth answers, articles in the order of ``index.html``;
  ``squad11-dev/pages.sha256`` lists the sha256 of every page read.

Span sets (SQuAD, QED, SQuADShifts) have ``sentences`` and ``labels`` null. Lines are
``json.dumps`` with its default separators and ``ensure_ascii=False``, in UTF-8.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from html.parser import HTMLParser
from pathlib import Path


def row(id_, source, split, question, title, context, sentences=None, labels=None, answers=(),
        impossible=False) -> dict:
    return {"id": id_, "source": source, "split": split, "question": question, "title": title,
            "context": context, "sentences": sentences, "labels": labels, "answers": list(answers),
            "impossible": impossible}


def write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def sentence_row(id_, source, split, question, title, sentences, labels) -> dict:
    good = [s for s, y in zip(sentences, labels) if y]
    return row(id_, source, split, question, title, " ".join(sentences), sentences, labels, good, not good)


def selqa(path: Path, split: str) -> list[dict]:
    out = []
    for i, q in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        labels = [int(j in q["answers"]) for j in range(len(q["candidates"]))]
        out.append(sentence_row(f"selqa-{split}-{i}", "selqa", split, q["question"], q["article"],
                                q["candidates"], labels))
    return out


def wikiqa(path: Path, split: str) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    header = lines[0].rstrip("\r").split("\t")
    questions: dict[str, dict] = {}
    for line in lines[1:]:
        if not line.strip():
            continue
        r = dict(zip(header, line.rstrip("\r").split("\t")))
        q = questions.setdefault(r["QuestionID"], {"q": r["Question"], "title": r["DocumentTitle"],
                                                   "sentences": [], "labels": []})
        q["sentences"].append(r["Sentence"])
        q["labels"].append(int(r["Label"]))
    return [sentence_row(qid, "wikiqa", split, q["q"], q["title"], q["sentences"], q["labels"])
            for qid, q in questions.items()]


def complete_articles(text: str) -> list[dict]:
    """The articles of a SQuAD file's ``data`` list that are whole, even if the file is cut."""
    decoder, articles = json.JSONDecoder(), []
    i = text.index("[", text.index('"data"')) + 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        try:
            article, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            return articles
        articles.append(article)


def squad_rows(articles: list[dict], source: str, split: str) -> list[dict]:
    out = []
    for a in articles:
        for p in a["paragraphs"]:
            for q in p["qas"]:
                impossible = bool(q.get("is_impossible"))
                answers = [] if impossible else [x["text"] for x in q["answers"]]
                out.append(row(q["id"], source, split, q["question"], a.get("title", ""), p["context"],
                               answers=answers, impossible=impossible))
    return out


def squad_train_parts(raw: Path) -> list[dict]:
    v2 = json.loads((raw / "squad-train-v2/train-v2.0.json").read_text(encoding="utf-8"))["data"][:10]
    v1 = complete_articles((raw / "squad-train-v1/train-v1.1.json").read_text(encoding="utf-8"))
    rows = squad_rows(v2, "squad2-train", "train") + squad_rows(v1, "squad11-train", "train")
    for p in json.loads((raw / "squad-train-flan/data/squad/train.json").read_text(encoding="utf-8")):
        for q in p["qas"]:
            key = p["context"] + "\n" + q["question"]
            rows.append(row("flan-" + hashlib.sha1(key.encode()).hexdigest()[:16], "squad-train-flan", "train",
                            q["question"], "", p["context"], answers=[q["answer"]]))
    out, ids, keys = [], set(), set()
    for r in rows:
        key = (r["context"], r["question"])
        if r["id"] in ids or (r["source"] == "squad-train-flan" and key in keys):
            continue
        ids.add(r["id"])
        keys.add(key)
        out.append(r)
    return out


def qed(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            x = json.loads(line)
            answers = [a["string"] for annotator in x["original_nq_answers"] for a in annotator]
            out.append(row(str(x["example_id"]), "qed", "dev", x["question_text"], x["title_text"],
                           x["paragraph_text"], answers=answers))
    return out


class ArticlePage(HTMLParser):
    """A SQuAD-explorer article page: its title, and per paragraph its questions with ids and
    ground-truth answers."""

    def __init__(self):
        super().__init__()
        self.title, self.paragraphs, self.links = "", [], []
        self.field, self.text = None, []  # the element whose text is being read

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif tag == "h1" and a.get("id") == "title":
            self.field = "title"
        elif tag == "pre":
            self.paragraphs.append({"context": "", "qas": []})
            self.field = "context"
        elif tag == "div" and "qa-wrap" in cls:
            self.paragraphs[-1]["qas"].append({"id": a.get("data-id", ""), "question": "", "answers": []})
        elif tag == "strong" and "question" in cls:
            self.field = "question"
        elif tag == "span" and "answer" in cls:
            self.field = "answer"
        else:
            return
        self.text = []

    def handle_data(self, data):
        if self.field:
            self.text.append(data)

    def handle_endtag(self, tag):
        if not self.field or tag not in ("h1", "pre", "strong", "span"):
            return
        text, field, self.field = "".join(self.text), self.field, None
        if field == "title":
            self.title = text
        elif field == "context":
            self.paragraphs[-1]["context"] = text
        elif field == "question":
            self.paragraphs[-1]["qas"][-1]["question"] = text
        else:
            self.paragraphs[-1]["qas"][-1]["answers"].append(text)


def squad_dev_pages(folder: Path) -> tuple[list[dict], list[str]]:
    """SQuAD v1.1 dev rows from the explorer pages, and ``sha256  name`` lines of the pages."""
    index = ArticlePage()
    index.feed((folder / "index.html").read_text(encoding="utf-8"))
    names = [h.split("?")[0].rsplit("/", 1)[-1] for h in index.links if "/explore/1.1/dev/" in h]
    names = [n for n in dict.fromkeys(names) if n.endswith(".html") and (folder / n).exists()]
    names += sorted(p.name for p in folder.glob("*.html") if p.name != "index.html" and p.name not in names)
    rows, sums = [], []
    for name in names:
        data = (folder / name).read_bytes()
        sums.append(f"{hashlib.sha256(data).hexdigest()}  {name}")
        page = ArticlePage()
        page.feed(data.decode("utf-8"))
        for p in page.paragraphs:
            for q in p["qas"]:
                rows.append(row(q["id"], "squad11-dev", "dev", q["question"], page.title, p["context"],
                                answers=q["answers"]))
    return rows, sums


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raw", type=Path, required=True, help="folder of the raw files, RAW/<name>/<repo path>")
    ap.add_argument("--out", type=Path, required=True, help="folder the JSON-lines files are written to")
    a = ap.parse_args(argv)
    raw, out = a.raw, a.out
    files = {
        "selqa/dev.jsonl": lambda: selqa(raw / "selqa/ass/selqa-ass-dev.json", "dev"),
        "selqa/test.jsonl": lambda: selqa(raw / "selqa/ass/selqa-ass-test.json", "test"),
        **{f"wikiqa/{s}.jsonl": (lambda s=s: wikiqa(raw / f"wikiqa/data/WikiQA/WikiQA-{s}.tsv.gz", s))
           for s in ("train", "dev", "test")},
        "squad-train-part/train.jsonl": lambda: squad_train_parts(raw),
        "qed/train.jsonl": lambda: qed(raw / "qed/qed-dev.jsonlines"),
        "squadshifts-new-wiki/train.jsonl": lambda: squad_rows(
            json.loads((raw / "squadshifts/datasets/new_wiki_v1.0.json").read_text(encoding="utf-8"))["data"],
            "squadshifts-new-wiki", "new_wiki"),
    }
    for rel, make in files.items():
        rows = make()
        write(out / rel, rows)
        answerable = sum(1 for r in rows if r["answers"])
        print(f"{rel}: {len(rows)} questions ({answerable} answerable), {len({r['title'] for r in rows})} titles")
    rows, sums = squad_dev_pages(raw / "squad11-dev/explore/1.1/dev")
    write(out / "squad11-dev/dev.jsonl", rows)
    (out / "squad11-dev/pages.sha256").write_text("\n".join(sums) + "\n", encoding="utf-8")
    print(f"squad11-dev/dev.jsonl: {len(rows)} questions, {len({r['title'] for r in rows})} articles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
