// The retrieval worker: Pyodide running readingroom, over SQLite in OPFS.
//
// All retrieval logic is Python (readingroom.worker). This file loads the runtimes, hands Python
// the `readingroom_host` module (SQL, embeddings, progress) and relays the page's requests.

import { Transfer, errorInfo, rpcServe } from './rpc.js';
import { connectEmbedder, embedCall, embedderUnavailable, reconnectEmbedder } from './embed-link.js';
import { ingesting, reading, readingFirst, serialized } from './lanes.js';
import { pythonErrorInfo } from './python-errors.js';
import { attachBytes, detachSchema, readBytes } from './sqlite-bytes.js';
import { sqlHost } from './sqlite-copy.js';
import { importDatabase, openDatabase } from './sqlite-host.js';
import { loadSqlite } from './sqlite-load.js';
import { installPackages, loadRuntime } from './python-runtime.js';

let pyodide = null;
let api = null; // the readingroom.worker coroutines, once started
let store = null; // the database (sqlite-host.js openDatabase); store.db changes on import
let openConfig = null; // what Python's open() was given, to open again after an import
const timings = {}; // per start-up phase, epoch ms (the page converts them to its own clock)
const mark = (name) => {
  timings[name] = performance.timeOrigin + performance.now();
};

function progress(stage, fields = {}) {
  self.postMessage({ ...fields, type: 'progress', stage });
}

// Start at once, before the page's 'start' arrives; start() picks the results up.
const runtime = loadRuntime({ mark, progress });
const sqlite = loadSqlite();
runtime.catch(() => {}); // reported through 'start'
sqlite.catch(() => {});

/** Pyodide with readingroom installed: {py, loadNumpy() -> Promise (numpy's libraries)}. */
async function loadPython(wheel) {
  const { py, downloads } = await runtime;
  progress('python', { status: 'installing readingroom' });
  const { loadNumpy } = await installPackages(py, { ...downloads, wheelPath: downloads.wheelPath ?? wheel }, { mark, progress });
  return { py, loadNumpy };
}

/** What the page adds to Python's status about where the library lives. */
function storageInfo() {
  // memoryCopy: reads are served from an in-memory copy of the OPFS library (sqlite-copy.js).
  return { storageNote: store?.storageNote ?? '', memoryCopy: Boolean(store?.copy), memoryCopyNote: store?.copyNote ?? '' };
}

function hostModule(sql) {
  return {
    exec: (text) => sql.exec(text),
    query: (text, params) => sql.query(text, params),
    embed: (texts) => embedCall('embed', texts),
    embedBackground: (texts) => embedCall('embedBackground', texts),
    countTokens: (texts) => embedCall('countTokens', texts),
    // Python's own events ({event: 'document' | 'chunks', ...}) go to the page as stage 'work'.
    progress: (json) => {
      const event = JSON.parse(String(json));
      progress(event.stage ?? 'work', event);
    },
  };
}

/**
 * Call one of readingroom.worker's JSON-in, JSON-out coroutines and return its parsed reply as is,
 * including {"error": {type, message}} replies (the page shows those; automation sees Python's
 * JSON unchanged). Only an exception escaping Python becomes a rejection.
 */
async function callPython(name, ...args) {
  if (!api) throw Object.assign(new Error('Reading Room is still starting'), { type: 'not_ready' });
  try {
    return JSON.parse(await api[name](...args));
  } catch (err) {
    throw pythonErrorInfo(pyodide, err);
  }
}

async function start({ embedPort: port, wheel, model, storage: wanted }) {
  if (api) return callPython('status');
  mark('start');
  connectEmbedder(port);
  const opening = openDatabase(sqlite, {
    preferMemory: wanted === 'memory',
    onBlocked: () => progress('locked', { message: 'another tab has Reading Room open' }),
    onStep: (step) => mark(`db_${step}`),
  }).then((db) => {
    mark('database');
    return db;
  });
  opening.catch(() => {}); // awaited below, after the import
  const python = await loadPython(wheel);
  pyodide = python.py;
  // numpy is imported where it is first used, after the page is ready (see the warm-up below).
  const lazy = pyodide.pyimport('readingroom._lazy_numpy');
  lazy.install();
  lazy.destroy();
  // Python imports readingroom while the database opens: the database's waits on OPFS (the lock,
  // the file pool) overlap the import instead of coming before it. Nothing calls SQL before open.
  let sql = null;
  pyodide.registerJsModule('readingroom_host', hostModule({
    exec: (text) => sql.exec(text),
    query: (text, params) => sql.query(text, params),
  }));
  // Attribute proxies are borrowed from the module proxy: keep the module alive and look each
  // function up once, instead of minting a new proxy per call.
  const mod = pyodide.pyimport('readingroom.worker');
  mark('import');
  store = await opening;
  sql = sqlHost(store);
  progress('database', { storage: store.storage, storageNote: store.storageNote });
  api = {};
  for (const name of ['open', 'add_documents', 'query', 'status', 'documents', 'delete_document',
    'cancel_ingest', 'cancel_queries_before', 'clear_unfinished', 'reindex', 'neighbours', 'warm',
    'merge_bundle', 'ask', 'check_answer', 'set_merging', 'summarise', 'embed_pending', 'type_ahead']) api[name] = mod[name];
  const config = { storage: store.storage, model };
  openConfig = JSON.stringify(config);
  try {
    // Opened without the warm-up: it would import numpy before the page is ready.
    const status = await callPython('open', JSON.stringify({ ...config, warm: false }));
    if (status.error) throw status.error; // without a library there is nothing to serve
    mark('open');
    // Load the vectors into Python's matrix now, queued behind start, while the person types:
    // otherwise the first search pays for it. Nothing else runs before numpy's libraries are in
    // (the warm-up is the first thing to import numpy).
    serialized(async () => {
      await python.loadNumpy();
      const warm = await callPython('warm');
      mark('numpy');
      progress('numpy', { at: timings.numpy }); // the page keeps it with the start-up's timings
      return warm;
    })().catch(() => {});
    if (status.pending) resumePending();
    return { ...status, ...storageInfo(), workerTimings: timings };
  } catch (err) {
    api = null;
    throw err;
  }
}

/** {url} (same origin), {blob} or {bytes: Uint8Array} -> {stream, total} of the file's bytes. */
async function importSource({ url, blob, bytes }) {
  if (url !== undefined) {
    const target = new URL(url, self.location.href);
    if (target.origin !== self.location.origin) {
      throw Object.assign(new Error(`importIndex only reads from this app's own origin, not ${target.origin}`), { type: 'bad_request' });
    }
    const response = await fetch(target);
    if (!response.ok || !response.body) {
      throw Object.assign(new Error(`${target.pathname}: HTTP ${response.status}`), { type: 'not_found' });
    }
    const length = response.headers.get('Content-Length');
    // A compressed response announces its compressed size; the stream gives the decoded bytes.
    const encoded = (response.headers.get('Content-Encoding') ?? 'identity') !== 'identity';
    return { stream: response.body, total: length && !encoded ? Number(length) : null };
  }
  if (blob instanceof Blob) return { stream: blob.stream(), total: blob.size };
  if (bytes instanceof Uint8Array) {
    let at = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (at >= bytes.byteLength) controller.close();
        else controller.enqueue(bytes.subarray(at, (at += 1 << 22)));
      },
    });
    return { stream, total: bytes.byteLength };
  }
  throw Object.assign(new Error('importIndex takes a URL, a File/Blob or bytes'), { type: 'bad_request' });
}

/**
 * Replace the database with an index file, then let Python open it again: its reply (the new
 * status, with `mismatch` when the index was made by another model) is returned as is.
 */
async function importIndex(msg) {
  if (!api) throw Object.assign(new Error('Reading Room is still starting'), { type: 'not_ready' });
  const source = await importSource(msg);
  await importDatabase(store, source, (p) => progress('import', p));
  progress('import', { phase: 'opening' });
  const status = await callPython('open', openConfig);
  if (status.pending) resumePending();
  return status.error ? status : { ...status, ...storageInfo() };
}

/**
 * Words first, meaning after: chunks an earlier session stored by their words only (a reload
 * mid-import, an embedder that died) are embedded now, one batch per op in the ingestion lane,
 * so a search runs beside it and a delete or an import gets its turn between two batches. Each
 * step tells the page what meaning search covers (`stage: 'meaning'`). It stops when nothing is
 * pending, on a cancel, or when the embedder fails (the next reload tries again).
 */
let resuming = false;
async function resumePending() {
  if (resuming) return;
  resuming = true;
  try {
    for (;;) {
      const out = await ingesting(() => callPython('embed_pending', 1))().catch((err) => ({ error: errorInfo(err) }));
      progress('meaning', { pending: out.pending ?? null, error: out.error ?? null });
      if (out.error || !out.pending || out.cancelled || out.failed || !out.embedded) return;
    }
  } finally {
    resuming = false;
  }
}

/**
 * Make an index file the library's bundled set (Python's merge_bundle): the documents the user
 * added stay, the previous bundle version's go. The file is attached beside the library only
 * for the copy; on any failure the library is as it was.
 */
async function mergeBundle(msg) {
  if (!api) throw Object.assign(new Error('Reading Room is still starting'), { type: 'not_ready' });
  api.set_merging(true); // status says "merging" until the bundled set is in, or failed
  try {
    const source = await importSource(msg);
    const bytes = await readBytes(source, (n) => progress('import', { phase: 'reading', bytes: n, total: source.total }));
    progress('import', { phase: 'checking', total: bytes.byteLength });
    attachBytes(store, 'bundle', bytes);
    try {
      progress('import', { phase: 'opening' });
      const out = await callPython('merge_bundle', 'bundle', String(msg.version));
      return out.error ? out : { ...out, status: { ...out.status, ...storageInfo() } };
    } finally {
      detachSchema(store, 'bundle');
    }
  } finally {
    api.set_merging(false);
  }
}

let lastQueryId = 0;

/**
 * Closes the database for good (another tab takes the library over): the page terminates this
 * worker next, which releases the OPFS handles and the Web Lock. Python never keeps a transaction
 * open across an await, so whatever op is waiting now has nothing half-written.
 */
function closeDatabase() {
  const db = store;
  api = null;
  store = null;
  db?.copy?.close();
  db?.db?.close();
  return true;
}

/**
 * Diagnostics: the size of Pyodide's wasm heap, and Python's live objects after a collection
 * (sys.getallocatedblocks() is 0 in Pyodide, whose CPython is built without pymalloc).
 */
function memory() {
  if (!pyodide) return { heapBytes: 0, pythonObjects: 0 };
  return {
    heapBytes: pyodide._module.HEAP8.length,
    pythonObjects: pyodide.runPython('import gc; gc.collect(); len(gc.get_objects())'),
    sqliteHeapBytes: store?.sqlite3?.wasm?.heap8u?.().length ?? 0,
  };
}

rpcServe(self, {
  start: serialized(start),
  addDocuments: ingesting(({ docs }) => callPython('add_documents', JSON.stringify(docs))),
  query: ({ text, options }) => {
    // A newer query makes the running one stop early (Python checks between stages); this call is
    // synchronous, so it lands while that query waits on an embedding.
    const queryId = ++lastQueryId;
    if (api) api.cancel_queries_before(queryId);
    return readingFirst(() => callPython('query', String(text), JSON.stringify(options ?? {}), queryId))();
  },
  // A question shares query's ids: a newer question or query stops it early.
  ask: ({ question, history, options }) => {
    const queryId = ++lastQueryId;
    if (api) api.cancel_queries_before(queryId);
    return readingFirst(() => callPython('ask', String(question), JSON.stringify(history ?? []),
      JSON.stringify(options ?? {}), queryId))();
  },
  // Not queued: a question being typed is embedded at once (it touches no table), whatever runs.
  typeAhead: ({ text, history }) => (api
    ? callPython('type_ahead', String(text), JSON.stringify(history ?? []))
    : { source: null }),
  checkAnswer: reading(({ text, passages }) => callPython('check_answer', String(text), JSON.stringify(passages ?? []))),
  summarise: reading(({ docIds, options }) => callPython('summarise', JSON.stringify(docIds ?? []), JSON.stringify(options ?? {}))),
  documents: reading(({ ids, page } = {}) => callPython('documents', JSON.stringify(ids ?? null), JSON.stringify(page ?? null))),
  importIndex: serialized(importIndex),
  deleteDocument: serialized(({ docId }) => callPython('delete_document', Number(docId))),
  cancelIngest: () => {
    api?.cancel_ingest();
    return true;
  },
  clearUnfinished: serialized(() => callPython('clear_unfinished')),
  reindex: ingesting(() => callPython('reindex')),
  neighbours: reading(({ chunkId, before = 1, after = 1 }) => callPython('neighbours', Number(chunkId), Number(before), Number(after))),
  mergeBundle: serialized(mergeBundle),
  // Not queued: they must land while an op waits (on an embedding, say).
  reconnectEmbedder,
  embedderUnavailable,
  close: closeDatabase,
  // Diagnostics: the database file's bytes as stored (OPFS), or a serialised copy (memory).
  exportDatabase: serialized(() => {
    if (!store) throw Object.assign(new Error('no database is open'), { type: 'not_ready' });
    const bytes = store.pool ? store.pool.exportFile(store.name) : store.sqlite3.capi.sqlite3_js_db_export(store.db);
    return new Transfer(bytes, [bytes.buffer]);
  }),
  memory,
  // Not queued: a status read is safe mid-ingest and keeps the page responsive.
  status: async () => ({ ...(await callPython('status')), ...storageInfo() }),
});
