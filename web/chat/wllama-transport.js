// The in-browser transport: llama.cpp compiled to wasm (wllama) running the GGUF build.py ships
// (build-manifest.json's `chat.model`). No server; nothing leaves the browser.
//
// Loaded lazily, on the first question that needs it: wllama's module (~380 kB) and wasm
// (~9 MB, precached by the service worker), then the GGUF (see model-store.js). One engine per
// page, shared by every transport object the panel makes.
//
// Threads: both cores (up to 4) when the page is cross-origin isolated, since wllama's threads
// need SharedArrayBuffer; one thread otherwise. Each answer's llama.cpp timings feed the
// expected-wait estimate (pace.js).
//
// wllama would fetch a "compat" build from a CDN on browsers without WebAssembly JSPI and
// Memory64; setCompat(null) turns that off, so it only ever loads files from this origin.
// wllama runs the model in a worker it creates from a blob: URL, which is why index.html's CSP
// allows `worker-src blob:`.

import { ChatError, isAbort } from './transports.js';
import { loadModelFile } from './model-store.js';
import { recordRun } from './pace.js';

const MAX_THREADS = 4;

let engine = null; // Promise<Wllama> once loading started
const listeners = new Set();
let lastStatus = { phase: 'idle' };
let running = null; // {threads, loadMs} once loaded
let lastRun = null; // llama.cpp's timings of the last answer

/** Threads the in-page model runs with here: all cores up to 4 when isolated, else 1. */
export function plannedThreads() {
  const isolated = typeof self !== 'undefined' && self.crossOriginIsolated === true;
  const cores = (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
  return isolated ? Math.max(1, Math.min(MAX_THREADS, cores)) : 1;
}

/**
 * The in-page engine for status(): {phase, threads, loaded, loadMs, lastRun}. `threads` is the
 * count it runs with once loaded, and the count it will use before that.
 */
export function engineInfo() {
  return {
    phase: lastStatus.phase,
    threads: running?.threads ?? plannedThreads(),
    loaded: Boolean(running),
    loadMs: running?.loadMs ?? null,
    lastRun,
  };
}

function report(status) {
  lastStatus = status;
  for (const fn of listeners) fn(status);
}

/** Subscribe to load status: {phase: idle|download|load|ready|error, loaded?, total?, ms?, message?}. */
export function onEngineStatus(fn) {
  listeners.add(fn);
  fn(lastStatus);
  return () => listeners.delete(fn);
}

const quietLogger = {
  debug() {},
  log() {},
  warn(...args) {
    console.warn('[wllama]', ...args);
  },
  error(...args) {
    console.error('[wllama]', ...args);
  },
};

function memory64() {
  try {
    new WebAssembly.Memory({ initial: 1n, maximum: 1n, address: 'i64' });
    return true;
  } catch {
    return false;
  }
}

async function start(chat) {
  const t0 = performance.now();
  if (!memory64() || !WebAssembly.Suspending) {
    throw new Error('this browser lacks WebAssembly Memory64 or JSPI, which the in-browser model needs ' +
      '(current Chrome, Edge or Firefox have them); choose a server or "No model" under Settings');
  }
  report({ phase: 'download', loaded: 0, total: chat.model.size });
  const [{ Wllama }, file] = await Promise.all([
    import(new URL(chat.wllama.module, location.href).href),
    loadModelFile(chat.model, { onProgress: ({ loaded, total }) => report({ phase: 'download', loaded, total }) }),
  ]);
  report({ phase: 'load', stored: file.stored });
  const wllama = new Wllama(
    { default: new URL(chat.wllama.wasm, location.href).href },
    { logger: quietLogger, suppressNativeLog: true },
  );
  wllama.setCompat(null);
  const loadStart = performance.now();
  await wllama.loadModel([file.blob], {
    n_ctx: chat.model.n_ctx ?? 2048,
    n_threads: plannedThreads(),
    n_gpu_layers: 0, // CPU: a 135M model is quick there, and WebGPU support varies a lot
  });
  running = { threads: wllama.getNumThreads(), loadMs: Math.round(performance.now() - loadStart) };
  report({ phase: 'ready', ms: Math.round(performance.now() - t0), stored: file.stored, threads: running.threads });
  return wllama;
}

/** Starts loading the engine (once per page) and returns it. `chat` is build-manifest's `chat`. */
export function loadEngine(chat) {
  if (!engine) {
    engine = start(chat).catch((err) => {
      engine = null; // let the next question try again
      const message = `The in-browser model could not be loaded: ${err.message || err}`;
      report({ phase: 'error', message });
      throw new ChatError('model', message);
    });
  }
  return engine;
}

/**
 * config: {chat (manifest entry), temperature, maxTokens}
 * stream() also takes onProgress({processed, total}) for the prompt being read, and
 * onTimings(llama.cpp timings) once the answer is complete.
 */
export function wllamaTransport(config) {
  const { chat, temperature, maxTokens } = config;
  return {
    name: 'wllama',
    label: `In this browser (${chat?.model?.name ?? 'no model'})`,
    request(messages) {
      return { messages, stream: true, temperature, max_tokens: maxTokens };
    },
    async *stream({ messages, signal, onProgress, onTimings }) {
      if (!chat) throw new ChatError('model', 'This build has no in-browser model (build-manifest.json has no `chat` entry).');
      const wllama = await loadEngine(chat);
      if (signal?.aborted) throw new ChatError('aborted', 'Stopped.');

      // wllama reports chunks through a callback; hand them to this generator through a queue.
      const queue = [];
      let wake = null;
      let finished = false;
      let failure = null;
      const push = () => {
        wake?.();
        wake = null;
      };
      let timings = null;
      const run = wllama.createChatCompletion({
        ...this.request(messages),
        return_progress: Boolean(onProgress),
        onData: (chunk) => {
          const piece = chunk?.choices?.[0]?.delta?.content;
          if (typeof piece === 'string' && piece) queue.push(piece);
          if (chunk?.prompt_progress && onProgress) onProgress(chunk.prompt_progress);
          if (chunk?.timings) timings = chunk.timings;
          push();
        },
        abortSignal: signal,
      }).then(() => {
        finished = true;
        push();
      }, (err) => {
        failure = err;
        finished = true;
        push();
      });
      try {
        for (;;) {
          while (queue.length) yield queue.shift();
          if (finished) break;
          await new Promise((resolve) => {
            wake = resolve;
          });
        }
      } finally {
        await run; // after Stop, wllama frees the request before the next one may start
      }
      if (failure) {
        if (signal?.aborted || isAbort(failure)) throw new ChatError('aborted', 'Stopped.');
        throw new ChatError('interrupted', `The in-browser model stopped with an error: ${failure.message || failure}`);
      }
      if (timings) {
        lastRun = { threads: running?.threads ?? 1, ...timings };
        recordRun(running?.threads ?? 1, timings);
        onTimings?.(lastRun);
      }
    },
  };
}
