// The embedding worker: one warmed all-MiniLM-L6-v2 pipeline for the whole page.
//
// The page asks it to 'start' (resolves once the model is loaded and warmed) and hands it one end
// of a MessageChannel with 'connect'; the retrieval worker holds the other end and sends 'embed'
// (queries), 'embedBackground' (ingestion) and 'countTokens' there directly, so vectors never pass
// through the page.

import { env } from './vendor/transformers/transformers.js';
import { Transfer, rpcServe } from './rpc.js';
import { jobQueue, workerRunner } from './embed-queue.js';
import { webgpuChooser, webgpuMode } from './embed-webgpu.js';
import { DIM, MAX_TOKENS, MODEL, embedRows, encodeCapped, loadModel, useThreads } from './embed-model.js';

// Rows and padded tokens per model call. In single-threaded wasm a batch buys no speed, only
// padding: measured on 96 SciFact chunks (~135 tokens), length buckets of at most 256 padded
// tokens embed 1.2-1.7x faster than unsorted batches of 16 and as fast as one text per call,
// while short texts (queries) still share a call.
// A worker started with a name holding `workers=N`, `threads=N` or `batchTokens=N` uses those
// instead (the helper below, and the bench's A/B runs: py_src/readingroom/bench/embedding.py).
const override = (key) => Number(new RegExp(`\\b${key}=(\\d+)`).exec(self.name ?? '')?.[1]) || null;
const BATCH = 16;
const BATCH_TOKENS = override('batchTokens') ?? MAX_TOKENS;
// This worker's model runs on wasm, except in the WebGPU worker the main one starts for ingestion
// (embed-webgpu.js), named `backend=webgpu`; `webgpu=software|off` is the page's switch.
const BACKEND = /\bbackend=webgpu\b/.test(self.name ?? '') ? 'webgpu' : 'wasm';
const WEBGPU_MODE = webgpuMode(self.name ?? '');

// Both cores: two embedding workers of one thread each (this one, and a helper it starts once the
// page is ready: see addHelpers), taking buckets from one queue. Measured in the page against one
// worker with onnxruntime-web's threads set to both cores (bench embedding, interleaved, on this
// shared 2-core machine, two runs at load 11-23): 1 worker x 2 threads 1.24 and 1.14 chunks/s,
// 2 workers x 1 thread 2.05 and 2.11, 1 worker x 1 thread 1.85 and 2.15 (p50 of 4 rounds each); on a
// quiet machine (load 1.5, 5 rounds of 96 texts) 18.8, 19.6 and 10.5 chunks/s: close when both cores are
// free, far apart when the other core is busy. Two independent sessions never wait on each
// other, while wasm threads meet at a barrier inside every operator and stall whenever the other
// core is busy; and two workers need no SharedArrayBuffer, so a page without cross-origin
// isolation uses both cores too. Threads need SharedArrayBuffer, which only a cross-origin
// isolated page has (build.py serve and sw.js send COOP/COEP); with more cores than workers, an
// isolated page gives each worker its share (onnxruntime-web's own default, min(4, ceil(cores /
// 2)), is not used: the count is set).
const isolated = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
const cores = Math.max(1, navigator.hardwareConcurrency || 1);
const WORKERS = override('workers') ?? Math.min(2, cores);
const threads = isolated ? Math.max(1, override('threads') ?? Math.floor(cores / WORKERS)) : 1;
const threadNote = isolated || cores <= WORKERS ? ''
  : 'this page is not cross-origin isolated, so each embedding worker runs on one thread';
useThreads(threads);

function progress(event) {
  self.postMessage({ type: 'progress', stage: 'model', ...event });
}


// Queries first: one queue of length buckets, queries ahead of ingestion (embed-queue.js). While
// ingestion runs on WebGPU, this worker's session takes queries only.
//
// Queries never wait for ingestion: a bucket in computation cannot be interrupted, and this
// worker's thread is blocked while its own session computes one (a query's message is not even
// read until it ends: p50 284 ms during an import against 46 ms idle, bench ingest). So with two
// or more workers, ingestion gets helper workers of its own (as many as WORKERS) and this
// worker's session is kept for queries once one of them is up: a third model session in memory
// while documents are added (measured in the closing note of issue 24); a page that only searches
// has two (this one and the answer helper). A worker named `queryWorker=off` (the page's
// `?queryworker=off`, for comparisons) keeps the old split: this session ingests too, beside one
// helper.
const QUERY_WORKER = !/\bqueryWorker=off\b/.test(self.name ?? '');
const queue = jobQueue();
const gpuActive = () => queue.runners.some((r) => r.name === 'webgpu');
// Helpers take ingestion only once it was decided to run on wasm (startHelper); before that the
// answer helper (below) takes queries only.
let ingestOnWasm = false;
const helpersUp = () => ingestOnWasm && queue.runners.some((r) => r.name === 'helper');
const schedule = queue.schedule;
queue.add({
  name: 'main', busy: false, compute: computeHere,
  background: () => !gpuActive() && !(QUERY_WORKER && helpersUp()),
});

/** Vectors of token rows, flat [rows * DIM], from this worker's session. */
async function computeHere(rows) {
  const { extractor } = await loaded;
  const tensor = await embedRows(extractor, rows);
  const out = tensor.data.slice(0, rows.length * DIM);
  tensor.dispose?.();
  return out;
}

/** A runner in a new worker running this same script, named for its job. */
function spawnRunner(kind) {
  const name = kind === 'webgpu'
    ? `readingroom-embedder-webgpu backend=webgpu webgpu=${WEBGPU_MODE} workers=1 threads=1 batchTokens=${BATCH_TOKENS}`
    : `readingroom-embedder-helper workers=1 threads=${threads} batchTokens=${BATCH_TOKENS}`;
  return workerRunner(queue, new URL(import.meta.url), kind, name);
}

// The helpers: wasm workers of one session each. One starts when the page asks (op answerHelper,
// once it is ready and no first question needs the core: api/start.js), for answers: a quick
// answer embeds the question with its ~24 candidate sentences (about nine tenths of its time in
// the page, single-threaded), and the queue splits those length buckets
// between both sessions, so both cores work on it. The rest start on the first ingestion work
// unless ingestion runs on WebGPU: WORKERS helpers ingest beside this query session (the answer
// helper among them), or one beside it with `queryWorker=off`. If one dies after it was up, its
// job goes back to the queue, the others (this worker last) carry on, and a new helper takes its
// place (at most HELPER_RESTARTS times a page: a helper that keeps dying is left dead); one that
// fails to load is not tried again. status() says so.
const helper = { note: '', started: 0, wanted: 0, restarts: 0 };
const HELPERS = QUERY_WORKER ? WORKERS : WORKERS - 1;
const HELPER_RESTARTS = 2;

function addHelpers(count) {
  if (WORKERS < 2 || BACKEND !== 'wasm') return;
  helper.wanted = Math.max(helper.wanted, count);
  for (; helper.started < helper.wanted; helper.started++) {
    const runner = spawnRunner('helper');
    runner.background = () => ingestOnWasm;
    runner.onStop = (why) => {
      // It was up if the queue took it (stop() calls onStop before the queue lets it go).
      const again = queue.runners.includes(runner) && helper.restarts < HELPER_RESTARTS;
      const other = queue.runners.some((r) => r.name === 'helper' && r !== runner);
      helper.note = `a helper embedding worker stopped (${why}); `
        + (again ? 'a new one is starting' : `${other ? 'the other' : 'the query worker'} embeds`);
      console.warn('Reading Room:', helper.note);
      if (!again) return;
      helper.restarts++;
      helper.started--;
      queueMicrotask(() => addHelpers(helper.wanted)); // after the queue has let this one go
    };
    runner.started.then(() => queue.add(runner), () => {});
  }
}

function startHelper() {
  ingestOnWasm = true;
  addHelpers(Math.max(1, HELPERS));
  queue.pump();
}

// WebGPU for ingestion, decided on the first ingestion work (embed-webgpu.js). A batch WebGPU
// fails goes back to the queue for wasm (runner.retry), and the helper starts.
const webgpu = webgpuChooser({
  mode: WEBGPU_MODE,
  dim: DIM,
  spawn: () => spawnRunner('webgpu'),
  tokenRows: async (texts) => {
    const { extractor } = await loaded;
    return texts.map((t) => encodeCapped(extractor.tokenizer, t));
  },
  wasmVectors: (rows) => schedule('query', rows),
  join: (runner) => {
    runner.queries = false;
    runner.retry = (err) => {
      runner.stop(err?.message ?? String(err));
      return true;
    };
    queue.add(runner);
  },
  useWasm: startHelper,
});

/**
 * Vectors for any number of texts, in their order, as one Float32Array [n * DIM].
 *
 * Bucketed by length: the texts are tokenized once, sorted by token count, and neighbours are
 * batched together (at most BATCH rows and BATCH_TOKENS padded tokens), so a batch pads to
 * about its own length instead of its longest stranger's; the rows go back to their places.
 * Padding is masked out of the mean, so the vectors are the same as one text at a time.
 */
async function embedTexts(extractor, texts, priority = 'query') {
  const rows = texts.map((t) => encodeCapped(extractor.tokenizer, t));
  const order = rows.map((_, i) => i).sort((a, b) => rows[a].length - rows[b].length);
  const out = new Float32Array(texts.length * DIM);
  const buckets = [];
  // A query's texts (a quick answer's ~24 sentences) in smaller buckets, about two per session,
  // so every session (this one and the answer helper) takes a share of them at once.
  const total = rows.reduce((sum, r) => sum + r.length, 0);
  const sessions = queue.runners.filter((r) => r.queries !== false).length || 1; // WebGPU takes no queries
  const cap = priority === 'query'
    ? Math.min(BATCH_TOKENS, Math.max(64, Math.ceil(total / (2 * sessions))))
    : BATCH_TOKENS;
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    // Sorted ascending, so the row being added is the batch's widest.
    while (end < order.length && end - start < BATCH && (end - start + 1) * rows[order[end]].length <= cap) end++;
    buckets.push(order.slice(start, end));
    start = end;
  }
  await Promise.all(buckets.map(async (idx) => {
    const vectors = await schedule(priority, idx.map((i) => rows[i]));
    idx.forEach((i, r) => out.set(vectors.subarray(r * DIM, (r + 1) * DIM), i * DIM));
  }));
  return out;
}

const loaded = loadModel({ backend: BACKEND, webgpuMode: WEBGPU_MODE, progress });
loaded.catch(() => {}); // reported through 'start'; avoid an unhandled-rejection warning

function asStrings(texts) {
  if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
    throw Object.assign(new Error('texts must be an array of strings'), { type: 'bad_request' });
  }
  return texts;
}

/** Query-path texts (searches, answers): ahead of any ingestion work. */
async function embed({ texts }) {
  const { extractor } = await loaded;
  asStrings(texts);
  const out = await embedTexts(extractor, texts, 'query');
  return new Transfer(out, [out.buffer]);
}

// Fault injection for tests (debug.killEmbedder({atBackgroundBatch})): the worker ends itself,
// as a crash would (no event, no reply), when ingestion's n-th batch arrives; a kill from the
// page could land before or after a batch depending on the machine's speed.
let dieAtBackgroundBatch = 0;
let backgroundBatches = 0;

/** Ingestion's texts: computed when no query is waiting, by both workers. */
async function embedBackground({ texts }) {
  if (++backgroundBatches === dieAtBackgroundBatch) {
    self.close();
    return new Promise(() => {});
  }
  const { extractor } = await loaded;
  asStrings(texts);
  if (BACKEND === 'wasm') webgpu.choose().catch(() => {}); // ingestion's backend, decided once (not waited for)
  const out = await embedTexts(extractor, texts, 'background');
  return new Transfer(out, [out.buffer]);
}

async function countTokens({ texts }) {
  const { extractor } = await loaded;
  asStrings(texts);
  const counts = Int32Array.from(texts, (t) => extractor.tokenizer.encode(t, { add_special_tokens: false }).length);
  return new Transfer(counts, [counts.buffer]);
}

/**
 * What status() shows as `embedder`. `backend` is where ingestion embeds ('webgpu' once WebGPU
 * passed its check, else 'wasm'; queries always run on wasm), `backendNote` says why not WebGPU
 * when that is worth saying, `webgpu` holds the check's details (state, adapter, cosines, batches).
 */
async function start() {
  const { loadMs, gpu } = await loaded;
  return {
    model: MODEL, dim: DIM, maxTokens: MAX_TOKENS, loadMs, workers: WORKERS, threads,
    backend: BACKEND === 'webgpu' || gpuActive() ? 'webgpu' : 'wasm', queryBackend: BACKEND,
    backendNote: webgpu.info.note, webgpu: gpu ?? { ...webgpu.info, mode: WEBGPU_MODE },
    batchTokens: BATCH_TOKENS, crossOriginIsolated: isolated,
    threadNote: [threadNote, helper.note].filter(Boolean).join('; '),
    workersRunning: queue.runners.length,
    // Queries on a session of their own while ingestion runs on the helpers (see QUERY_WORKER).
    queryWorker: QUERY_WORKER && WORKERS >= 2 && BACKEND === 'wasm',
    ingestWorkers: queue.runners.filter((r) => (r.name === 'helper' && ingestOnWasm) || r.name === 'webgpu').length,
    answerWorkers: queue.runners.filter((r) => r.name !== 'webgpu').length,
    // Helper sessions: how many are wanted now, how many run, how many replaced one that died.
    helpers: { wanted: helper.wanted, running: queue.runners.filter((r) => r.name === 'helper').length, restarts: helper.restarts },
  };
}

// Fault injection for tests, in the WebGPU worker (debug.chooseEmbedBackend({fault})): `failAtBatch`
// loses the GPU device as the n-th batch after it arrives (a real device loss, not a thrown
// stand-in), `skew` bends every vector this worker makes (a GPU computing wrong values).
const faults = { failAt: 0, skew: false, batches: 0 };

/** A runner's one op: vectors for token rows the main worker bucketed. */
async function embedTokenRows({ rows }) {
  if (++faults.batches === faults.failAt) env.backends.onnx.webgpu.device?.destroy();
  const out = await computeHere(rows);
  if (faults.skew) out.forEach((v, i) => { out[i] = v + 0.05 * Math.sin(i); });
  return new Transfer(out, [out.buffer]);
}

const portHandlers = { embed, embedBackground, countTokens };
rpcServe(self, {
  start,
  /** Tests: the answer helper throws outside any call, as a crash in its worker would. */
  crashHelper: async () => {
    const runner = queue.runners.find((r) => r.name === 'helper');
    if (!runner) return false;
    await runner.call('crash');
    return true;
  },
  crash: () => {
    setTimeout(() => { throw new Error('crashed on purpose (debug.crashEmbedHelper)'); });
    return true;
  },
  dieAtBackgroundBatch: ({ n }) => {
    dieAtBackgroundBatch = backgroundBatches + Number(n);
    return true;
  },
  embedRows: embedTokenRows,
  fault: ({ failAtBatch, skew }) => {
    if (failAtBatch !== undefined) faults.failAt = failAtBatch ? faults.batches + Number(failAtBatch) : 0;
    if (skew !== undefined) faults.skew = Boolean(skew);
    return true;
  },
  /** Starts the answer helper (see addHelpers); the page calls it once it is ready. */
  answerHelper: async () => {
    await loaded;
    addHelpers(1);
    return true;
  },
  /** Decides ingestion's backend now (as its first work would); resolves with the outcome. */
  chooseBackend: async ({ fault } = {}) => {
    await loaded;
    return webgpu.choose(fault);
  },
  connect: ({ port }) => {
    rpcServe(port, portHandlers);
    return true;
  },
  // The page may embed directly too (diagnostics, tests).
  ...portHandlers,
});
