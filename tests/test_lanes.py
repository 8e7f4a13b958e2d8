"""The worker's lanes (web/workers/lanes.js), run in node: the order in which the page's requests
reach Python. A question asked while list pages wait is answered before them; nothing jumps an
op that runs alone; reads and ingestion run beside each other; a failure stays with its request."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

LANES = Path(__file__).resolve().parents[1] / "web" / "workers" / "lanes.js"

# Each op logs its start, then waits until the script lets it end (``end(name)``), so the order
# of starts and the overlaps are the lanes' own doing, not timing's.
HARNESS = """
import { serialized, reading, readingFirst, ingesting } from %s;
const log = []; const gates = {};
const op = (name, fail = false) => () => { log.push('start ' + name);
  return new Promise((res, rej) => { gates[name] = () => { log.push('end ' + name); fail ? rej(new Error(name)) : res(name); }; }); };
const tick = () => new Promise((r) => setTimeout(r, 0));
const end = async (name) => { for (let i = 0; i < 50 && !gates[name]; i++) await tick(); gates[name](); await tick(); };
const kinds = { serialized, reading, readingFirst, ingesting };
const results = {};
const ask = (kind, name, fail) => { kinds[kind](op(name, fail))().then((v) => { results[name] = v; }, (e) => { results[name] = 'error ' + e.message; }); };
%s
await tick();
console.log(JSON.stringify({ log, results }));
"""


def run_lanes(tmp_path: Path, steps: str) -> dict:
    if shutil.which("node") is None:
        pytest.fail("node is needed (the build makes its Pyodide snapshot with it)")
    module = tmp_path / "lanes.mjs"  # an ES module by its name, as the browser loads it
    shutil.copyfile(LANES, module)
    script = HARNESS % (json.dumps(module.as_uri()), steps)
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_question_asked_while_list_pages_wait_runs_next(tmp_path):
    got = run_lanes(tmp_path, """
ask('reading', 'page1'); ask('reading', 'page2'); ask('reading', 'page3');
await tick(); ask('readingFirst', 'question');
await end('page1'); await end('question'); await end('page2'); await end('page3');
""")
    assert got["log"] == ["start page1", "end page1", "start question", "end question",
                          "start page2", "end page2", "start page3", "end page3"]


def test_questions_keep_their_order_among_themselves(tmp_path):
    # Asked together with nothing running, the questions start before the page asked with them.
    got = run_lanes(tmp_path, """
ask('reading', 'page0'); ask('readingFirst', 'q0');
await end('q0'); await end('page0');""")
    assert [e for e in got["log"] if e.startswith("start")] == ["start q0", "start page0"]
    got = run_lanes(tmp_path, """
ask('reading', 'page1'); await tick(); ask('reading', 'page2'); ask('readingFirst', 'q1'); ask('readingFirst', 'q2');
await end('page1'); await end('q1'); await end('q2'); await end('page2');
""")
    assert [e for e in got["log"] if e.startswith("start")] == ["start page1", "start q1", "start q2", "start page2"]


def test_nothing_jumps_an_op_that_runs_alone(tmp_path):
    # The read asked before the delete runs before it; the question asked after the delete waits
    # for it, although list pages asked earlier still run first; nothing overlaps the delete.
    got = run_lanes(tmp_path, """
ask('reading', 'page1'); ask('ingesting', 'add'); ask('serialized', 'delete'); ask('readingFirst', 'question');
await end('page1'); await end('add'); await end('delete'); await end('question');
""")
    assert got["log"] == ["start page1", "start add", "end page1", "end add", "start delete", "end delete",
                          "start question", "end question"]


def test_reads_and_ingestion_run_beside_each_other_and_a_failure_stays_with_its_request(tmp_path):
    got = run_lanes(tmp_path, """
ask('ingesting', 'add'); ask('reading', 'page1', true); await tick(); ask('readingFirst', 'question');
await end('page1'); await end('question'); await end('add');
""")
    assert got["log"] == ["start add", "start page1", "end page1", "start question", "end question", "end add"]
    assert got["results"] == {"page1": "error page1", "question": "question", "add": "add"}
