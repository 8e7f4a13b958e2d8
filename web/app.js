// Page entry: starts the two workers, wires the UI, and exposes window.readingroom for automation.
//
//   window.readingroom.ready               Promise<status>, resolves once Python and the model are up
//   window.readingroom.addDocuments(input) input: [{name, text}] | FileList | File[] -> Python's report
//                                          (plus `rejected_files` for files refused before Python)
//   window.readingroom.query(text, opts)   -> the JSON Python's readingroom.worker.query returns
//   window.readingroom.status()            -> {documents, chunks, model, storage, offlineReady, state, ...}
//   window.readingroom.deleteDocument(id)  -> Python's reply ({deleted, status})
//   window.readingroom.documents()         -> Python's list of stored documents
//   window.readingroom.embed(texts)        -> [[384 numbers], ...] from the embedding worker (diagnostics)
//   window.readingroom.importIndex(source) -> status() of the imported index
//       source: a URL on this app's origin (string or URL, relative to the page), a File/Blob, or
//       an ArrayBuffer/Uint8Array holding a SQLite index file as the native side writes it
//       (py_src/readingroom/sql.py schema). It replaces the current library (all documents) with
//       that file, then Python opens it again: `mismatch` in the result is non-null when the index
//       was made with another model or chunker (lexical search still works; vectors are not
//       mixed). The file streams into storage in pieces (a URL is fetched inside the worker), so
//       a 200 MB index never sits in the page. If anything fails before the switch (not an index,
//       download cut short), the old library is kept and the promise rejects with a RemoteError
//       {type, message}. Progress shows on the page ("Importing index… n MB").
//
// Python's replies come back unchanged, {"error": {type, message}} ones included; a promise only
// rejects when something failed outside Python's own error handling.

import { readDocuments } from './files.js';
import { setupOffline } from './offline.js';
import { RemoteError, rpcClient } from './rpc.js';
import * as ui from './ui.js';
import { mountChat } from './chat-panel.js';

const state = {
  state: 'starting', // starting | locked | ready | error
  offlineReady: false,
  version: null,
  storage: null,
  storageNote: '',
  embedder: null,
  error: null,
  timings: {}, // ms since navigation start: python, model, ready
};
const mark = (name) => {
  state.timings[name] = Math.round(performance.now());
};

function onProgress(event) {
  if (event?.type !== 'progress') return;
  if (event.stage === 'python') ui.setStep('python', 'active', event.status ?? '');
  else if (event.stage === 'model') {
    ui.setStep('model', 'active', event.percent !== undefined ? `${event.status} ${event.percent}%` : event.status ?? '');
  } else if (event.stage === 'locked') {
    state.state = 'locked';
    ui.showNotice('Another tab has Reading Room open. Close it there to continue here; this tab will carry on by itself.', 'warning');
  } else if (event.stage === 'database') {
    ui.showStorage(event.storage, event.storageNote);
  } else if (event.stage === 'import') {
    ui.showActivity(importMessage(event));
  } else if (event.event === 'chunks') {
    ui.showActivity(`Indexing ${event.name}: ${event.done} of ${event.total} passages embedded`);
  } else if (event.event === 'document') {
    ui.showActivity(`${event.done} of ${event.total} documents done`);
  }
}

const MB = (bytes) => (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0);

function importMessage({ phase, bytes, total }) {
  if (phase === 'reading') return `Importing index… ${MB(bytes)}${total ? ` of ${MB(total)}` : ''} MB`;
  if (phase === 'checking') return 'Importing index… checking the file';
  return 'Importing index… opening it';
}

function workerFailed(name) {
  return (event) => {
    event.preventDefault?.();
    fail({ type: 'worker', message: `The ${name} could not start (${event.message || 'script error'}). Reload the page to try again.` });
  };
}

let rejectReady;
function fail(error) {
  state.state = 'error';
  state.error = { type: error.type ?? 'error', message: error.message ?? String(error) };
  ui.setPhase('error');
  ui.showNotice(state.error.message);
  rejectReady?.(new RemoteError(state.error));
}

/** Re-throws a start-up failure with a sentence saying what failed and what to do. */
function explain(step, what) {
  return (err) => {
    ui.setStep(step, 'error', '');
    throw new RemoteError({
      type: err?.type ?? 'error',
      message: `${what} (${err?.message ?? err}). Reload the page to try again.`,
    });
  };
}

let retrieval = null;
let embedder = null;

async function boot() {
  const manifest = await (await fetch('build-manifest.json')).json();
  state.version = manifest.version;
  setupOffline(manifest.version, (change) => {
    if ('offlineReady' in change) state.offlineReady = change.offlineReady;
    ui.showOffline(change);
  });

  const embedWorker = new Worker('embed-worker.js', { type: 'module', name: 'readingroom-embedder' });
  const retrievalWorker = new Worker('retrieval-worker.js', { type: 'module', name: 'readingroom-retrieval' });
  embedWorker.addEventListener('error', workerFailed('embedding worker'));
  retrievalWorker.addEventListener('error', workerFailed('retrieval worker'));
  embedder = rpcClient(embedWorker, onProgress);
  retrieval = rpcClient(retrievalWorker, onProgress);

  // The retrieval worker asks the embedder for vectors directly, over its own channel.
  const channel = new MessageChannel();
  await embedder('connect', { port: channel.port1 }, [channel.port1]);
  const storage = new URLSearchParams(location.search).get('storage') === 'memory' ? 'memory' : 'opfs';
  const { dim, max_tokens, id } = manifest.model;
  const [embedInfo, status] = await Promise.all([
    embedder('start').then((info) => {
      mark('model');
      ui.setStep('model', 'done', `${info.model}, ${(info.loadMs / 1000).toFixed(1)} s`);
      return info;
    }, explain('model', 'The embedding model could not be loaded')),
    retrieval(
      'start',
      { embedPort: channel.port2, wheel: manifest.wheel, model: { id, dim, max_tokens }, storage },
      [channel.port2],
    ).then((s) => {
      mark('python');
      ui.setStep('python', 'done', '');
      return s;
    }, explain('python', 'Python could not start')),
  ]);
  state.embedder = embedInfo;
  state.storage = status.storage;
  state.storageNote = status.storageNote ?? '';
  state.timings.retrievalWorker = status.workerTimings;
  state.state = 'ready';
  mark('ready');
  ui.setStep('ready', 'done', `${(state.timings.ready / 1000).toFixed(1)} s`);
  ui.setPhase('ready');
  ui.showNotice('');
  ui.showStorage(state.storage, state.storageNote);
  ui.showCounts(status);
  ui.showMismatch(status.mismatch);
  if (state.storage === 'opfs') {
    // Ask the browser not to evict the library under storage pressure (it may say no).
    state.persisted = (await navigator.storage.persist?.().catch(() => false)) ?? false;
  }
  return publicStatus(status);
}

function publicStatus(pythonStatus = {}) {
  return {
    ...pythonStatus,
    state: state.state,
    offlineReady: state.offlineReady,
    version: state.version,
    embedder: state.embedder,
    storageNote: state.storageNote,
    timings: state.timings,
    persisted: state.persisted ?? false,
    ...(state.error ? { error: state.error } : {}),
  };
}

const ready = new Promise((resolve, reject) => {
  rejectReady = reject;
  boot().then(resolve, fail);
});
ready.catch(() => {}); // shown on the page; automation sees the rejection through `ready`

async function addDocuments(input) {
  await ready;
  const items = typeof Blob !== 'undefined' && input instanceof Blob ? [input] : input;
  const { docs, rejected } = await readDocuments(items);
  // Show refused files at once, not after the others are indexed.
  ui.showFileMessages(rejected.map((r) => ({ text: r.message })));
  const report = docs.length ? await retrieval('addDocuments', { docs }) : {};
  if (report.status) ui.showCounts(report.status);
  return rejected.length ? { ...report, rejected_files: rejected } : report;
}

async function query(text, options = {}) {
  await ready;
  return retrieval('query', { text: String(text ?? ''), options });
}

async function deleteDocument(docId) {
  await ready;
  const out = await retrieval('deleteDocument', { docId });
  if (out.status) ui.showCounts(out.status);
  return out;
}

async function documents() {
  await ready;
  return retrieval('documents');
}

async function embed(texts) {
  await ready;
  const flat = await embedder('embed', { texts: Array.from(texts) });
  const dim = state.embedder.dim;
  return Array.from({ length: flat.length / dim }, (_, i) => Array.from(flat.subarray(i * dim, (i + 1) * dim)));
}

/** The worker's importIndex fields for a URL, Blob or bytes (see the comment at the top). */
function importFields(source) {
  if (typeof source === 'string' || source instanceof URL) {
    const url = new URL(source, location.href);
    if (url.origin !== location.origin) {
      throw new RemoteError({ type: 'bad_request', message: `importIndex only reads from this app's own origin, not ${url.origin}` });
    }
    return { url: url.href };
  }
  if (source instanceof Blob) return { blob: source };
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source) };
  if (ArrayBuffer.isView(source)) return { bytes: new Uint8Array(source.buffer, source.byteOffset, source.byteLength) };
  throw new RemoteError({ type: 'bad_request', message: 'importIndex takes a same-origin URL, a File/Blob, or an ArrayBuffer/Uint8Array' });
}

async function importIndex(source) {
  await ready;
  const fields = importFields(source);
  ui.showActivity('Importing index…');
  try {
    const out = await retrieval('importIndex', fields);
    if (out.error) {
      ui.showActivity('');
      ui.showNotice(out.error.message);
      return publicStatus(out);
    }
    ui.showCounts(out);
    ui.showMismatch(out.mismatch);
    ui.showActivity(`Imported an index of ${out.documents} document${out.documents === 1 ? '' : 's'}.`);
    return publicStatus(out);
  } catch (err) {
    ui.showActivity('');
    ui.showNotice(`The index could not be imported: ${err.message}`);
    throw err;
  }
}

async function status() {
  if (state.state !== 'ready') return publicStatus({ storage: state.storage });
  return publicStatus(await retrieval('status'));
}

window.readingroom = Object.freeze({
  ready, addDocuments, query, status, deleteDocument, documents, embed, importIndex,
});
mountChat(document.getElementById('chat-root'), window.readingroom);

// --- UI wiring --------------------------------------------------------------------------------

async function addFromUser(files) {
  if (!files?.length) return;
  ui.showActivity(`Adding ${files.length} file${files.length === 1 ? '' : 's'}…`);
  try {
    const report = await addDocuments(Array.from(files));
    if (report.error) throw report.error;
    const messages = (report.rejected_files ?? []).map((r) => ({ text: r.message }));
    const outcomes = report.documents ?? [];
    for (const o of outcomes) {
      if (o.status === 'error') messages.push({ text: o.error?.message ?? `${o.name} could not be added` });
    }
    ui.showFileMessages(messages);
    const added = outcomes.filter((o) => o.status !== 'error').length;
    ui.showActivity(added ? `Added ${added} document${added === 1 ? '' : 's'}.` : '');
  } catch (err) {
    ui.showActivity('');
    ui.showFileMessages([{ text: err.message ?? String(err) }]);
  }
}

function wire() {
  const input = document.getElementById('file-input');
  input.addEventListener('change', () => {
    addFromUser(Array.from(input.files));
    input.value = '';
  });
  const zone = document.getElementById('drop-zone');
  for (const name of ['dragenter', 'dragover']) {
    zone.addEventListener(name, (e) => {
      e.preventDefault();
      zone.classList.add('dragging');
    });
  }
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    addFromUser(Array.from(e.dataTransfer?.files ?? []));
  });

  document.getElementById('query-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = document.getElementById('query').value;
    try {
      const result = await query(text);
      if (result.error) ui.showNotice(result.error.message);
      else {
        ui.showNotice('');
        ui.showResults(result);
      }
    } catch (err) {
      ui.showNotice(err.message ?? String(err));
    }
  });
}

wire();
