import json

from helpers import SCIFACT
from readingroom.text import tokens


def test_estimate_is_an_upper_bound_of_the_real_tokenizer_on_scifact(embedder):
    """Chunking and packing count with the estimate; it must not undercount the model."""
    lines = (SCIFACT / "corpus.jsonl").read_text("utf-8").splitlines()[:1000]
    texts = [f"{d['title']}\n\n{d['text']}" for d in map(json.loads, lines)]
    from helpers import run

    real = run(embedder.count_tokens(texts))
    est = [tokens.estimate(t) for t in texts]
    under = sum(1 for e, r in zip(est, real) if e < r)
    assert sum(est) >= sum(real)
    assert under / len(texts) < 0.05
    assert min(e / r for e, r in zip(est, real) if r) > 0.9


def test_estimate_counts_punctuation_and_words():
    assert tokens.estimate("") == 0
    assert tokens.estimate("a b c") == 3
    assert tokens.estimate("hello, world!") == 4
    assert tokens.char_estimate("abcdefgh") == 2
