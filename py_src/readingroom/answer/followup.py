"""Turn a follow-up question into a query that can be searched on its own.

"And what if it runs a break?" searched alone finds nothing about ``finally``: the words
that say what "it" is were in the previous question. This is deterministic on purpose (no
model, the same result natively and in the browser, testable): when a question leans on
the conversation (a pronoun, an opening such as "and …?" or "what about …", or too few
words of its own), the previous question's content words are carried into it. A question
that stands on its own is searched exactly as asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from ..search.fts import MAX_TERMS, STOPWORDS, content_words

MAX_TURNS = 20  # only recent turns matter; a 200-turn history costs no more than this

# Openings that only make sense after another question; the first group is dropped from
# the query ("and", "what about" say nothing), "what if" is kept (it does say something).
_STRIP = re.compile(r"^\s*(?:(?:and|but|also|or|plus|so|then|und|et|и|а|och|og)\b[\s,]*)*(?:(?:what|how)\s+about\b[\s,]*)?",
                    re.IGNORECASE)
_CUE = re.compile(r"^\s*(?:and|but|also|or|plus|so|then|what\s+about|how\s+about|what\s+if|"
                  r"same\s+(?:for|with)|what\s+else|und|et|и|а|och|og)\b", re.IGNORECASE)
# Words that point back at something said earlier.
_ANAPHORA = re.compile(r"\b(?:it|its|it's|itself|they|them|their|theirs|themselves|these|those|"
                       r"he|him|his|himself|she|her|hers|herself|"
                       r"such|former|latter|same|one|ones|there|that one|this one)\b", re.IGNORECASE)
# The same words where they point at nothing: "is there a …" and "there are …" (existential),
# "such as", "one" before a noun ("more than one item"), and the "it" of "is it possible to …",
# "is it a good idea to …", "does it matter if …".
_EXISTENTIAL = re.compile(
    r"\b(?:(?:is|are|was|were|be|been|isn't|aren't|wasn't|weren't)\s+there"
    r"|there(?=\s+(?:is|are|was|were|be|been|'s|’s|isn't|aren't|wasn't|weren't|exists?|remains?|seems?|"
    r"appears?|will|would|could|can|may|might|must|should|used|has|have|had)\b))\b", re.IGNORECASE)
_SUCH_AS = re.compile(r"\bsuch\s+as\b", re.IGNORECASE)
_JUDGED = (r"possible|impossible|ok|okay|safe|unsafe|true|allowed|necessary|required|needed|legal|valid|"
           r"wise|worth|worthwhile|recommended|advisable|important|fine|correct|wrong|right|faster|slower|"
           r"better|worse|best|efficient|common|normal|idea|practice|matter|sense|hard|easy|difficult|"
           r"bad|good|usual|customary|acceptable|preferable")
_DUMMY_IT = re.compile(
    rf"\b(?:(?:is|was|would|will|isn't|wasn't|does|doesn't)\s+it|it(?:'s|’s|\s+is|\s+was))\s+"
    rf"(?:(?:a|an|really|ever|still|always|generally|usually|considered|even|{_JUDGED})\s+)*?(?:{_JUDGED})"
    rf"(?=\s+(?:to|for|if|that|when|whether|in|with)\b|\s*[?.!]?\s*$)", re.IGNORECASE)
# A back-pointing word after this many words of the question's own subject most likely points
# at them ("… a variable before the global statement that declares it"), not at an earlier turn.
OWN_BEFORE = 2
# ...and so does one in a clause that opens after the question has named its subject, by a word
# or by code: "What does < mean when I use it between two sets?", "What happens to a file if an
# error is raised inside it?".
_SUBORDINATE = re.compile(r"\b(?:when|whenever|if|while|after|before|once|because|unless|until)\b", re.IGNORECASE)
# What a question names besides words: a mark glued to the front of a word ("!a", "-v", "@x";
# not an opening bracket or quote), or any mark that is not a sentence's own punctuation
# (operators "**" "<", symbols, "🚲").
NAMES_BY_MARKS = re.compile(r"[^\w\s'’\"“‘(\[¿¡«]\w|[^\w\s.,?!;:'\"()\[\]…¿¡«»“”‘’-]")
# "this"/"that" point back when they stand alone or open the question ("what does that do",
# "is this allowed"), not as a conjunction after a noun ("the error that it raises").
_DEMONSTRATIVE = re.compile(
    r"(?:^|\b(?:is|are|was|does|do|did|can|could|would|will|about|with|for|of|in|on|to|use|"
    r"using|why|how|what|when|where|and|but|mean|means|say|says)\s+)(?:this|that)\b(?!\s+(?:is|the|a|an)\b)",
    re.IGNORECASE)
# Question words and verbs that say nothing about the subject.
_GENERIC = frozenset("""what how why when where which who whom whose does do did can could
    would should will shall may might must is are was were be been mean means meaning work
    works working happen happens happened use used using example examples explain tell show
    please else instead about also thing things way ways case cases one ones kind difference
    differ like""".split())


@dataclass(frozen=True)
class Turn:
    """An earlier turn of a conversation: the question, the query it became, the answer shown."""

    question: str
    standalone_query: str | None = None
    answer: str | None = None


def turns(history: Iterable[Any] | None, limit: int = MAX_TURNS) -> list[Turn]:
    """The recent turns of a history given as strings, dicts or ``Turn``s, oldest first; anything
    without a question is skipped (a 200-turn history is cut to the last ``limit``)."""
    items = list(history or ())[-limit:]
    out = []
    for item in items:
        if isinstance(item, Turn):
            q, sq, a = item.question, item.standalone_query, item.answer
        elif isinstance(item, str):
            q, sq, a = item, None, None
        elif isinstance(item, dict):
            q, sq, a = item.get("question"), item.get("standalone_query"), item.get("answer")
        else:
            continue
        if isinstance(q, str) and q.strip():
            out.append(Turn(" ".join(q.split()),
                            " ".join(sq.split()) if isinstance(sq, str) and sq.strip() else None,
                            a if isinstance(a, str) else None))
    return out


def own_terms(text: str) -> list[str]:
    """The words that carry a question's subject: not stopwords, not question verbs."""
    return [t for t in content_words(text)[:MAX_TERMS] if t not in _GENERIC]


def _points_back(question: str) -> bool:
    """A word that points back at an earlier turn: one of ``_ANAPHORA`` that is not one of the
    uses that point at nothing, with fewer than ``OWN_BEFORE`` of the question's own subject
    words before it and not in a clause opened after the question named its subject
    (``_SUBORDINATE``); "one" before a word of the subject is a number ("one element")."""
    q = _DUMMY_IT.sub(" ", _SUCH_AS.sub(" ", _EXISTENTIAL.sub(" ", question)))
    own = set(own_terms(question))

    def named(text: str) -> int:
        return sum(1 for w in content_words(text) if w in own)

    for m in _ANAPHORA.finditer(q):
        word = m.group(0).lower()
        after = re.match(r"\s+(\w+)", q[m.end():])
        if word == "one" and after and after.group(1).lower() in own:
            continue
        before = q[:m.start()]
        if named(before) >= OWN_BEFORE:
            continue
        opens = [c.start() for c in _SUBORDINATE.finditer(before)]
        if opens and (named(before[:opens[-1]]) or NAMES_BY_MARKS.search(before[:opens[-1]])):
            continue
        return True
    return False


# A question that asks what one thing is, "What is a generator?", "What does NaN mean?": one word
# of its own, and yet it stands alone ("What is the default?" leans on an earlier turn).
_DEFINITION = re.compile(r"^\s*(?:(?:what|who)(?:'s|’s|\s+(?:is|are|was|were))\s+(?:an?\s+)?[^\s?]+"
                         r"|what\s+(?:does|do)\s+(?:an?\s+)?[^\s?]+\s+(?:mean|stand\s+for)|define\s+[^\s?]+)\s*[?.!]*\s*$",
                         re.IGNORECASE)


def is_followup(question: str) -> bool:
    """Does the question lean on an earlier one?"""
    if _CUE.search(question) or _points_back(question) or _DEMONSTRATIVE.search(question):
        return True
    terms = own_terms(question)
    return len(terms) < 2 and not (terms and _DEFINITION.match(question))


# Question scaffolding around a subject: "What does | the with statement | do?"
_OPENING = re.compile(
    r"^\s*(?:(?:what|how|why|when|where|which|who)(?:'s)?\b"
    r"(?:\s+(?:is|are|was|were|does|do|did|can|could|should|would|will|exactly|happens?|about|kind\s+of|"
    r"to|when|if|in|with|of|often|much|many|long|i|you|we|one|it|python))*"
    r"|(?:can|could|should|would|do|does|is|are|may)\s+(?:i|you|we|one|python|it|they|this|that))\b\s*",
    re.IGNORECASE)
_CLOSING = re.compile(r"\s*(?:\b(?:do|does|work|works|mean|means|for|in\s+python))?\s*[?.!？。]*\s*$", re.IGNORECASE)
_CARRIED = re.compile(r"\(([^()]*)\)\s*$")
MAX_PHRASE_WORDS = 14


def subject(question: str) -> str:
    """The part of a question that names what it is about: "What does the with statement
    do?" -> "the with statement". Other languages keep the whole question (less its end)."""
    q = " ".join(question.split())
    core = _CLOSING.sub("", _OPENING.sub("", q, count=1))
    return core or _CLOSING.sub("", q) or q


def standalone_query(question: str, history: Iterable[Any] | None = ()) -> str:
    """The query to search for ``question`` asked after ``history`` (oldest first): the
    question as asked, or, for a follow-up, the question followed by what the previous
    turn was about, in brackets ("what if it runs a break? (the exception when a finally
    clause runs a return statement)")."""
    q = " ".join(question.split())
    past = turns(history)
    if not q or not past or not is_followup(q):
        return q
    prev = past[-1]
    phrase = subject(prev.question)
    earlier = _CARRIED.search(prev.standalone_query or "")
    if earlier:  # the previous question was a follow-up too: keep what it carried
        phrase = f"{phrase}; {earlier.group(1)}"
    mine = {w.lower() for w in re.findall(r"\w+", q)}
    words, seen = [], set()
    for w in phrase.split():
        key = w.lower().strip(".,;:!?\"'()")
        if key in seen and key not in STOPWORDS:
            continue  # a chain of follow-ups repeats the subject
        seen.add(key)
        words.append(w)
    if all(t in mine for t in own_terms(" ".join(words))) and own_terms(" ".join(words)):
        return q  # it already names what it is about
    core = _STRIP.sub("", q, count=1).strip() or q
    return f"{core} ({' '.join(words[:MAX_PHRASE_WORDS])})"
