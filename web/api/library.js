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
import { chatApi } from '../chat/automation.js';
import {
  libraryOpen, libraryReady, mark, pageTimes, publicStatus, refreshDocuments, retrieval, showState, started,
  state, worker,
} from './core.js';
import {
  bindEmbedder, embedderFailedToLoad, embedderReady, embedding, spawnEmbedder, startAnswerHelper,
} from './embedder.js';
import { cancelReading, readDocuments } from './files.js';
import {
  downloadLibrary, exportLibrary, importIndex, importMessage, openBundle,
} from './index-file.js';
import { setupOffline } from './offline.js';
import { askToTakeOver } from './tabs.js';
import { ingestView as ingest, onIngestCancel, view } from './view.js';

export { onLibraryChange } from './core.js';

// The progress panel of every addDocuments call, from the page or from automation (`ingest`:
// its steps, as events): its Cancel cancels the ingestion.
onIngestCancel(() => cancelIngest().catch((err) => view.showNotice(err.message ?? String(err))));

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

function workerFailed(name) {
  return (event) => {
    event.preventDefault?.();
    fail({ type: 'worker', message: `The ${name} could not start (${event.message || 'script error'}). Reload the page to try again.` });
  };
}

function fail(error) {
  state.state = 'error';
  state.error = { type: error.type ?? 'error', message: error.message ?? String(error) };
  view.setPhase('error');
  showState();
  view.showNotice(state.error.message);
  started.all.reject(new RemoteError(state.error));
  started.library.reject(new RemoteError(state.error));
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

let manifest = null;
bindEmbedder({ state, retrieval, manifest: () => manifest, onProgress });

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
  started.library.resolve(publicStatus(status));
}

async function boot() {
  // Workers first: each starts loading its runtime as soon as its script runs, while the page
  // fetches the manifest.
  const first = spawnEmbedder();
  const retrievalWorker = new Worker('retrieval-worker.js', { type: 'module', name: 'readingroom-retrieval' });
  retrievalWorker.addEventListener('error', workerFailed('retrieval worker'));
  worker.rpc = rpcClient(retrievalWorker, onProgress);
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
  startAnswerHelper();
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



const ready = started.all.promise;
boot().then(started.all.resolve, fail);

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


export const readingroom = Object.freeze({
  ready, libraryReady, addDocuments, query, ask, typeAhead, checkAnswer, summarise, status, deleteDocument, documents, embed, importIndex,
  cancelIngest, reindex, neighbours, exportLibrary, downloadLibrary, debug, chat: chatApi(),
});

