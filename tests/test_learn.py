"""The answer models' trainers (bench/learn.py) and the learned match they ship (answer/model.py)."""

import numpy as np

from readingroom.answer import features, model, quick
from readingroom.answer.candidates import Candidate
from readingroom.bench import learn


def _unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _rotation_task(rng, questions, dim=24, n=8):
    """Questions whose answer is the question turned by one fixed rotation, among sentences
    drawn at random: the cosine of question and answer says nothing, a learned match can."""
    turn, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
    groups = []
    for _ in range(questions):
        q = _unit(rng.normal(size=dim))
        s = _unit(rng.normal(size=(n, dim)))
        k = rng.integers(n)
        s[k] = _unit(turn @ q + 0.2 * rng.normal(size=dim))
        y = np.zeros(n)
        y[k] = 1
        groups.append((q, s, y))
    return groups


def test_the_learned_match_finds_answers_that_the_cosine_cannot():
    rng = np.random.default_rng(7)
    groups = _rotation_task(rng, 1000)
    train, held = groups[:800], groups[800:]
    p = learn.fit_bilinear(train, rank=24, epochs=300, lr=0.03)
    m = model.SentenceModel((), np.zeros(0), np.ones(0), np.zeros((0, 1)), np.zeros(1), np.zeros(1), 0.0,
                            u=p["u"], v=p["v"])

    def top1(score):
        return np.mean([y[int(np.argmax(score(q, s)))] for q, s, y in held])

    by_cosine = top1(lambda q, s: s @ q)
    by_match = top1(lambda q, s: m.match(q, s))
    assert by_cosine < 0.2  # chance is 1 in 8
    assert by_match > 0.9  # one step of the fit: ~0.7


def test_the_match_is_the_two_projections_product_and_absent_without_vectors():
    rng = np.random.default_rng(1)
    u, v = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    m = model.SentenceModel((), np.zeros(0), np.ones(0), np.zeros((0, 1)), np.zeros(1), np.zeros(1), 0.0, u=u, v=v)
    q, s = rng.normal(size=6), rng.normal(size=(3, 6))
    assert np.allclose(m.match(q, s), [(v.T @ row) @ (u.T @ q) for row in s])
    assert m.match(None, s) is None and m.match(q, None) is None
    assert len(m.match(q, np.zeros((0, 6)))) == 0
    plain = model.SentenceModel((), np.zeros(0), np.ones(0), np.zeros((0, 1)), np.zeros(1), np.zeros(1), 0.0)
    assert plain.match(q, s) is None  # weights without projections: the feature stays zero
    assert m.match(q[:3], s[:, :3]) is None  # vectors of another model's size


def test_the_shipped_scorer_reads_the_match_of_its_own_projections():
    sentence, _ = model.load()
    assert sentence.u is not None and sentence.u.shape == sentence.v.shape and sentence.u.shape[0] == 384
    cands = [Candidate(text=t, n=1, doc_name="d", doc_id=1, chunk_id=1, start=0, end=len(t))
             for t in ("Sets are unordered collections.", "A frozenset can be an element of another set.")]
    rng = np.random.default_rng(3)
    qv, vecs = _unit(rng.normal(size=384)), _unit(rng.normal(size=(2, 384)))
    s = quick.score("Can a set hold another set?", cands, qv, vecs)
    i, gap = features.NAMES.index("match"), features.NAMES.index("match_gap")
    assert np.allclose(s.features[:, i], sentence.match(qv, vecs), atol=1e-4)
    assert s.features[:, gap].max() == 0 and s.features[:, gap].min() < 0
    no_vectors = quick.score("Can a set hold another set?", cands, None, None)
    assert not no_vectors.features[:, i].any()  # without vectors: words alone


def test_the_listwise_scorer_learns_which_feature_marks_the_answer():
    rng = np.random.default_rng(5)
    groups = []
    for _ in range(200):
        x = rng.normal(size=(6, 3))
        k = int(np.argmax(x[:, 1]))  # the answer is the row with the largest second feature
        y = np.zeros(6)
        y[k] = 1
        groups.append((x, y))
    p = learn.fit_listwise(groups[:150], hidden=4, epochs=300, lr=0.03)
    m = model.SentenceModel((), np.asarray(p["mean"]), np.asarray(p["scale"]), np.asarray(p["w1"]),
                            np.asarray(p["b1"]), np.asarray(p["w2"]), p["b2"], np.asarray(p["lo"]), np.asarray(p["hi"]))
    assert np.mean([y[int(np.argmax(m.logits(x)))] for x, y in groups[150:]]) > 0.9
