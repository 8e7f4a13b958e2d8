// The model itself: all-MiniLM-L6-v2 (int8) through transformers.js from this site's own files,
// token ids cut as the native side cuts them, and mean-pooled, L2-normalised vectors. The worker
// (embed-worker.js) decides where and when it runs.

import { Tensor, env, mean_pooling, pipeline } from './vendor/transformers/transformers.js';
import { prepareWebGPUWorker } from './embed-webgpu.js';

export const MODEL = 'all-MiniLM-L6-v2';
export const DIM = 384;
export const MAX_TOKENS = 256; // same cap as the native side; the shipped tokenizer files disagree (128/512)

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

/** onnxruntime-web's wasm threads for this worker's session (set before the model loads). */
export function useThreads(n) {
  wasm.numThreads = n;
}

/**
 * The pipeline, loaded and warmed: {extractor, gpu, loadMs}. `backend`: 'wasm' or 'webgpu' (with
 * `webgpuMode`); `progress(event)` hears 'loading' and 'warming up'.
 */
export async function loadModel({ backend, webgpuMode, progress }) {
  const started = performance.now();
  progress({ status: 'loading' });
  // No progress_callback: with one, transformers.js GETs every file once more just to learn its
  // size, which for a local path means a second full download of the 23 MB model.
  const gpu = backend === 'webgpu' ? await prepareWebGPUWorker(env, webgpuMode) : null;
  const extractor = await pipeline('feature-extraction', MODEL, { dtype: 'q8', ...(gpu && { device: 'webgpu' }) });
  // model_max_length is a getter over the tokenizer config, so set it there. (embedBatch caps
  // lengths itself; this keeps the pipeline's own call consistent should anything use it.)
  extractor.tokenizer.config.model_max_length = MAX_TOKENS;
  progress({ status: 'warming up' });
  if (!gpu) await embedBatch(extractor, ['warm up']); // on WebGPU the agreement check warms it up
  return { extractor, gpu, loadMs: Math.round(performance.now() - started) };
}

/**
 * Token ids as the native side's Rust tokenizer makes them: [CLS] text [SEP], at most MAX_TOKENS.
 * transformers.js truncates by cutting the id array, which drops the closing [SEP] and shifts
 * every long chunk's vector (cosine ~0.999 to native); instead cut the text's tokens and keep it.
 */
export function encodeCapped(tokenizer, text) {
  const ids = tokenizer.encode(text);
  return ids.length <= MAX_TOKENS ? ids : [...ids.slice(0, MAX_TOKENS - 1), ids[ids.length - 1]];
}

/** Mean-pooled, L2-normalised vectors for token rows (one batch), as a [n, DIM] tensor. */
export async function embedRows(extractor, rows) {
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
