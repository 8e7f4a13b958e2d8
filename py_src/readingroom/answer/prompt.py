"""What a generative transport is sent: instructions, the ``[n]`` sources, earlier turns.

One place for the wording, in Python, so the page, the CLI and the benchmarks send the same
request. Earlier turns go in newest first until their budget is spent (the turn just
before matters most to a follow-up; the oldest are dropped whole, never cut mid-answer).
"""

from __future__ import annotations

from typing import Any, Iterable

from ..text import tokens
from .followup import turns as _turns

GROUNDED_INSTRUCTIONS = (
    "You answer questions using only the numbered sources below, which come from the user's own "
    "documents. Cite every source you use by its number in square brackets, like [1] or [2]. "
    "If the sources do not answer the question, say that the documents do not say. Be brief."
)
NO_SOURCES_INSTRUCTIONS = (
    "The user asked about their own documents, but no passage in them matches the question. "
    "Say that the documents do not seem to cover it. Do not make up an answer."
)
BRIEF_INSTRUCTIONS = (
    "Answer the question in one or two short sentences, using only the numbered notes below, which "
    "are quoted from the user's own documents. End each sentence with the [n] of the note it uses. "
    "If the notes do not answer the question, say that the documents do not say."
)
HISTORY_BUDGET = 400  # tokens of earlier turns, on top of the context's own budget


def system_message(context: str | None) -> dict | None:
    """The grounding system message; ``None`` context means plain chat (no system message)."""
    if context is None:
        return None
    text = context.strip()
    content = f"{GROUNDED_INSTRUCTIONS}\n\nSources:\n\n{text}" if text else NO_SOURCES_INSTRUCTIONS
    return {"role": "system", "content": content}


def messages(question: str, context: str | None, earlier_turns: Iterable[Any] = (),
             budget_tokens: int = HISTORY_BUDGET) -> list[dict]:
    """``[system, (user, assistant)..., user]``. ``earlier_turns`` are history items (strings
    or ``{"question", "answer"}`` dicts, oldest first); the newest that fit in
    ``budget_tokens`` (counted with ``tokens.estimate``) are kept, in their order. A turn
    without an answer is left out: roles must alternate for many chat templates, and the
    retrieval query already carries what a follow-up refers to."""
    history: list[list[dict]] = []
    left = max(0, int(budget_tokens))
    for turn in reversed(_turns(earlier_turns)):
        if not (turn.answer and turn.answer.strip()):
            continue
        pair = [{"role": "user", "content": turn.question},
                {"role": "assistant", "content": turn.answer.strip()}]
        cost = sum(tokens.estimate(m["content"]) + 4 for m in pair)  # + role and separators
        if cost > left:
            break
        left -= cost
        history.append(pair)
    out = [m for m in [system_message(context)] if m]
    for pair in reversed(history):
        out += pair
    return out + [{"role": "user", "content": question}]


def brief_messages(question: str, notes: Iterable[tuple[int, str]]) -> list[dict]:
    """``[system, user]`` for a small model: the quick answer's sentences as numbered notes
    (``(n, sentence)``, n being the passage's [n]) in place of whole passages it cannot read in
    time, and a one- or two-sentence answer asked for. No notes: no messages."""
    lines = [f"[{n}] {' '.join(text.split())}" for n, text in notes]
    if not lines:
        return []
    return [{"role": "system", "content": f"{BRIEF_INSTRUCTIONS}\n\nNotes:\n" + "\n".join(lines)},
            {"role": "user", "content": question}]
