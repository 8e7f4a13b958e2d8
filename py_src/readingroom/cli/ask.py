"""``readingroom ask``: the quick answer and its sources in a terminal, and with ``--llm`` a
server's streamed answer followed by its citation check.

The quick answer is printed first and stays printed whatever the model does; a failing
model is one line on stderr and a non-zero exit, the only failure that is one here (a
question the documents do not cover is an answer, not an error).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..aio import run as run_sync
from ..answer.ask import STOPPED
from ..errors import ReadingRoomError
from ..answer.followup import standalone_query as deterministic_query, turns as history_turns
from ..answer.llm import LlmError, rewrite_query, stream_chat


def read_history(path: Path | None) -> list:
    """A JSON list (questions or turn dicts), or one earlier question per line."""
    if path is None:
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ReadingRoomError(f"cannot read the history file {path}: {e}") from e
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as e:
            raise ReadingRoomError(f"{path} is not a valid JSON list: {e}") from e
        if not isinstance(items, list):
            raise ReadingRoomError(f"{path} must hold a JSON list of earlier questions")
        return items
    return [line.strip() for line in text.splitlines() if line.strip()]


def _flat(text: str) -> str:
    return " ".join(text.split())


def print_answer(d: dict, out=sys.stdout) -> None:
    if d["standalone_query"] and d["standalone_query"] != _flat(d["question"]):
        print(f"Searched for: {d['standalone_query']}", file=out)
    if d["message"]:
        print(d["message"], file=out)
    shown = None  # a table's header row, printed once above its rows
    for q in d["quick"]:
        header = (q["doc_id"], q.get("header")) if q.get("header") else None
        if header and header != shown:
            print(q["header"], file=out)
        shown = header
        print(f"{_flat(q['text'])} [{q['n']}]", file=out)
    cited = {c["n"]: d["results"][c["result"]] for c in d["citations"] if c["result"] is not None}
    if cited:
        print("\nSources:", file=out)
    for n, r in cited.items():
        head = " > ".join(r["heading_paths"][0]) if r["heading_paths"] and r["heading_paths"][0] else ""
        page = f", page {r['page']}" if r.get("page") is not None else ""
        print(f"  [{n}] {r['doc_name']}{page}{' — ' + head if head else ''}", file=out)


def print_check(check: dict, out=sys.stdout) -> None:
    bad = [s for s in check["sentences"] if not s["supported"]]
    print(f"\nCitation check: {len(check['sentences']) - len(bad)} of {len(check['sentences'])} "
          f"sentences supported by the sources they cite.", file=out)
    for s in bad:
        why = "cites nothing" if not s["cites"] else f"not supported by [{', '.join(map(str, s['cites']))}]"
        print(f"  unsupported ({why}): {_flat(s['text'])}", file=out)
    if check["invalid_citations"]:
        print(f"  no such source: {', '.join(f'[{n}]' for n in check['invalid_citations'])}", file=out)


def cmd_ask(args, open_library) -> int:
    history = read_history(args.history_file)
    lib = open_library(args.index)
    try:
        options: dict = {}
        rewrite_note = None
        if args.llm and history_turns(history):
            fallback = deterministic_query(args.question, history)
            earlier = [t.question for t in history_turns(history)]
            if fallback != _flat(args.question):  # only a follow-up needs rewriting
                options["standalone_query"], rewrite_note = rewrite_query(
                    args.llm, args.question, earlier, fallback, args.model, args.api_key)
        answer = run_sync(lib.ask(args.question, history, options)).to_dict()
        if rewrite_note:
            print(f"readingroom: the model did not rewrite the follow-up ({rewrite_note}); "
                  "searched with the built-in rewrite", file=sys.stderr)
        if not args.json and answer.get("summary") is not None:
            from ..summarise.cli import print_summary

            print_summary(answer)  # a whole-document question (summarise/route.py)
        elif not args.json:
            print_answer(answer)
        if not args.llm:
            if args.json:
                print(json.dumps(answer, ensure_ascii=False, indent=1))
            return 0
        return _generate(lib, answer, args)
    finally:
        lib.close()


def _generate(lib, answer: dict, args) -> int:
    """Stream the server's answer, then check its citations."""
    if answer["reason"] in STOPPED or (not answer["covered"] and not args.anyway):
        if not answer["covered"] and answer["reason"] not in STOPPED:
            print("(no model asked: the documents do not cover this; --anyway asks it all the same)",
                  file=sys.stderr)
        if args.json:
            print(json.dumps(answer, ensure_ascii=False, indent=1))
        return 0
    pieces: list[str] = []
    failure = None
    try:
        for piece in stream_chat(args.llm, answer["messages"], args.model, args.api_key):
            if not args.json:
                print(("\nAnswer:\n" if not pieces else "") + piece, end="", flush=True)
            pieces.append(piece)
    except LlmError as e:
        failure = str(e)
    text = "".join(pieces)
    if not args.json and pieces:
        print(("" if text[-1:].isspace() else " ") + "[interrupted]" if failure else "")
    check = None
    if text.strip():
        passages = [{"n": c["n"], "text": answer["results"][c["result"]]["text"]}
                    for c in answer["citations"] if c["result"] is not None]
        check = run_sync(lib.check_answer(text, passages))
        if not args.json:
            print_check(check)
    if args.json:
        print(json.dumps({**answer, "generated": text, "interrupted": failure is not None,
                          "check": check}, ensure_ascii=False, indent=1))
    if failure:
        print(f"readingroom: {failure}", file=sys.stderr)
        return 1
    return 0


def add_parser(sub, open_library) -> None:
    s = sub.add_parser("ask", help="answer a question from the documents (quick answer, sources)")
    s.add_argument("question")
    s.add_argument("--history-file", type=Path, help="earlier questions: a JSON list, or one per line")
    s.add_argument("--llm", metavar="URL", help="an OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1")
    s.add_argument("--model", help="the model name the server wants (if any)")
    s.add_argument("--api-key", help="sent as the Authorization header only")
    s.add_argument("--anyway", action="store_true", help="ask the model even when the documents do not cover it")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=lambda args: cmd_ask(args, open_library))
