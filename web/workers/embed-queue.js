// The embedding worker's job queue and the runners that take its jobs (embed-worker.js).
//
// Queries first: every model call goes through one queue with two priorities. A request is cut
// into length buckets and each bucket is one job, so a query arriving during a big ingestion
// waits for at most the buckets being computed, then runs before the ingestion's remaining
// buckets. Each runner (the worker's own session, the wasm helper's, the WebGPU worker's)
// computes one job at a time. A runner may take only some jobs: `queries: false` (WebGPU takes
// ingestion only) and `background()` (false: no ingestion now).

import { rpcClient } from './rpc.js';

// A hop through the worker's task queue. The worker's own runner computes in this thread, and
// its model call resolves through microtasks only, so taking the next job straight from the last
// one's completion never lets the worker read its messages: a query (or a helper's finished
// job) posted meanwhile waited for every queued ingestion bucket, ~6 s behind a 64-text batch
// (bench ingest, queries during an import). After each job the queue lets messages in first.
const hop = (() => {
  const channel = new MessageChannel();
  const waiting = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  return () => new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
})();

export function jobQueue() {
  const jobs = { query: [], background: [] };
  const runners = [];

  function nextJob(runner) {
    if (runner.queries !== false && jobs.query.length) return jobs.query.shift();
    if ((runner.background?.() ?? true) && jobs.background.length) return jobs.background.shift();
    return null;
  }

  function pump() {
    for (const runner of runners) {
      if (runner.busy) continue;
      const job = nextJob(runner);
      if (!job) continue;
      runner.busy = true;
      runner.compute(job.rows).then((vectors) => {
        runner.onDone?.();
        job.resolve(vectors);
      }, (err) => {
        // A worker that stopped (the helper died, WebGPU failed): its job goes back to the queue.
        if (runner.gone || runner.retry?.(err)) jobs[job.priority].unshift(job);
        else job.reject(err);
      }).finally(async () => {
        await hop();
        runner.busy = false;
        pump();
      });
    }
  }

  return {
    runners,
    pump,
    /** Vectors for one bucket of token rows, computed by the first runner free to take it. */
    schedule: (priority, rows) => new Promise((resolve, reject) => {
      jobs[priority].push({ rows, priority, resolve, reject });
      pump();
    }),
    add(runner) {
      if (runner.gone) return;
      runners.push(runner);
      pump();
    },
    remove(runner) {
      const at = runners.indexOf(runner);
      if (at >= 0) runners.splice(at, 1);
      pump();
    },
  };
}

/**
 * A runner in a worker of its own (the embedding worker's script under another name). stop(why)
 * ends it (its job in hand goes back to the queue) and calls runner.onStop(why) once.
 */
export function workerRunner(queue, url, kind, name) {
  const worker = new Worker(url, { type: 'module', name });
  const call = rpcClient(worker);
  const runner = { name: kind, busy: false, gone: false, call, compute: (rows) => call('embedRows', { rows }) };
  runner.stop = (why) => {
    if (runner.gone) return;
    runner.gone = true;
    call.failAll(new Error(`the ${kind} embedding worker stopped (${why})`));
    worker.terminate();
    runner.onStop?.(why);
    queue.remove(runner);
  };
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    runner.stop(event.message || 'script error');
  });
  runner.started = call('start');
  runner.started.catch((err) => runner.stop(err?.message ?? String(err)));
  return runner;
}
