"""What the held-back questions say about each choice the quick answer makes: the figures of
a scorer (``figures``), how many sentences to show (``keep_curve``), how many candidates to
score (``candidate_curve``) and when the best sentence reads on (``continue_curve``), and the
hand-set formula the learned scorer replaced (``baseline_logits``). Used by ``train_answers``;
each writes its table into ``weights.json``'s ``meta``.
"""

from __future__ import annotations

import numpy as np

from ..answer import features as F, model as M, quick


def baseline_logits(x: np.ndarray) -> np.ndarray:
    """The hand-set formula this model replaces: cosine + 0.25 idf share + 0.05 per rank before [4]."""
    n = 1.0 / x[:, F.NAMES.index("passage_rank")]
    return (x[:, F.NAMES.index("cos")] + 0.25 * x[:, F.NAMES.index("idf_share")]
            + 0.05 * np.maximum(0, 4 - n) - 0.05 * x[:, F.NAMES.index("lead_in")]) * 20


KEEP_SHARES = (0.3, 0.2, 0.1, 0.05, 0.02, 0.0)
WORTH = 0.05  # an extra sentence shown must bring the answer to at least 5 more questions in 100


def keep_curve(rows: list[dict], logits_of) -> dict:
    """How often the answer is among the sentences shown, and how many are shown, for each
    ``KEEP_SHARE`` on the held-back questions; and the share chosen: the lowest whose step
    from the one before still gains ``WORTH`` per extra sentence shown."""
    out = {}
    for share in KEEP_SHARES:
        f = figures(rows, logits_of, share)
        out[f"{share:.2f}"] = {"quick_answer": f["quick_answer"], "sentences_shown": f["sentences_shown"]}
    chosen, prev = KEEP_SHARES[0], out[f"{KEEP_SHARES[0]:.2f}"]
    for share in KEEP_SHARES[1:]:
        cur = out[f"{share:.2f}"]
        more = cur["sentences_shown"] - prev["sentences_shown"]
        if more <= 0 or (cur["quick_answer"] - prev["quick_answer"]) / more < WORTH:
            break
        chosen, prev = share, cur
    return {"by_share": out, "worth_per_sentence": WORTH, "chosen": chosen}


def features_of(r: dict, n: int | None = None) -> np.ndarray:
    """A stored row's features computed again from its candidates (the first ``n`` of them)."""
    from ..answer.candidates import Candidate

    cos = None if r["cos"] is None else r["cos"][:n]
    match = r.get("match")
    return F.matrix(F.Question.of(r["q"]), [Candidate(**c) for c in r["cands"][:n]], cos,
                    None if match is None or cos is None else match[:n])


def candidate_curve(rows: list[dict], model: M.SentenceModel, sizes=(40, 32, 24, 16)) -> dict:
    """The held-back figures when only the first ``n`` candidates (in the order ``candidates``
    gives them) are scored, features computed again over those: what ``MAX_SENTENCES`` costs.
    Rows collected with more candidates than ``n`` only."""
    out = {}
    for n in sizes:
        cut = [{**r, "x": features_of(r, n), "y": r["y_all"][:n]} for r in rows if "cands" in r]
        out[str(n)] = figures(cut, model.logits)
    return out


def figures(rows: list[dict], logits_of, share: float | None = None) -> dict:
    """Held-back figures over the answerable questions: answer in the best sentence, in the
    quick answer (1-3 sentences as shown: a 2nd/3rd with ``share``, by default
    ``quick.KEEP_SHARE``, of the best one's probability), how many it shows on average, and in
    any candidate at all (the ceiling)."""
    share = quick.KEEP_SHARE if share is None else share
    top1 = quick_hit = ceiling = shown_n = 0
    n = 0
    for r in rows:
        if not r["answerable"] or not len(r["x"]):
            n += r["answerable"]
            continue
        n += 1
        lg = logits_of(r["x"])
        y = r["y"]
        ceiling += bool(y.any())
        top1 += bool(y[int(np.argmax(lg))])
        p = M.probabilities(lg)
        shown = [i for i in np.argsort(-lg)[:quick.MAX_QUICK] if p[i] >= share * p.max()]
        quick_hit += bool(y[shown].any())
        shown_n += len(shown)
    return {"questions": n, "best_sentence": round(top1 / n, 4), "quick_answer": round(quick_hit / n, 4),
            "sentences_shown": round(shown_n / n, 3), "any_candidate": round(ceiling / n, 4)}


CONTINUE_BELOWS = (0, 80, 120, 160, 200, 300, 100_000)
# Reading on in the same paragraph costs a person less than a separate quote from elsewhere, so a
# continuation needs half the gain per sentence's worth of characters that another pick needs.
WORTH_CONTINUE = WORTH / 2


def continue_curve(rows: list[dict], model: M.SentenceModel) -> dict:
    """The held-back figures when the best sentence is quoted with the one after it if shorter
    than L characters (``quick.select(continue_below=L)``), for each L, and the L chosen: the
    largest whose step from the one before still gains ``WORTH`` per extra sentence's worth of
    characters shown (the mean length of a sentence shown without continuing); the bar is
    ``WORTH_CONTINUE``."""
    from ..answer.candidates import Candidate

    out = {}
    for below in CONTINUE_BELOWS:
        hits = chars = n = shown = 0
        for r in rows:
            if not r["answerable"] or not len(r["x"]):
                n += r["answerable"]
                continue
            cands = [Candidate(**c) for c in r["cands"][:len(r["x"])]]
            s = quick.Scored(F.Question.of(r["q"]), cands, r["x"], model.logits(r["x"]), None)
            at = {(c.doc_id, c.start): i for i, c in enumerate(cands)}
            picked = quick.select(s, continue_below=below)
            n, shown = n + 1, shown + len(picked)
            hit = False
            for q in picked:
                i = at[(q.doc_id, q.start)]
                hit |= bool(r["y_after"][i] if q.end != cands[i].end else r["y"][i])
                chars += len(q.text)
            hits += hit
        out[str(below)] = {"quick_answer": round(hits / n, 4), "chars_shown": round(chars / n, 1),
                           "sentences_shown": round(shown / n, 3)}
    first = out[str(CONTINUE_BELOWS[0])]
    sentence = first["chars_shown"] / max(first["sentences_shown"], 1e-9)
    chosen, prev = CONTINUE_BELOWS[0], first
    for below in CONTINUE_BELOWS[1:]:
        cur = out[str(below)]
        more = (cur["chars_shown"] - prev["chars_shown"]) / sentence
        if more <= 0 or (cur["quick_answer"] - prev["quick_answer"]) / more < WORTH_CONTINUE:
            break
        chosen, prev = below, cur
    return {"by_length": out, "worth_per_sentence": WORTH_CONTINUE, "chosen": chosen}
