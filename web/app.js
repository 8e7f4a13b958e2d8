// Page entry: starts the two workers, wires the UI, and exposes window.readingroom for automation.
//
//   window.readingroom.ready               Promise<status>, resolves once Python and the model are up
//   window.readingroom.addDocuments(input) input: [{name, text}] | FileList | File[] -> Python's report
//                                          (plus `rejected_files` for files refused before Python)
//   window.readingroom.query(text, opts)   -> the JSON Python's readingroom.worker.query returns
//   window.readingroom.status()            -> {documents, chunks, model, storage, offlineReady, state, ...}
//   window.readingroom.deleteDocument(id)  -> Python's reply ({deleted, status})
//   window.readingroom.documents()         -> Python's list of stored documents
//   window.readingroom.cancelIngest()      -> stops the addDocuments in flight after its current
//                                             batch; the document being added is not stored
//   window.readingroom.reindex()           -> re-embeds the library with this app's model (needs
//                                             the worker's `reindex` op; rejects while it is missing)
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

import { showDebug } from './debug.js';
import { IngestProgress, currentFilters, showDocuments, showFilterSummary, showFilters } from './documents.js';
import { readDocuments } from './files.js';
import { setupOffline } from './offline.js';
import { closeReader, dropResultsOf, openReader, showResults } from './results.js';
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
  timings: {}, // ms since navigation start: python, model, ready, retrievalWorker: {phase: ms}
};
const mark = (name) => {
  state.timings[name] = Math.round(performance.now());
};
// The progress panel of every addDocuments call, from the page or from automation.
const ingest = new IngestProgress(() => {
  cancelIngest().catch((err) => ui.showNotice(err.message ?? String(err)));
});
let lastSearch = null; // {text, result} of the last search made from the page

function onProgress(event) {
  if (event?.type !== 'progress') return;
  if (event.stage === 'python') ui.setStep('python', 'active', event.status ?? '');
  else if (event.stage === 'model') {
    ui.setStep('model', 'active', event.percent !== undefined ? `${event.status} ${event.percent}%` : event.status ?? '');
  } else if (event.stage === 'locked') {
    state.state = 'locked';
    ui.showAppState('locked');
    ui.showNotice('Another tab has Reading Room open. Close it there to continue here; this tab will carry on by itself.', 'warning');
  } else if (event.stage === 'database') {
    ui.showStorage(event.storage, event.storageNote);
  } else if (event.stage === 'import') {
    ui.showActivity(importMessage(event));
  } else if (event.event === 'chunks' || event.event === 'document') {
    ingest.event(event);
  }
}

/** Header state: warming up, ready, ready offline, locked, error. */
function showState() {
  if (state.state === 'ready') ui.showAppState(state.offlineReady ? 'offline' : 'ready');
  else ui.showAppState(state.state);
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
  showState();
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
  // Workers first: each starts loading its runtime as soon as its script runs, while the page
  // fetches the manifest.
  const embedWorker = new Worker('embed-worker.js', { type: 'module', name: 'readingroom-embedder' });
  const retrievalWorker = new Worker('retrieval-worker.js', { type: 'module', name: 'readingroom-retrieval' });
  embedWorker.addEventListener('error', workerFailed('embedding worker'));
  retrievalWorker.addEventListener('error', workerFailed('retrieval worker'));
  embedder = rpcClient(embedWorker, onProgress);
  retrieval = rpcClient(retrievalWorker, onProgress);

  // The retrieval worker asks the embedder for vectors directly, over its own channel.
  const channel = new MessageChannel();
  const connected = embedder('connect', { port: channel.port1 }, [channel.port1]);
  const manifest = await (await fetch('build-manifest.json')).json();
  state.version = manifest.version;
  setupOffline(manifest.version, (change) => {
    if ('offlineReady' in change) state.offlineReady = change.offlineReady;
    ui.showOffline(change);
    showState();
  });
  const storage = new URLSearchParams(location.search).get('storage') === 'memory' ? 'memory' : 'opfs';
  const { dim, max_tokens, id } = manifest.model;
  const [embedInfo, status] = await Promise.all([
    connected.then(() => embedder('start')).then((info) => {
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
  state.timings.retrievalWorker = pageTimes(status.workerTimings);
  state.state = 'ready';
  mark('ready');
  ui.setStep('ready', 'done', `${(state.timings.ready / 1000).toFixed(1)} s`);
  ui.setPhase('ready');
  showState();
  ui.showNotice('');
  ui.showStorage(state.storage, state.storageNote);
  ui.showCounts(status);
  ui.showMismatch(status.mismatch);
  refreshDocuments();
  openBundle(manifest.bundle, status); // not awaited: the app is usable while it opens
  if (state.storage === 'opfs') {
    // Ask the browser not to evict the library under storage pressure (it may say no).
    state.persisted = (await navigator.storage.persist?.().catch(() => false)) ?? false;
  }
  return publicStatus(status);
}

const BUNDLE_KEY = 'readingroom-bundle-opened';

/**
 * On the first visit to an empty library, open the index bundled with the site (build.py
 * --index, or the demo corpus). Once opened, never again: a person who deletes the bundled
 * documents keeps them deleted. Documents added later live beside the bundled ones.
 */
async function openBundle(bundle, status) {
  if (!bundle || status.documents > 0 || localStorage.getItem(BUNDLE_KEY) === bundle.sha256) return;
  ui.showActivity(`Opening the bundled library (${(bundle.size / 1e6).toFixed(1)} MB)…`);
  try {
    const out = await retrieval('importIndex', { url: new URL(bundle.path, location.href).href });
    if (out.error) throw out.error;
    localStorage.setItem(BUNDLE_KEY, bundle.sha256);
    ui.showCounts(out);
    ui.showMismatch(out.mismatch);
    refreshDocuments();
    ui.showActivity(`Opened the bundled library: ${out.documents} documents, ready to ask.`);
  } catch (err) {
    ui.showActivity('');
    ui.showNotice(`The bundled library could not be opened: ${err.message ?? err}`);
  }
}

/** A worker's {phase: epoch ms} as ms since this page's navigation started. */
function pageTimes(epochTimes = {}) {
  return Object.fromEntries(Object.entries(epochTimes).map(([k, t]) => [k, Math.round(t - performance.timeOrigin)]));
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
  const items = Array.from(typeof Blob !== 'undefined' && input instanceof Blob ? [input] : input ?? []);
  ingest.begin(items.length);
  let attempted = items.length;
  try {
    await ready;
    const { docs, rejected } = await readDocuments(items, (p) => ingest.onReading(p));
    // Show refused files at once, not after the others are indexed.
    ui.showFileMessages(rejected.map((r) => ({ text: r.message })));
    for (const _ of rejected) ingest.event({ event: 'document' });
    const report = docs.length ? await retrieval('addDocuments', { docs }) : {};
    if (report.documents) attempted = rejected.length + report.documents.length;
    if (report.status) ui.showCounts(report.status);
    return rejected.length ? { ...report, rejected_files: rejected } : report;
  } finally {
    ingest.end(items.length, attempted);
    refreshDocuments();
  }
}

/** Asks the worker to stop adding documents after the batch it is embedding. */
async function cancelIngest() {
  await ready;
  return retrieval('cancelIngest');
}

/** Re-embeds the library with this app's model, for a provenance mismatch. */
async function reindex() {
  await ready;
  const out = await retrieval('reindex');
  if (out.status) {
    ui.showCounts(out.status);
    ui.showMismatch(out.status.mismatch);
  }
  refreshDocuments();
  return out;
}

async function query(text, options = {}) {
  await ready;
  return retrieval('query', { text: String(text ?? ''), options });
}

async function deleteDocument(docId) {
  await ready;
  const out = await retrieval('deleteDocument', { docId });
  if (out.status) ui.showCounts(out.status);
  if (out.deleted) {
    dropResultsOf(docId);
    refreshDocuments();
    if (lastSearch) search(lastSearch.text); // the deleted document's passages leave the results
  }
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
    refreshDocuments();
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
  ready, addDocuments, query, status, deleteDocument, documents, embed, importIndex, cancelIngest, reindex,
});
mountChat(document.getElementById('chat-root'), window.readingroom);

// --- UI wiring --------------------------------------------------------------------------------

/** A failed write because storage is full gets the storage-full message; others their own. */
function problemText(error) {
  return ui.storageFullMessage(error) ?? error?.message ?? String(error);
}

async function addFromUser(files) {
  if (!files?.length) return;
  ui.showActivity(`Adding ${ui.plural(files.length, 'file')}…`);
  try {
    const report = await addDocuments(Array.from(files));
    if (report.error) throw report.error;
    const messages = (report.rejected_files ?? []).map((r) => ({ text: r.message }));
    const outcomes = report.documents ?? [];
    let full = false;
    for (const o of outcomes) {
      if (o.status !== 'error') continue;
      if (o.error?.type === 'cancelled') {
        messages.push({ text: `Cancelled: ${o.name} was not added.`, kind: 'info' });
      } else if (ui.storageFullMessage(o.error) || (o.error?.type === 'storage' && (await ui.storageLooksFull()))) {
        full = true;
        messages.push({ text: `${o.name} was not added: storage is full.` });
      } else {
        messages.push({ text: o.error?.message ?? `${o.name} could not be added` });
      }
    }
    if (full) ui.showNotice(ui.storageFullMessage({ type: 'quota' }));
    ui.showFileMessages(messages);
    const count = (status) => outcomes.filter((o) => o.status === status).length;
    const parts = [];
    if (count('added')) parts.push(`added ${count('added')}`);
    if (count('replaced')) parts.push(`updated ${count('replaced')}`);
    if (count('unchanged')) parts.push(`${count('unchanged')} unchanged`);
    const skipped = files.length - outcomes.length - (report.rejected_files?.length ?? 0);
    if (skipped > 0) parts.push(`${skipped} not started`);
    ui.showActivity(parts.length ? `Documents: ${parts.join(', ')}.` : '');
  } catch (err) {
    ui.showActivity('');
    const full = ui.storageFullMessage(err) ?? (err?.type === 'storage' && (await ui.storageLooksFull())
      ? ui.storageFullMessage({ type: 'quota' }) : null);
    if (full) ui.showNotice(full);
    else ui.showFileMessages([{ text: err.message ?? String(err) }]);
  }
}

let documentsRefresh = null;
/** Re-reads documents() into the list and the filters (one read at a time, the latest wins). */
function refreshDocuments() {
  if (state.state !== 'ready') return Promise.resolve();
  const run = async () => {
    const docs = await documents();
    if (!Array.isArray(docs)) return;
    showDocuments(docs, removeDocument);
    showFilters(docs);
  };
  documentsRefresh = (documentsRefresh ?? Promise.resolve()).then(run, run).catch((err) => {
    ui.showNotice(`The document list could not be read: ${err.message ?? err}`);
  });
  return documentsRefresh;
}

async function removeDocument(doc) {
  try {
    const out = await deleteDocument(doc.id);
    if (out.error) throw out.error;
    ui.showActivity(`Deleted ${doc.name}.`);
  } catch (err) {
    ui.showNotice(problemText(err));
    refreshDocuments();
  }
}

const debugToggle = document.getElementById('debug-toggle');
let searches = 0; // the latest search's number: an older answer arriving late is not shown

async function search(text) {
  const options = {};
  const filters = currentFilters();
  if (Object.keys(filters).length) options.filters = filters;
  const summary = document.getElementById('results-summary');
  const results = document.getElementById('results');
  const mine = ++searches;
  summary.textContent = 'Searching…';
  results.setAttribute('aria-busy', 'true');
  try {
    const result = await query(text, options);
    if (mine !== searches) return; // a newer search replaced this one: its answer is on the way
    if (result.error) {
      ui.showNotice(result.error.message);
      summary.textContent = '';
      return;
    }
    ui.showNotice('');
    lastSearch = { text, result };
    showResults(result, (i) => openReader(result, i));
    if (debugToggle.checked) showDebug(result);
  } catch (err) {
    if (mine === searches) ui.showNotice(err.message ?? String(err));
  } finally {
    if (mine === searches) {
      results.dataset.query = text; // what the cards answer (tests wait on it)
      results.setAttribute('aria-busy', 'false');
    }
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
  // A file dropped beside the zone would make the browser navigate away to it.
  for (const name of ['dragover', 'drop']) window.addEventListener(name, (e) => e.preventDefault());

  document.getElementById('query-form').addEventListener('submit', (e) => {
    e.preventDefault();
    search(document.getElementById('query').value);
  });
  document.getElementById('filters').addEventListener('change', () => {
    showFilterSummary();
    if (lastSearch) search(lastSearch.text);
  });
  document.getElementById('reader-close').addEventListener('click', closeReader);
  debugToggle.addEventListener('change', () => {
    document.getElementById('debug').hidden = !debugToggle.checked;
    if (debugToggle.checked) showDebug(lastSearch?.result ?? null);
  });
  document.getElementById('reindex').addEventListener('click', async (e) => {
    const button = e.currentTarget;
    const message = document.getElementById('reindex-message');
    button.disabled = true;
    message.textContent = 'Re-indexing…';
    try {
      const out = await reindex();
      if (out.error) throw out.error;
      message.textContent = 'Re-indexed with this app\'s model.';
    } catch (err) {
      message.textContent = err?.type === 'bad_request'
        ? 'Re-indexing is not available in this version yet. Searching by words still works. To ' +
          'start a new library with this app\'s model, clear this site\'s data in the browser\'s ' +
          'settings, then add your files again.'
        : `Re-indexing failed: ${problemText(err)}`;
    } finally {
      button.disabled = false;
    }
  });
}

wire();
