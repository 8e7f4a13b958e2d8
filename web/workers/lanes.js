// Page requests run in lanes. An op in the 'alone' lane (start, imports, deletes, ...) runs with
// nothing else in flight. Reads (searches, questions, lists) and ingestion (adding documents,
// re-indexing) may run beside each other, one at a time within each lane: Python gives the event
// loop up only while it waits for an embedding, never inside a transaction (one per document), so
// a search typed during a long import is answered between two of its embedding batches instead of
// after the whole import.
//
// Within a lane, what a person waits for goes first: a question or search that arrives while
// other reads wait (the document list's pages an opened library reads, say) starts before them,
// never before the read already running nor before an 'alone' op that was asked for earlier.
// Among equals, first come first served.

let alone = Promise.resolve(); // the last 'alone' op, settled
let queues = {}; // lane -> its queue since that op was asked for

function queueOf(lane) {
  if (!queues[lane]) {
    queues[lane] = { jobs: [], running: false, idle: [], gate: alone };
  }
  return queues[lane];
}

async function pump(q) {
  if (q.running) return;
  q.running = true;
  while (q.jobs.length) {
    const at = q.jobs.findIndex((j) => j.first);
    const [job] = q.jobs.splice(at < 0 ? 0 : at, 1);
    try {
      job.resolve(await job.fn(job.msg));
    } catch (err) {
      job.reject(err);
    }
  }
  q.running = false;
  for (const done of q.idle.splice(0)) done();
}

/** Settles when the lane's queue has nothing waiting and nothing running. */
const drained = (q) => (q.jobs.length || q.running ? new Promise((done) => q.idle.push(done)) : Promise.resolve());

function inLane(lane, fn, first = false) {
  return (msg) => {
    if (lane === 'alone') {
      const before = Promise.all([alone, ...Object.values(queues).map(drained)]);
      queues = {}; // whatever comes next waits for this op
      const run = before.then(() => fn(msg));
      alone = run.then(() => {}, () => {});
      return run;
    }
    const q = queueOf(lane);
    const run = new Promise((resolve, reject) => q.jobs.push({ fn, msg, first, resolve, reject }));
    // Started once the op before the queue has settled; a queue already running takes it in turn.
    q.gate.then(() => pump(q));
    return run;
  };
}
/** Runs alone: nothing else in flight before it starts, nothing starts until it ends. */
export const serialized = (fn) => inLane('alone', fn);
/** A read: one at a time, beside ingestion. */
export const reading = (fn) => inLane('read', fn);
/** A read a person waits for (a question, a search): before reads that wait, in its turn. */
export const readingFirst = (fn) => inLane('read', fn, true);
/** Ingestion: one at a time, beside reads. */
export const ingesting = (fn) => inLane('ingest', fn);
