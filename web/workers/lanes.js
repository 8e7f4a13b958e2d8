// Page requests run in lanes. An op in the 'alone' lane (start, imports, deletes, ...) runs with
// nothing else in flight. Reads (searches, questions, lists) and ingestion (adding documents,
// re-indexing) may run beside each other, one at a time within each lane: Python gives the event
// loop up only while it waits for an embedding, never inside a transaction (one per document), so
// a search typed during a long import is answered between two of its embedding batches instead of
// after the whole import.
const lanes = { alone: Promise.resolve(), tails: {} };

function inLane(lane, fn) {
  return (msg) => {
    const before = lane === 'alone'
      ? Promise.all([lanes.alone, ...Object.values(lanes.tails)])
      : Promise.all([lanes.alone, lanes.tails[lane]]);
    const run = before.then(() => fn(msg));
    const settled = run.then(() => {}, () => {});
    if (lane === 'alone') {
      lanes.alone = settled;
      lanes.tails = {};
    } else {
      lanes.tails[lane] = settled;
    }
    return run;
  };
}
/** Runs alone: nothing else in flight before it starts, nothing starts until it ends. */
export const serialized = (fn) => inLane('alone', fn);
/** A read: one at a time, beside ingestion. */
export const reading = (fn) => inLane('read', fn);
/** Ingestion: one at a time, beside reads. */
export const ingesting = (fn) => inLane('ingest', fn);
