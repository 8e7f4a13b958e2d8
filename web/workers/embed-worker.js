// The embedding worker: one warmed all-MiniLM-L6-v2 pipeline for the whole page.
//
// The page asks it to 'start' (resolves once the model is loaded and warmed) and hands it one end
// of a MessageChannel with 'connect'; the retrieval worker holds the other end and sends 'embed'
// (queries), 'embedBackground' (ingestion) and 'countTokens' there directly, so vectors never pass
// through the page.

import { Tensor, env, mean_pooling, pipeline } from './vendor/transformers/transformers.js';
import { Transfer, rpcServe } from './rpc.js';

const MODEL = 'all-MiniLM-L6-v2';
const DIM = 384;
const MAX_TOKENS = 256; // same cap as the native side; the shipped tokenizer files disagree (128/512)
// Rows and padded tokens per model call. In single-threaded wasm a batch buys no speed, only
// padding: measured on 96 SciFact chunks (~135 tokens), length buckets of at most 256 padded
// tokens embed 1.2-1.7x faster than unsorted batches of 16 and as fast as one text per call,
// while short texts (queries) still share a call.
// A worker started with a name holding `threads=N` or `batchTokens=N` uses those instead (the
// bench's A/B runs; see py_src/readingroom/bench/embedding.py).
const override = (key) => Number(new RegExp(`\\b${key}=(\\d+)`).exec(self.name ?? '')?.[1]) || null;
const BATCH = 16;
const BATCH_TOKENS = override('batchTokens') ?? MAX_TOKENS;

const vendor = new URL('./vendor/transformers/', import.meta.url);
env.allowRemoteModels = false; // never reach for the Hugging Face hub
env.allowLocalModels = true;
// A path, not a full URL: transformers.js only probes local files (e.g. whether a tokenizer exists)
// for paths; with an http(s) URL here it concludes there is no tokenizer at all.
env.localModelPath = new URL('./models/', import.meta.url).pathname;
env.useBrowserCache = false; // the service worker already caches the model files
// Keep ORT off blob: URLs (a CSP will forbid them): it imports the factory from our origin.
env.useWasmCache = false;
const wasm = env.backends.onnx.wasm;
// transformers.js points wasmPaths at a CDN on import; overwrite its keys, keep the object.
if (!wasm.wasmPaths || typeof wasm.wasmPaths !== 'object') wasm.wasmPaths = {};
wasm.wasmPaths.mjs = new URL('ort-wasm-simd-threaded.mjs', vendor).href;
wasm.wasmPaths.wasm = new URL('ort-wasm-simd-threaded.wasm', vendor).href;
// Threads need SharedArrayBuffer, which only a cross-origin isolated page has (build.py serve and
// sw.js send COOP/COEP). onnxruntime-web's own default is min(4, ceil(cores / 2)), one thread on
// two cores, so the count is set: every core when isolated, else one (and status() says why).
const isolated = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
const threads = isolated ? Math.max(1, override('threads') ?? navigator.hardwareConcurrency ?? 1) : 1;
const threadNote = isolated ? '' : 'this page is not cross-origin isolated, so the embedding model runs on one thread';
wasm.numThreads = threads;

function progress(event) {
  self.postMessage({ type: 'progress', stage: 'model', ...event });
}

async function load() {
  const started = performance.now();
  progress({ status: 'loading' });
  // No progress_callback: with one, transformers.js GETs every file once more just to learn its
  // size, which for a local path means a second full download of the 23 MB model.
  const extractor = await pipeline('feature-extraction', MODEL, { dtype: 'q8' });
  // model_max_length is a getter over the tokenizer config, so set it there. (embedBatch caps
  // lengths itself; this keeps the pipeline's own call consistent should anything use it.)
  extractor.tokenizer.config.model_max_length = MAX_TOKENS;
  progress({ status: 'warming up' });
  await embedBatch(extractor, ['warm up']);
  return { extractor, loadMs: Math.round(performance.now() - started) };
}

/**
 * Token ids as the native side's Rust tokenizer makes them: [CLS] text [SEP], at most MAX_TOKENS.
 * transformers.js truncates by cutting the id array, which drops the closing [SEP] and shifts
 * every long chunk's vector (cosine ~0.999 to native); instead cut the text's tokens and keep it.
 */
function encodeCapped(tokenizer, text) {
  const ids = tokenizer.encode(text);
  return ids.length <= MAX_TOKENS ? ids : [...ids.slice(0, MAX_TOKENS - 1), ids[ids.length - 1]];
}

/** Mean-pooled, L2-normalised vectors for token rows (one batch), as a [n, DIM] tensor. */
async function embedRows(extractor, rows) {
  const { tokenizer, model } = extractor;
  const width = Math.max(...rows.map((r) => r.length));
  const dims = [rows.length, width];
  const ids = new BigInt64Array(rows.length * width).fill(BigInt(tokenizer.pad_token_id ?? 0));
  const mask = new BigInt64Array(rows.length * width);
  rows.forEach((row, i) => {
    row.forEach((id, j) => {
      ids[i * width + j] = BigInt(id);
      mask[i * width + j] = 1n;
    });
  });
  const attention_mask = new Tensor('int64', mask, dims);
  const { last_hidden_state } = await model({
    input_ids: new Tensor('int64', ids, dims),
    attention_mask,
    token_type_ids: new Tensor('int64', new BigInt64Array(rows.length * width), dims),
  });
  return mean_pooling(last_hidden_state, attention_mask).normalize(2, -1);
}

async function embedBatch(extractor, texts) {
  return embedRows(extractor, texts.map((t) => encodeCapped(extractor.tokenizer, t)));
}

// Queries first: every model call goes through one queue with two priorities. A request is cut
// into length buckets (below) and each bucket is one job, so a query arriving during a big
// ingestion waits for at most the one bucket being computed, then runs before the ingestion's
// remaining buckets. Only one model call runs at a time: the session's threads are all busy with it.
const jobs = { query: [], background: [] };
let pumping = false;

function schedule(priority, task) {
  return new Promise((resolve, reject) => {
    jobs[priority].push({ task, resolve, reject });
    pump();
  });
}

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    for (let job = next(); job; job = next()) {
      try {
        job.resolve(await job.task());
      } catch (err) {
        job.reject(err);
      }
    }
  } finally {
    pumping = false;
  }
}

function next() {
  return jobs.query.shift() ?? jobs.background.shift();
}

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
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    // Sorted ascending, so the row being added is the batch's widest.
    while (end < order.length && end - start < BATCH && (end - start + 1) * rows[order[end]].length <= BATCH_TOKENS) end++;
    buckets.push(order.slice(start, end));
    start = end;
  }
  await Promise.all(buckets.map((idx) => schedule(priority, async () => {
    const tensor = await embedRows(extractor, idx.map((i) => rows[i]));
    idx.forEach((i, r) => out.set(tensor.data.subarray(r * DIM, (r + 1) * DIM), i * DIM));
    tensor.dispose?.();
  })));
  return out;
}

const loaded = load();
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

/** Ingestion's texts: computed when no query is waiting. */
async function embedBackground({ texts }) {
  const { extractor } = await loaded;
  asStrings(texts);
  const out = await embedTexts(extractor, texts, 'background');
  return new Transfer(out, [out.buffer]);
}

async function countTokens({ texts }) {
  const { extractor } = await loaded;
  asStrings(texts);
  const counts = Int32Array.from(texts, (t) => extractor.tokenizer.encode(t, { add_special_tokens: false }).length);
  return new Transfer(counts, [counts.buffer]);
}

async function start() {
  const { loadMs } = await loaded;
  return { model: MODEL, dim: DIM, maxTokens: MAX_TOKENS, loadMs, backend: 'wasm', threads, batchTokens: BATCH_TOKENS, crossOriginIsolated: isolated, threadNote };
}

const portHandlers = { embed, embedBackground, countTokens };
rpcServe(self, {
  start,
  connect: ({ port }) => {
    rpcServe(port, portHandlers);
    return true;
  },
  // The page may embed directly too (diagnostics, tests).
  ...portHandlers,
});
