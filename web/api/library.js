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
//   window.readingroom.documents(ids?, page?) -> Python's list of stored documents (by name), or of
//                                             those of the ids given, in their order; ids null and
//                                             page {after: name | null, limit: n}: the next n by name
//                                             after that name (the Sources pane reads a large library
//                                             so, a page at a time, and a question waits for one page)
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
//       (py_src/readingroom/store/sqlite_sql.py schema). It replaces the current library (all documents) with
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
//       crashEmbedHelper() the embedding worker's helper session crashes; a new one takes its place
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

import { chatApi } from '../chat/automation.js';
import {
  libraryOpen, libraryReady, publicStatus, refreshDocuments, retrieval, started, state,
} from './core.js';
import { embedding } from './embedder.js';
import { readDocuments, cancelReading } from './files.js';
import { downloadLibrary, exportLibrary, importIndex } from './index-file.js';
import { showPending, start } from './start.js';
import { ingestView as ingest, onIngestCancel, view } from './view.js';

export { onLibraryChange } from './core.js';

// The progress panel of every addDocuments call, from the page or from automation (`ingest`:
// its steps, as events): its Cancel cancels the ingestion.
onIngestCancel(() => cancelIngest().catch((err) => view.showNotice(err.message ?? String(err))));
const ready = started.all.promise;
start();

async function addDocuments(input) {
  const items = Array.from(typeof Blob !== 'undefined' && input instanceof Blob ? [input] : input ?? []);
  ingest.begin(items.length);
  let attempted = items.length;
  let answered = false;
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
    answered = !report.error;
    return rejected.length ? { ...report, rejected_files: rejected } : report;
  } finally {
    ingest.end(items.length, attempted);
    // Each document added or replaced has shown its row already (its 'document' event). The
    // whole list is read again only when the worker did not answer: at a million passages that
    // read (377,863 documents) took 23-37 s, and status() and the next query waited behind it.
    if (!answered) refreshDocuments();
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

async function documents(ids, page) {
  await libraryReady;
  const args = ids == null ? {} : { ids: Array.from(ids, Number) };
  if (ids == null && page) args.page = { after: page.after ?? null, limit: page.limit };
  const out = await retrieval('documents', args);
  if (!Array.isArray(out?.rows)) return out; // an error reply, as Python gave it
  // Python sends {columns, rows}: a list of 377,863 objects was 61 MB of JSON (and the time of
  // making them in Python); the objects are made here.
  const { columns, rows } = out;
  return rows.map((row) => {
    const doc = {};
    for (let i = 0; i < columns.length; i++) doc[columns[i]] = row[i];
    return doc;
  });
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
  /** Makes the answer helper (the embedding worker's second model session) crash, as an error
   * in its worker would; the embedding worker starts a new one. false: there is none now. */
  crashEmbedHelper: async () => {
    await ready;
    return embedding.call('crashHelper');
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

