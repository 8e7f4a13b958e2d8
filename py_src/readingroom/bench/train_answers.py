"""Train the quick answer's sentence scorer and coverage model on public data, natively.

    python -m readingroom.bench.train_answers --data DIR [--cache DIR] [--out weights.json]

``DIR`` holds the public sets as ``qa_data`` reads them (fetched at development time, never
committed; docs/answer-model.md says from where, with sha256), in the groups of
``qa_data.TRAIN_GROUPS``. Each group's articles are split by title: 60 % train, 25 % held
back, 15 % left out of the library. A group's train and held-back articles are indexed into a
native library of its own, and every question goes through the real engine (retrieval,
packing, candidate sentences, features), exactly as ``ask`` does; the groups' rows are then
pooled:

* the sentence scorer learns from the train questions which candidates hold the answer;
* the coverage model learns, from train questions (covered) and questions about left-out
  articles (not covered), whether the documents answer; its threshold is the probability that
  keeps 98 % of the held-back answerable questions, so false refusals stay near 2 %;
* the held-back questions give the figures written into the weights file: the answer in the
  best sentence and in the quick answer, against the earlier hand-set formula, and a learning
  curve (the scorer trained on a quarter, a half and all of the train questions).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from ..aio import run
from ..answer import MAX_SENTENCES, coverage, features as F, model as M, names, prepare
from ..answer.ask import embed_candidates, span_pieces
from ..ingest.add import NewDocument
from ..search.options import Options
from ..search.retrieve import retrieve
from . import learn, qa_data
from .answer_curves import baseline_logits, candidate_curve, continue_curve, features_of, figures, keep_curve
from .stats import load_average

ZERO = M.SentenceModel(tuple(F.NAMES), np.zeros(len(F.NAMES)), np.ones(len(F.NAMES)),
                       np.zeros((len(F.NAMES), 1)), np.zeros(1), np.zeros(1), 0.0)
KEEP_FALSE_REFUSALS = 0.02
COLLECTED = 40  # candidates kept per question when rows are collected (candidate_curve cuts them)


class CachedEmbedder:
    """The native embedder with a memo: the same sentences recur across a title's questions."""

    def __init__(self, inner):
        self.inner, self.memo = inner, {}
        self.model_id, self.dim, self.max_tokens = inner.model_id, inner.dim, inner.max_tokens

    async def embed(self, texts):
        need = list(dict.fromkeys(t for t in texts if t not in self.memo))
        if need:
            for t, v in zip(need, await self.inner.embed(need)):
                self.memo[t] = v
        return np.stack([self.memo[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    async def count_tokens(self, texts):
        return await self.inner.count_tokens(texts)


def library(cache: Path, docs: dict[str, str], model_dir: str):
    from ..library import Library

    path = cache / "train-library.sqlite"
    lib = Library.open(path, model_dir=model_dir)
    if not lib.documents():
        t0 = time.time()
        out = run(lib.add([NewDocument(name=t, text=x, doc_type="txt") for t, x in sorted(docs.items())]))
        print(f"indexed {len(out)} articles in {time.time() - t0:.0f} s", file=sys.stderr)
    lib.embedder = CachedEmbedder(lib.embedder)
    return lib


async def rows_for(lib, item: qa_data.Item) -> dict:
    """Everything the trainer needs of one question, computed as ``ask`` computes it."""
    result = await retrieve(lib.index, lib.embedder, item.question, Options())
    spans = result.packed.spans
    cands = prepare(item.question, spans, span_pieces(lib.index, result, spans), result.evidence,
                    COLLECTED)
    qvec, vecs, _ = await embed_candidates(lib.embedder, item.question, cands, result)
    s, ev = _decide(item.question, cands, qvec, vecs, spans, result.evidence)
    return {"x": s.features, "y": np.array([item.holds_answer(c.text) for c in cands], dtype=float),
            "ev": [ev.sentence_sim or 0.0, ev.passage_sim or 0.0, ev.words, ev.known], "missing": ev.missing,
            "q": item.question, "cands": [asdict(c) for c in cands], "cos": s.cos,
            # the vectors themselves (half precision), for features made from them later
            "qv": None if qvec is None else np.asarray(qvec, np.float16),
            "vecs": None if vecs is None else np.asarray(vecs, np.float16),
            "in_packed": any(item.holds_answer(sp.text) for sp in spans)}


def _decide(question, cands, qvec, vecs, spans, evidence):
    from ..answer import decide

    return decide(question, cands, qvec, vecs, spans, evidence, model=ZERO)


def collect(lib, items: list[qa_data.Item], label: str, keep: Path | None = None) -> list[dict]:
    """Each question's rows, in order. With ``keep``, what is collected is saved there every
    ``KEEP_EVERY`` questions and at the end, and a run cut off resumes after the questions it
    kept (collecting runs at 1-5 questions/s on two busy cores: two hours for every group)."""
    out = _kept(keep)
    done = {r["id"] for r in out}
    todo = [it for it in items if it.id not in done]
    t0 = time.time()
    for i, it in enumerate(todo):
        r = run(rows_for(lib, it))
        r["id"], r["answerable"] = it.id, it.answerable
        out.append(r)
        if (i + 1) % KEEP_EVERY == 0:  # kept and reported at the same beat
            if keep is not None:
                _keep(keep, out)
            rate = (i + 1) / (time.time() - t0)
            print(f"  {label}: {len(out)}/{len(items)} ({rate:.1f} questions/s, load {load_average()[0]:.1f})",
                  file=sys.stderr, flush=True)
    if keep is not None and todo:
        _keep(keep, out)
    return out


KEEP_EVERY = 200


def _kept(path: Path | None) -> list[dict]:
    if path is None or not path.exists():
        return []
    return list(np.load(path, allow_pickle=True)["rows"])


def _keep(path: Path, rows: list[dict]) -> None:
    part = path.with_name(path.stem + ".partial.npz")  # written whole, then renamed: never half a file
    np.savez(part, rows=np.array(rows, dtype=object))
    part.replace(path)


def refeature(sets: dict, n: int = MAX_SENTENCES) -> dict:
    """Features computed again from the stored candidates (rows collected with them), so a
    change to ``features`` retrains without running retrieval again; over the first ``n``
    candidates, as many as ``ask`` scores (all labels kept in ``y_all``)."""
    for rows in sets.values():
        for r in rows:
            if "cands" in r:
                r["y_all"] = r.get("y_all", r["y"])
                r["x"], r["y"] = features_of(r, n), r["y_all"][:n]
                if r["cos"] is not None and len(r["cos"]):  # the best sentence among those scored
                    r["ev"] = [float(np.max(r["cos"][:n])), *r["ev"][1:]]
    return sets


def sentence_model(params: dict) -> M.SentenceModel:
    return M.SentenceModel(tuple(F.NAMES), np.asarray(params["mean"]), np.asarray(params["scale"]),
                           np.asarray(params["w1"]), np.asarray(params["b1"]), np.asarray(params["w2"]),
                           params["b2"], np.asarray(params["lo"]), np.asarray(params["hi"]))


def coverage_rows(rows: list[dict], model: M.SentenceModel) -> tuple[np.ndarray, np.ndarray]:
    x = [[float(model.logits(r["x"]).max()) if len(r["x"]) else -10.0, *r["ev"], float(bool(r["missing"]))]
         for r in rows]
    return np.asarray(x), np.asarray([float(r["answerable"]) for r in rows])


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache/readingroom/train-answers")
    ap.add_argument("--out", type=Path, default=M.WEIGHTS)
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--hidden", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=2000)
    ap.add_argument("--l2", type=float, default=0.01)  # 0.05 and 0.002 did worse on the held-back articles
    ap.add_argument("--rank", type=int, default=16, help="dimensions of the learned question-sentence match")
    ap.add_argument("--groups", default=",".join(qa_data.TRAIN_GROUPS),
                    help="training groups of qa_data.TRAIN_GROUPS, comma-separated")
    a = ap.parse_args(argv)
    a.cache.mkdir(parents=True, exist_ok=True)
    if a.model_dir is None:
        from .browser import _build_module
        a.model_dir = str(_build_module().model_dir())
    names = [g for g in a.groups.split(",") if g]
    unknown = [g for g in names if g not in qa_data.TRAIN_GROUPS]
    if unknown:
        ap.error(f"unknown group {unknown[0]!r}: choose from {', '.join(qa_data.TRAIN_GROUPS)}")
    sets: dict[str, list[dict]] = {"train": [], "held": [], "outside": []}
    for name in names:
        for part, rows in group_rows(a, name).items():
            sets[part] += rows
    a.files = [f for g in names for f in qa_data.TRAIN_GROUPS[g][0]]
    a.match = add_match(sets, a.rank)
    return finish(a, refeature(sets))


MATCH_FOLDS = 4


def add_match(sets: dict, rank: int) -> dict:
    """Each row's learned match (``r["match"]``, over all its candidates): the train rows' from
    projections fitted on the other folds of the train questions (so the scorer never learns
    from a match fitted to its own labels), the held-back and left-out rows' from projections
    fitted on all of them, which are the ones shipped."""
    def fit(rows):
        groups = [(r["qv"], r["vecs"][:len(r["y"])], r["y"]) for r in rows
                  if r["qv"] is not None and len(r["y"]) and r["y"].any()]
        return learn.fit_bilinear(groups, rank=rank)

    def put(params, rows):
        sm = replace(ZERO, u=params["u"], v=params["v"])
        for r in rows:
            r["match"] = sm.match(r["qv"], r["vecs"]) if r["qv"] is not None else None

    train = sets["train"]
    for k in range(MATCH_FOLDS):
        put(fit([r for i, r in enumerate(train) if i % MATCH_FOLDS != k]), train[k::MATCH_FOLDS])
    params = fit(train)
    put(params, sets["held"] + sets["outside"])
    print(f"  match: rank {rank}, cosine scale {params['a']:.2f}, loss {params['final_loss']:.4f}", file=sys.stderr)
    return params


def group_rows(a, name: str) -> dict[str, list[dict]]:
    """A group's train, held-back and left-out rows, collected through its own library once and
    kept in ``CACHE/NAME/rows-candidates.npz`` (features made again from them on every run);
    while collecting, each part is kept in ``rows-PART.npz`` as it grows (``collect``)."""
    cache = a.cache / name
    cache.mkdir(parents=True, exist_ok=True)
    rows_path = cache / "rows-candidates.npz"
    if rows_path.exists():
        sets = with_missing(a, cache, np.load(rows_path, allow_pickle=True)["sets"].item(), rows_path)
        return continuations(refeature(sets), qa_data.group(a.data, name)[0])
    items, docs, (train_t, held_t, out_t) = qa_data.split_group(a.data, name)
    lib = library(cache, {t: docs[t] for t in train_t | held_t}, a.model_dir)
    pick = lambda ts, answerable: [i for i in items if i.title in ts and i.answerable == answerable]  # noqa: E731
    l0 = load_average()
    sets = {"train": collect(lib, pick(train_t, True), f"{name} train", cache / "rows-train.npz"),
            "held": collect(lib, pick(held_t, True), f"{name} held back", cache / "rows-held.npz"),
            "outside": collect(lib, [i for i in items if i.title in out_t], f"{name} left out",
                               cache / "rows-outside.npz")}
    lib.close()
    for r in sets["outside"]:
        r["answerable"] = False
    np.savez(rows_path, sets=np.array(sets, dtype=object))
    for part in sets:
        (cache / f"rows-{part}.npz").unlink(missing_ok=True)  # in rows-candidates.npz now
    print(f"{name}: collected rows (load {l0[0]:.1f} -> {load_average()[0]:.1f})", file=sys.stderr)
    return continuations(refeature(sets), items)


def with_missing(a, cache: Path, sets: dict, rows_path: Path) -> dict:
    """Rows collected before the coverage model weighed a missing name get it now: retrieval
    again (no candidates embedded), ``names.missing`` over what it brought back; saved."""
    todo = [r for rows in sets.values() for r in rows if "missing" not in r]
    if not todo:
        return sets
    lib, t0 = library(cache, {}, a.model_dir), time.time()
    for i, r in enumerate(todo):
        r["missing"] = run(_missing(lib, r["q"]))
        if (i + 1) % 1000 == 0:
            print(f"  missing names: {i + 1}/{len(todo)} ({(i + 1) / (time.time() - t0):.1f} questions/s, "
                  f"load {load_average()[0]:.1f})", file=sys.stderr, flush=True)
    lib.close()
    np.savez(rows_path, sets=np.array(sets, dtype=object))
    return sets


async def _missing(lib, question: str) -> str:
    result = await retrieve(lib.index, lib.embedder, question, Options())
    return names.missing(question, [h.text for h in result.evidence] + [sp.text for sp in result.packed.spans])


def continuations(sets: dict, items: list[qa_data.Item]) -> dict:
    """Each candidate's label when quoted with the sentence after it (``y_after``)."""
    by_id = {i.id: i for i in items}
    for rows in sets.values():
        for r in rows:
            it = by_id.get(r["id"])
            r["y_after"] = np.array([bool(it is not None and c.get("after") and it.holds_answer(c["text"] + c["after"]))
                                     for c in r.get("cands", [])], dtype=float)
    return sets


def finish(a, sets: dict) -> int:
    train = [(r["x"], r["y"]) for r in sets["train"] if r["y"].any()]
    curve = {}
    for share in (0.25, 0.5, 1.0):
        part = train[:max(1, int(len(train) * share))]
        params = learn.fit_listwise(part, hidden=a.hidden, epochs=a.epochs, l2=a.l2)
        sm = sentence_model(params)
        curve[f"{share:.2f}"] = {"train_questions": len(part), **figures(sets["held"], sm.logits)}
        print(f"  trained on {len(part)}: held back {curve[f'{share:.2f}']}", file=sys.stderr)
    base = figures(sets["held"], baseline_logits)
    keep = keep_curve(sets["held"], sm.logits)
    sizes = candidate_curve(sets["held"], sm)
    cont = continue_curve(sets["held"], sm)
    print(f"  held back by continue_below: {cont}", file=sys.stderr)
    print(f"  held back by candidates scored: {sizes}", file=sys.stderr)
    print(f"  quick answer by KEEP_SHARE (held back): {keep}", file=sys.stderr)
    fit_out, check_out = sets["outside"][0::2], sets["outside"][1::2]  # alternate: every group on both sides
    cx, cy = coverage_rows(sets["train"] + fit_out, sm)
    cov = learn.fit_logistic(cx, cy)
    cm = M.CoverageModel(coverage.NAMES, np.asarray(cov["mean"]), np.asarray(cov["scale"]),
                         np.asarray(cov["w"]), cov["b"], 0.5)
    hx, hy = coverage_rows(sets["held"] + check_out, sm)
    probs = np.array([cm.probability(x) for x in hx])
    threshold = float(np.quantile(probs[hy == 1], KEEP_FALSE_REFUSALS))
    refused_out = float(np.mean(probs[hy == 0] < threshold))
    meta = {"trained": time.strftime("%Y-%m-%d"), "data": {f: sha256(a.data / f) for f in a.files},
            "questions": {k: len(v) for k, v in sets.items()}, "learning_curve": curve, "baseline": base,
            "keep_share": keep, "candidates_scored": sizes, "continue_below": cont,
            "coverage_held_back": {"false_refusals": KEEP_FALSE_REFUSALS, "left_out_refused": round(refused_out, 4)}}
    match = {k: np.round(a.match[k], 5).tolist() for k in ("u", "v")}
    out = {"meta": meta, "sentence": {"names": list(F.NAMES), **{k: params[k] for k in ("mean", "scale", "lo", "hi", "w1", "b1", "w2", "b2")},
                                      **match},
           "coverage": {"names": list(coverage.NAMES), **{k: cov[k] for k in ("mean", "scale", "w", "b")},
                        "threshold": round(threshold, 6)}}
    a.out.write_text(json.dumps(out, indent=None, separators=(",", ":")) + "\n")
    print(json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
