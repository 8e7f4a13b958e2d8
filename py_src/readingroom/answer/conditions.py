"""A question about a condition, and the sentence that states what follows from it.

"What happens if I pass more positional arguments than the function has parameters?" is
answered by the sentence whose condition is the question's ("If there are more positional
arguments than there are formal parameter slots, a TypeError exception is raised"), not by
the sentence that shares the most words with the whole question ("A function call always
assigns values to all parameters..."). Reference prose states consequences as conditionals,
so the words of the question's condition clause, met in a sentence's own condition clause,
say that the sentence answers it.

Only a question that asks for the consequence ("what happens", "what would happen", "what do
I get", "what is the effect") is read so: "What does dict.get return when the key is missing?"
asks for a value, and a sentence with "if" and the same words ("If default is not given and key
is not in the dictionary, a KeyError is raised", from the entry for ``pop``) is no better an
answer than the one the scorer chose (read so, every what-question with a condition lost two
of our answerable set's dev questions; ``docs/answer-model.md`` step 10).

Pure functions over strings: ``asked_condition`` takes the condition's terms out of a question,
``condition_share`` how many of them one of a sentence's condition clauses holds.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..search.fts import terms
from .candidates import stem, words_of

# A condition clause in a question: after its marker, up to a clause's end or the words that
# ask ("If __exit__ returns True, what happens to the error?").
_QUESTION_CLAUSE = re.compile(
    r"\b(?:if|when|whenever|once|unless|while|in case)\s+(.+?)(?=\s*[,;:?!]|\s+(?:what|how|which|then)\b|$)", re.I)
# A condition clause in a sentence: its marker, then words up to a clause's or sentence's end.
_SENTENCE_CLAUSE = re.compile(r"\b(?:if|when|whenever|once|unless|while|in case)\s+([^,;:.!?]+)", re.I)
# The words that ask for a consequence.
_CONSEQUENCE = re.compile(
    r"\bwhat\s+(?:happens|happened|(?:will|would|could|should|might|does|did)\s+happen|"
    r"(?:do|does|did|will|would)\s+(?:i|you|we|it|they)\s+get|"
    r"(?:is|are|was|would be|will be)\s+the\s+(?:result|effect|outcome|consequence)s?)\b", re.I)
MIN_TERMS = 2  # a condition of one word ("if so", "when needed") says too little to match on


def asked_condition(question: str) -> tuple[str, ...]:
    """The stemmed terms of the condition clause(s) of a question that asks what follows from
    it; () for any other question."""
    if not _CONSEQUENCE.search(question):
        return ()
    out: list[str] = []
    for m in _QUESTION_CLAUSE.finditer(question):
        for t in terms(m.group(1)):
            s = stem(t)
            if s not in out:
                out.append(s)
    return tuple(out) if len(out) >= MIN_TERMS else ()


def condition_share(condition: Sequence[str], sentence: str) -> float:
    """The largest share of the question's condition terms that one condition clause of the
    sentence holds (0 when either has none)."""
    if not condition:
        return 0.0
    best = 0.0
    for m in _SENTENCE_CLAUSE.finditer(sentence):
        have = words_of(m.group(1))
        best = max(best, sum(t in have for t in condition) / len(condition))
    return best
