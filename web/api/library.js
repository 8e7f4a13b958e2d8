// The library behind window.readingroom: starts the two workers, watches the embedder, keeps one
// tab at a time, and offers the automation API (app.js puts it on window.readingroom):
//
//   window.readingroom.ready               Promise<status>, resolves once Python and the model are up
//                                          (see below for a model that fails to load)
//   window.readingroom.libraryReady        Promise<status>, resolves once Python and the library are up,
//                                          often before the model: documents are listed and searching
//                                          by words works; status().searchMode is 'words' until the model
//                                          is up ('hybrid' then), and a search by meaning waits for it
//                                          (the header says "meaning search in a moment"). Every call
//                                          below but embed() waits only for this.
//   window.readingroom.addDocuments(input) input: [{name, text}] | FileList | File[] -> Python's report
//                                          (plus `rejected_files` for files refused before Python)
//   window.readingroom.query(text, opts)   -> the JSON Python's readingroom.worker.query returns
//   window.readingroom.ask(question, {history, ...options}) -> Python's Answer.to_dict() (readingroom.ask)
//   window.readingroom.checkAnswer(text, passages) -> Python's citation check of a generated answer
//   window.readingroom.summarise(docIds, {kind, length, fit_budget}) -> Python's Summarised.to_dict()
//   window.readingroom.chat                the chat transports (web/chat/automation.js): status(), budget(),
//                                          plan(messages), load(), generate(messages, {transport})
//   window.readingroom.status()            -> {documents, chunks, model, storage, offlineReady, state, ...}
//   window.readingroom.deleteDocument(id)  -> Python's reply ({deleted, status})
//   window.readingroom.documents()         -> Python's list of stored documents
//   window.readingroom.typeAhead(text, history?) -> embeds a question while it is typed: {source}
//   window.readingroom.cancelIngest()      -> stops the addDocuments in flight after its current
//                                             batch; the document being added is not stored
//   window.readingroom.reindex()           -> re-embeds every stored chunk with this app's model (after a
//                                             model mismatch); {reindexed: {documents, chunks}, status}
//   window.readingroom.neighbours(id, b, a) -> the chunk with up to b chunks before and a after it
//   window.readingroom.embed(texts)        -> [[384 numbers], ...] from the embedding worker (diagnostics)
//   window.readingroom.exportLibrary()     -> a File: the library's database, consistent (taken between
//                                             two writes), named reading-room-library-YYYY-MM-DD.sqlite
//   window.readingroom.downloadLibrary()   -> saves that file through the browser; {name, size}.
//                                             importIndex(file) (Open index file…) restores it.
//   window.readingroom.importIndex(source, {asBundle?}) -> status() of the imported index
//       With asBundle: VERSION the file is merged in as the bundled set instead (see openBundle): the
//       user's own documents stay, a previous bundle version's documents go.
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
//   window.readingroom.debug              diagnostics and fault injection:
//       killEmbedder()   terminates the embedding worker as a crash would (no event); the app notices
//                        (heartbeat), restarts it once by itself, and offers a Restart button after that;
//                        {atBackgroundBatch: n}: it ends itself when ingestion's n-th batch from now arrives
//       chooseEmbedBackend({fault}) -> status().embedder.webgpu once ingestion's backend is decided
//                        (WebGPU after its agreement check, or wasm); fault: {failAtBatch: n} | {skew: true}
//       memory()         -> {heapBytes, pythonObjects, sqliteHeapBytes} of the retrieval worker
//       exportDatabase() -> Uint8Array, the library's database file as stored
//
// status() also carries `embedder` (null while the model is not running), `embedderError`
// {type: 'embed_failed' | 'offline', message} when it could not load or stopped (searching by
// words still works), `embedderRestarts`, and Python's `unfinished` (documents whose adding
// started but never finished). `ready` resolves once Python and the library are up, and waits for
// the model too; if the model fails to load, `ready` still resolves (with `embedderError`) and the
// page offers to download the model again.
//
// Python's replies come back unchanged, {"error": {type, message}} ones included; a promise only
// rejects when something failed outside Python's own error handling.

// In the built site the workers' modules (web/workers/) sit at the root, one folder up.
import { RemoteError, rpcClient } from '../rpc.js';
import { chatApi, chatStatus } from '../chat/automation.js';
import {
  bindEmbedder, embedderFailedToLoad, embedderReady, embedding, spawnEmbedder, stopHeartbeat,
} from './embedder.js';
import { cancelReading, readDocuments } from './files.js';
import { setupOffline } from './offline.js';
import { ingestView as ingest, onIngestCancel, view } from './view.js';

const state = {
  // starting | locked | words (library open, searching by words works, the model still loading)
  // | ready | error | elsewhere
  state: 'starting',
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
// The progress panel of every addDocuments call, from the page or from automation (`ingest`:
// its steps, as events): its Cancel cancels the ingestion.
onIngestCancel(() => cancelIngest().catch((err) => view.showNotice(err.message ?? String(err))));

// Whoever shows the library (the Sources pane, the search view) hears when its documents change:
// fn({deleted?: docId}), which may return a promise that settles once the change is shown.
const changeListeners = new Set();
export function onLibraryChange(fn) {
  changeListeners.add(fn);
}
/** The library is open: its documents can be listed and searched (by words at least). */
function libraryOpen() {
  return state.state === 'words' || state.state === 'ready';
}

// What searching can do now, a typed state for status().searchMode (searchNote says it in words;
// Python's own status().search is about its in-memory search legs, a different thing):
// 'starting' (nothing open yet), 'words' (the model is loading: searching by words works now; a
// search by meaning waits for the model), 'hybrid', 'words_only' (the model could not load).
const SEARCH_NOTES = {
  words: 'Meaning search in a moment: the model is still loading. Searching by words works now; a search by meaning waits for the model.',
  words_only: 'Searching by words only: the embedding model is not available.',
};
function searchState() {
  if (!libraryOpen()) return 'starting';
  if (state.embedder) return 'hybrid';
  return state.embedderError ? 'words_only' : 'words';
}

/** Tells the listeners; settles when each has shown the change (so "ready" is said after the list). */
function refreshDocuments(change = {}) {
  if (!libraryOpen()) return Promise.resolve();
  return Promise.all([...changeListeners].map((fn) => fn(change))).then(() => undefined, () => undefined);
}

function onProgress(event) {
  if (event?.type !== 'progress') return;
  if (event.stage === 'python') view.setStep('python', 'active', event.status ?? '');
  else if (event.stage === 'model') {
    view.setStep('model', 'active', event.percent !== undefined ? `${event.status} ${event.percent}%` : event.status ?? '');
  } else if (event.stage === 'locked') {
    state.state = 'locked';
    view.showAppState('locked');
    view.showBanner('tab-lock', 'Another tab has Reading Room open, and only one tab at a time can use the ' +
      'library. Use it here instead (the other tab lets go of it), or close the other tab and this one ' +
      'carries on by itself.', [{ label: 'Use here', onClick: askToTakeOver }]);
  } else if (event.stage === 'database') {
    view.showStorage(event.storage, event.storageNote);
  } else if (event.stage === 'import') {
    view.showImportProgress(event, importMessage(event));
  } else if (event.stage === 'meaning') {
    showPending(event.pending);
  } else if (event.event === 'chunks' || event.event === 'document') {
    ingest.event(event);
    // Words first: a document is listed (and found by its words) once stored, before its vectors.
    if (event.event === 'document' && (event.status === 'added' || event.status === 'replaced')) refreshDocuments();
  }
}

/** Words first, meaning after: which documents are searched by meaning only in part, and why. */
function showPending(pending) {
  view.showBanner('meaning-pending', pending?.message ?? '');
}

// --- one tab at a time ---------------------------------------------------------------------------
//
// The database lives behind a Web Lock (sqlite-host.js). A tab waiting on it can ask the tab
// holding it to let go: that tab closes its database, ends its workers (which releases the lock)
// and says so, with a button to take the library back.

const tabs = typeof BroadcastChannel === 'function' ? new BroadcastChannel('readingroom-tabs') : null;

function askToTakeOver() {
  if (!tabs) return;
  view.showBanner('tab-lock', 'Asking the other tab to let go of the library…');
  tabs.postMessage({ type: 'take-over' });
}

tabs?.addEventListener('message', (event) => {
  if (event.data?.type === 'take-over' && !['locked', 'elsewhere'].includes(state.state)) releaseToOtherTab();
});

async function releaseToOtherTab() {
  state.state = 'elsewhere';
  stopHeartbeat();
  const gone = new RemoteError({ type: 'elsewhere', message: 'Reading Room is open in another tab.' });
  if (retrieval) {
    // Python never holds a transaction open across an await, so closing now leaves nothing half-written.
    await retrieval('close').catch(() => {});
    state.retrievalWorker.terminate(); // releases the OPFS handles and the Web Lock
    retrieval.failAll(gone);
  }
  embedding.worker?.terminate();
  embedding.call?.failAll(gone);
  view.setPhase('elsewhere');
  showState();
  view.showNotice('');
  view.showBanner('embedder-problem', '');
  view.showBanner('tab-lock', 'Reading Room is open in another tab. Only one tab at a time can use your library.',
    [{ label: 'Use it here', onClick: () => location.reload() }]);
}

/** Header state: warming up, ready, ready offline, locked, error. */
function showState() {
  if (state.state === 'ready') view.showAppState(state.offlineReady ? 'offline' : 'ready');
  else view.showAppState(state.state);
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
let resolveLibrary;
let rejectLibrary;
function fail(error) {
  state.state = 'error';
  state.error = { type: error.type ?? 'error', message: error.message ?? String(error) };
  view.setPhase('error');
  showState();
  view.showNotice(state.error.message);
  rejectReady?.(new RemoteError(state.error));
  rejectLibrary?.(new RemoteError(state.error));
}

/** Re-throws a start-up failure with a sentence saying what failed and what to do. */
function explain(step, what) {
  return (err) => {
    view.setStep(step, 'error', '');
    throw new RemoteError({
      type: err?.type ?? 'error',
      message: `${what} (${err?.message ?? err}). Reload the page to try again.`,
    });
  };
}

let retrieval = null;
let manifest = null;
bindEmbedder({ state, retrieval: (...args) => retrieval(...args), manifest: () => manifest, onProgress });

/**
 * Python and the library are up (the model may still be loading): the documents are drawn and
 * searching by words works from here on; `libraryReady` resolves.
 */
function libraryUp(status) {
  state.storage = status.storage;
  state.storageNote = status.storageNote ?? '';
  state.timings.retrievalWorker = pageTimes(status.workerTimings);
  mark('library');
  if (state.state === 'starting' || state.state === 'locked') state.state = 'words';
  view.setPhase('ready');
  showState();
  view.showNotice('');
  view.showBanner('tab-lock', '');
  view.showStorage(state.storage, state.storageNote);
  view.showCounts(status);
  view.showMismatch(status.mismatch);
  showUnfinished(status.unfinished);
  showPending(status.pending);
  refreshDocuments();
  openBundle(manifest.bundle, status); // not awaited: the app is usable while it opens
  resolveLibrary(publicStatus(status));
}

async function boot() {
  // Workers first: each starts loading its runtime as soon as its script runs, while the page
  // fetches the manifest.
  const first = spawnEmbedder();
  const retrievalWorker = new Worker('retrieval-worker.js', { type: 'module', name: 'readingroom-retrieval' });
  retrievalWorker.addEventListener('error', workerFailed('retrieval worker'));
  retrieval = rpcClient(retrievalWorker, onProgress);
  state.retrievalWorker = retrievalWorker;

  manifest = await (await fetch('build-manifest.json')).json();
  state.version = manifest.version;
  setupOffline(manifest.version, (change) => {
    if ('offlineReady' in change) state.offlineReady = change.offlineReady;
    view.showOffline(change);
    showState();
  });
  const storage = new URLSearchParams(location.search).get('storage') === 'memory' ? 'memory' : 'opfs';
  const { dim, max_tokens, id } = manifest.model;
  state.dim = dim;
  // The retrieval worker asks the embedder for vectors directly, over its own channel.
  const [, status] = await Promise.all([
    first.started.then((info) => {
      mark('model');
      if (first.generation === embedding.generation) embedderReady(info, first.generation);
    }, (err) => {
      // Searching by words works without the model: the banner offers to download it again.
      if (first.generation === embedding.generation) embedderFailedToLoad(err);
    }),
    retrieval(
      'start',
      { embedPort: first.port, wheel: manifest.wheel, model: { id, dim, max_tokens }, storage },
      [first.port],
    ).then((s) => {
      mark('python');
      view.setStep('python', 'done', '');
      libraryUp(s);
      return s;
    }, explain('python', 'Python could not start')),
  ]);
  if (state.state === 'words') state.state = 'ready';
  mark('ready');
  view.setStep('ready', 'done', `${(state.timings.ready / 1000).toFixed(1)} s`);
  showState();
  if (state.storage === 'opfs') {
    // Ask the browser not to evict the library under storage pressure (it may say no).
    state.persisted = (await navigator.storage.persisted?.().catch(() => false))
      || ((await navigator.storage.persist?.().catch(() => false)) ?? false);
  }
  view.showPersistence(state.storage, state.persisted);
  return publicStatus(status);
}

/** Documents whose adding started but never finished (the tab closed mid-ingest). */
function showUnfinished(names) {
  if (!names?.length) {
    view.showBanner('unfinished', '');
    return;
  }
  view.showBanner('unfinished', `These files did not finish indexing: ${names.join(', ')} — add them again.`, [{
    label: 'Dismiss',
    onClick: async () => {
      try {
        const out = await retrieval('clearUnfinished');
        if (out?.error) throw out.error;
        view.showBanner('unfinished', '');
      } catch (err) {
        view.showNotice(`The list could not be cleared: ${err.message ?? err}`);
      }
    },
  }]);
}

/**
 * Open the index bundled with the site (build.py --index, or the demo corpus) as the library's
 * bundled set, once per bundle version: the library records the version it holds (Python's
 * bundle.py), so a person who deletes bundled documents keeps them deleted, and a site with a
 * new bundle replaces the old bundled documents while the person's own stay.
 */
async function openBundle(bundle, status) {
  if (!bundle || status.bundle_version === bundle.sha256) return;
  view.showActivity(`Opening the bundled library (${(bundle.size / 1e6).toFixed(1)} MB)…`);
  try {
    const out = await mergeAsBundle({ url: new URL(bundle.path, location.href).href }, bundle.sha256)
      .finally(() => view.showImportProgress(null));
    if (out.error) throw out.error;
    view.showCounts(out);
    view.showMismatch(out.mismatch);
    await refreshDocuments();
    view.showActivity(`Opened the bundled library: ${out.documents} documents, ready to ask.`);
  } catch (err) {
    view.showActivity('');
    view.showNotice(`The bundled library could not be opened: ${err.message ?? err}`);
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
    crossOriginIsolated: self.crossOriginIsolated === true,
    embedThreads: state.embedder ? state.embedder.threads * (state.embedder.workers ?? 1) : null,
    ...(state.embedderError ? { embedderError: state.embedderError } : {}),
    embedderRestarts: embedding.restarts,
    storageNote: state.storageNote,
    searchMode: searchState(),
    searchNote: SEARCH_NOTES[searchState()] ?? '',
    timings: state.timings,
    persisted: state.persisted ?? false,
    chat: chatStatus(),
    ...(state.error ? { error: state.error } : {}),
  };
}

// `libraryReady`: Python and the library are up (documents listed, searching by words works);
// `ready`: the model is up too (or failed to load: then `embedderError` says why).
const libraryReady = new Promise((resolve, reject) => {
  resolveLibrary = resolve;
  rejectLibrary = reject;
});
const ready = new Promise((resolve, reject) => {
  rejectReady = reject;
  boot().then(resolve, fail);
});
ready.catch(() => {}); // shown on the page; automation sees the rejection through `ready`
libraryReady.catch(() => {});

async function addDocuments(input) {
  const items = Array.from(typeof Blob !== 'undefined' && input instanceof Blob ? [input] : input ?? []);
  ingest.begin(items.length);
  let attempted = items.length;
  try {
    await libraryReady;
    const { docs, rejected } = await readDocuments(items, (p) => ingest.onReading(p));
    // Show refused files at once, not after the others are indexed.
    view.showFileMessages(rejected.map((r) => ({ text: r.message })));
    for (const _ of rejected) ingest.event({ event: 'document' });
    const report = docs.length ? await retrieval('addDocuments', { docs }) : {};
    if (report.documents) attempted = rejected.length + report.documents.length;
    if (report.status) {
      view.showCounts(report.status);
      showPending(report.status.pending);
    }
    return rejected.length ? { ...report, rejected_files: rejected } : report;
  } finally {
    ingest.end(items.length, attempted);
    refreshDocuments();
  }
}

/** Asks the worker to stop adding documents after the batch it is embedding. */
async function cancelIngest() {
  cancelReading(); // OCR in the page stops before its next page
  await libraryReady;
  return retrieval('cancelIngest');
}

/** Re-embeds the library with this app's model, for a provenance mismatch. */
async function reindex() {
  await libraryReady;
  const out = await retrieval('reindex');
  if (out.status) {
    view.showCounts(out.status);
    view.showMismatch(out.status.mismatch);
  }
  refreshDocuments();
  return out;
}

async function query(text, options = {}) {
  await libraryReady;
  return retrieval('query', { text: String(text ?? ''), options });
}

/**
 * A question still being typed (after `history`'s turns): Python embeds what it will search for
 * now, so the search asked on Enter finds the vector ready (its debug view says `typed_ahead`).
 * Nothing is asked before the library and the model are up. -> {source, text} | {source: null}
 */
async function typeAhead(text, history = []) {
  if (!libraryOpen() || !state.embedder) return { source: null };
  return retrieval('typeAhead', { text: String(text ?? ''), history });
}

/** A question after earlier turns (`history`: questions or {question, answer, standalone_query}). */
async function ask(question, { history = [], ...options } = {}) {
  await libraryReady;
  return retrieval('ask', { question: String(question ?? ''), history, options });
}

/** Which sentences of a generated answer its cited passages ([{n, text}]) support. */
async function checkAnswer(text, passages = []) {
  await libraryReady;
  return retrieval('checkAnswer', { text: String(text ?? ''), passages });
}

/** Documents' summaries as one outline ({kind: 'compare'} for two side by side): Python's
 * Summarised.to_dict(), shaped like ask's answer plus `kind` and `summary`. */
async function summarise(docIds, options = {}) {
  await libraryReady;
  const ids = Array.isArray(docIds) ? docIds.map(Number) : [Number(docIds)];
  return retrieval('summarise', { docIds: ids, options });
}

async function deleteDocument(docId) {
  await libraryReady;
  const out = await retrieval('deleteDocument', { docId });
  if (out.status) view.showCounts(out.status);
  if (out.deleted) refreshDocuments({ deleted: docId });
  return out;
}

async function documents() {
  await libraryReady;
  return retrieval('documents');
}

async function embed(texts) {
  await ready;
  const flat = await embedding.call('embed', { texts: Array.from(texts) });
  const dim = state.dim;
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

/** The worker's mergeBundle reply as importIndex's: the new status, or {error}. */
async function mergeAsBundle(fields, version) {
  const reply = await retrieval('mergeBundle', { ...fields, version: String(version) });
  return reply.error ? reply : reply.status;
}

async function importIndex(source, { asBundle } = {}) {
  await libraryReady;
  const fields = importFields(source);
  view.showActivity('Importing index…');
  view.showImportProgress({ phase: 'reading', bytes: 0, total: null }, 'Importing index…');
  try {
    const out = await (asBundle === undefined ? retrieval('importIndex', fields) : mergeAsBundle(fields, asBundle))
      .finally(() => view.showImportProgress(null));
    if (out.error) {
      view.showActivity('');
      view.showNotice(out.error.message);
      return publicStatus(out);
    }
    view.showCounts(out);
    view.showMismatch(out.mismatch);
    await refreshDocuments();
    view.showActivity(`Imported an index of ${out.documents} document${out.documents === 1 ? '' : 's'}.`);
    return publicStatus(out);
  } catch (err) {
    view.showActivity('');
    view.showNotice(`The index could not be imported: ${err.message}`);
    throw err;
  }
}

async function status() {
  if (!libraryOpen()) return publicStatus({ storage: state.storage });
  return publicStatus(await retrieval('status'));
}

// Diagnostics and fault injection, for tests and for people chasing a problem.
const debug = Object.freeze({
  /** Ends the embedding worker the way a crash would (no event): the app must notice by itself. */
  killEmbedder: async ({ atBackgroundBatch } = {}) => {
    if (atBackgroundBatch) return embedding.call('dieAtBackgroundBatch', { n: atBackgroundBatch });
    embedding.worker?.terminate();
    return true;
  },
  /**
   * Decides now where ingestion embeds (WebGPU or wasm; its first batch would) and resolves with
   * the outcome, status().embedder.webgpu. `fault` (tests): {failAtBatch: n} loses the GPU device
   * at WebGPU's n-th ingestion batch, {skew: true} makes WebGPU's vectors wrong.
   */
  chooseEmbedBackend: async ({ fault } = {}) => {
    await ready;
    return embedding.call('chooseBackend', { fault });
  },
  /** The retrieval worker's memory: {heapBytes (Pyodide's wasm heap), pythonObjects (live, after gc), sqliteHeapBytes}. */
  memory: async () => {
    await ready;
    return retrieval('memory');
  },
  /** The library's database file, as bytes (a Uint8Array). */
  exportDatabase: async () => {
    await ready;
    return retrieval('exportDatabase');
  },
});

/** The chunks just before and after a span in its document, for the reader. */
export async function contextOf(span) {
  const ids = span.chunk_ids ?? [];
  if (!ids.length) return [];
  const [before, after] = await Promise.all([neighbours(ids[0], 1, 0), neighbours(ids[ids.length - 1], 0, 1)]);
  return [...(before.chunks ?? []), ...(after.chunks ?? [])];
}

/** A passage's chunk with its neighbours in the document: {chunk_id, chunks: [...]} in order. */
async function neighbours(chunkId, before = 1, after = 1) {
  await libraryReady;
  return retrieval('neighbours', { chunkId, before, after });
}

/** The whole library as one SQLite file named with today's date (a File), consistent: taken between two writes. */
async function exportLibrary() {
  await libraryReady;
  const bytes = await retrieval('exportDatabase');
  if (bytes?.error) throw new RemoteError(bytes.error);
  const day = new Date().toISOString().slice(0, 10);
  return new File([bytes], `reading-room-library-${day}.sqlite`, { type: 'application/vnd.sqlite3' });
}

/** Saves exportLibrary()'s file through the browser's download; returns {name, size}. */
async function downloadLibrary() {
  const file = await exportLibrary();
  const url = URL.createObjectURL(file);
  const link = Object.assign(document.createElement('a'), { href: url, download: file.name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { name: file.name, size: file.size };
}

export const readingroom = Object.freeze({
  ready, libraryReady, addDocuments, query, ask, typeAhead, checkAnswer, summarise, status, deleteDocument, documents, embed, importIndex,
  cancelIngest, reindex, neighbours, exportLibrary, downloadLibrary, debug, chat: chatApi(),
});

