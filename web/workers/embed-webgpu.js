// WebGPU for ingestion: whether to use it, getting it ready, and checking it before trusting it.
//
// The embedding worker (embed-worker.js) always answers queries on wasm. When ingestion first
// sends work it asks chooser.choose(): if the browser offers a hardware WebGPU adapter, a second
// worker (the same script, named `backend=webgpu`) loads the model on WebGPU, and its vectors for
// a fixed set of texts are compared with the wasm session's; only if every cosine is at least
// MIN_COSINE does ingestion embed there. A software adapter (SwiftShader, llvmpipe: slower than
// wasm) is used only when the page asks for it (`?webgpu=software`, for tests); `?webgpu=off`
// never looks. If WebGPU fails later, mid-batch, its batch goes back to the queue and wasm does
// the rest; nothing is stored from a batch that did not come back whole.
//
// The model is the same int8 graph as on wasm (and natively): vectors made on WebGPU then sit in
// the same index as those made on wasm, so they must agree with them, not with an fp32 model.

export const MIN_COSINE = 0.999;

// Short and long, plain and odd: the texts whose vectors must agree before WebGPU is trusted.
export const AGREEMENT_TEXTS = [
  'warm up',
  'How do I catch an exception in Python?',
  'Photosynthesis converts light energy into chemical energy stored in glucose.',
  'Spring tides follow the full and the new moon; neap tides fall between them.',
  'The kettle is descaled every month with citric acid, then rinsed twice with cold water ' +
    'before it is used again. Limescale builds up faster where the water is hard, and a thick ' +
    'layer makes the element work harder, so the descaling is written in the house log with ' +
    'the date and the amount of acid used.',
  'résumé, naïve café — 42 × 7 = 294; (x) => x ** 2',
];

const SOFTWARE_NAMES = /swiftshader|llvmpipe|lavapipe|softpipe|warp|basic render/i;

/** The page's WebGPU switch, from a worker name holding `webgpu=software|off` ('auto' otherwise). */
export function webgpuMode(name = '') {
  return /\bwebgpu=(software|off)\b/.exec(name)?.[1] ?? 'auto';
}

function describe(adapter) {
  const info = adapter.info ?? {};
  const label = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ') || 'unnamed adapter';
  const software = Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter) || SOFTWARE_NAMES.test(label);
  return { label, software };
}

/**
 * The adapter to embed on, or why there is none: {adapter, label, software} or {why, label?}.
 * A software adapter is taken only in 'software' mode.
 */
export async function findAdapter(mode) {
  if (mode === 'off') return { why: 'WebGPU is switched off for this page (?webgpu=off)' };
  if (!globalThis.navigator?.gpu) return { why: 'this browser offers no WebGPU' };
  let adapter = null;
  try {
    adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (err) {
    return { why: `the browser could not give a WebGPU adapter (${err?.message ?? err})` };
  }
  if (!adapter) return { why: 'the browser offers no WebGPU adapter' };
  const { label, software } = describe(adapter);
  if (software && mode !== 'software') {
    return { label, software, why: `the only WebGPU adapter is a software one (${label}), slower than wasm` };
  }
  return { adapter, label, software };
}

/**
 * In the WebGPU worker, before the model loads: ONNX Runtime's asyncify build (fetched now,
 * checked against the build manifest's hash) and the adapter it must use.
 */
export async function prepareWebGPUWorker(env, mode) {
  const found = await findAdapter(mode);
  if (!found.adapter) throw new Error(found.why);
  const site = new URL('./', import.meta.url);
  const response = await fetch(new URL('build-manifest.json', site), { cache: 'no-cache' });
  const files = (await response.json()).webgpu;
  if (!files) throw new Error('this build has no WebGPU runtime');
  const wasm = env.backends.onnx.wasm;
  wasm.wasmPaths = { mjs: new URL(files.mjs.path, site).href, wasm: new URL(files.wasm.path, site).href };
  wasm.wasmBinary = await runtimeBinary(wasm.wasmPaths.wasm, files.wasm);
  wasm.numThreads = 1; // the GPU does the work; the cores stay with queries and Python
  env.backends.onnx.webgpu.adapter = found.adapter;
  return { label: found.label, software: found.software };
}

// The WebGPU wasm is not in the service worker's precache (most pages never use it): kept here
// after its first download, one build's copy at a time, so a GPU keeps working offline.
const RUNTIME_CACHE = 'webgpu-runtime';

async function runtimeBinary(url, { sha256, integrity }) {
  const key = `${url}?sha256=${sha256}`;
  const cache = await globalThis.caches?.open(RUNTIME_CACHE).catch(() => null);
  let response = await cache?.match(key);
  try {
    if (!response) {
      response = await fetch(url, { integrity });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      if (cache) {
        for (const old of await cache.keys()) await cache.delete(old);
        await cache.put(key, response.clone()).catch(() => {}); // storage full: fetched again next time
      }
    }
    return await response.arrayBuffer();
  } catch (err) {
    throw new Error(`the WebGPU runtime could not be fetched (${err?.message ?? err})`);
  }
}

/** Cosine of each row's pair of vectors (flat, `dim` wide). */
export function cosines(a, b, rows, dim) {
  const out = [];
  for (let r = 0; r < rows; r++) {
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let j = r * dim; j < (r + 1) * dim; j++) {
      dot += a[j] * b[j];
      na += a[j] * a[j];
      nb += b[j] * b[j];
    }
    out.push(dot / Math.sqrt(na * nb || 1));
  }
  return out;
}

/**
 * The agreement texts' vectors from WebGPU, flat in their order: the longest text alone and the
 * others padded together in one batch (which still checks that padding is masked out as on
 * wasm). Padded token slots are what a software adapter pays for (~0.15 s each on SwiftShader):
 * one batch padded to the longest text was 6 x 71 = 426 slots and took ~60 s, these two 181.
 */
async function agreementVectors(runner, rows, dim) {
  const longest = rows.reduce((best, row, i) => (row.length > rows[best].length ? i : best), 0);
  const others = rows.map((_, i) => i).filter((i) => i !== longest);
  const out = new Float32Array(rows.length * dim);
  for (const batch of [others, [longest]]) {
    const vectors = await runner.compute(batch.map((i) => rows[i]));
    batch.forEach((i, r) => out.set(vectors.subarray(r * dim, (r + 1) * dim), i * dim));
  }
  return out;
}

/**
 * The decision, made once per embedding worker, and what came of it (`info`, shown in status()).
 *
 *   mode          the page's switch (webgpuMode)
 *   spawn()       a runner in a new WebGPU worker: {call, compute(rows), started, stop(why), onStop}
 *   tokenRows(t)  token rows for texts, as the wasm side makes them
 *   wasmVectors(rows)  the same rows' vectors from the wasm session
 *   join(runner)  ingestion's work goes to this runner from now on
 *   useWasm()     ingestion stays on wasm (both cores)
 *   dim           vector width
 */
export function webgpuChooser({ mode, spawn, tokenRows, wasmVectors, join, useWasm, dim }) {
  const info = { state: 'unchecked', adapter: null, software: null, agreement: null, cosines: null, batches: 0, note: '' };
  let choosing = null;

  // ONNX Runtime's errors carry a source path and assertion text: keep the part a person can read.
  const brief = (why) => {
    let text = String(why);
    const plain = text.includes('ERROR_MESSAGE') ? text.match(/[A-Z][a-z][^.:/()]*\./g) : null;
    if (plain) text = `ONNX Runtime: ${plain.at(-1)}`;
    return text.length > 160 ? `${text.slice(0, 157)}…` : text;
  };

  function settle(state, note) {
    Object.assign(info, { state, note });
    if (note) console.warn('Reading Room:', note);
    if (state !== 'on') useWasm();
    return { ...info };
  }

  async function decide(fault) {
    const found = await findAdapter(mode);
    Object.assign(info, { adapter: found.label ?? null, software: found.software ?? null });
    if (!found.adapter) return settle('unavailable', mode === 'auto' && !found.label ? '' : `Ingestion embeds on wasm: ${found.why}.`);
    info.state = 'loading';
    const runner = spawn();
    const unusable = (why) => settle('failed', `WebGPU (${found.label}) could not be used (${brief(why)}); ingestion embeds on wasm.`);
    try {
      await runner.started;
      if (fault?.skew) await runner.call('fault', { skew: true });
      info.state = 'checking';
      const rows = await tokenRows(AGREEMENT_TEXTS);
      const [gpu, cpu] = await Promise.all([agreementVectors(runner, rows, dim), wasmVectors(rows)]);
      info.cosines = cosines(gpu, cpu, rows.length, dim).map((c) => Number(c.toFixed(6)));
    } catch (err) {
      runner.stop(err?.message ?? String(err));
      return unusable(err?.message ?? String(err));
    }
    info.agreement = Math.min(...info.cosines);
    if (!(info.agreement >= MIN_COSINE)) {
      runner.stop('refused');
      return settle('refused', `WebGPU (${found.label}) was refused: its vectors disagree with wasm ` +
        `(lowest cosine ${info.agreement.toFixed(4)}, below ${MIN_COSINE}); ingestion embeds on wasm.`);
    }
    if (fault?.failAtBatch) await runner.call('fault', { failAtBatch: fault.failAtBatch });
    runner.onStop = (why) => settle('failed', `WebGPU (${found.label}) failed during ingestion (${brief(why)}); its batch ` +
      'and the rest are embedded on wasm, and no document was lost.');
    runner.onDone = () => { info.batches += 1; };
    join(runner);
    return settle('on', '');
  }

  async function decideSafely(fault) {
    try {
      return await decide(fault);
    } catch (err) { // not expected: every step above catches its own failures
      return settle('failed', `WebGPU could not be checked (${err?.message ?? err}); ingestion embeds on wasm.`);
    }
  }

  return {
    info,
    /** Starts the decision (once); resolves with `info` when it is made. `fault` is for tests. */
    choose: (fault) => (choosing ??= decideSafely(fault)),
  };
}
