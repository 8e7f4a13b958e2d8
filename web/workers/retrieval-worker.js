// The retrieval worker: Pyodide running readingroom, over SQLite in OPFS.
//
// All retrieval logic is Python (readingroom.worker). This file loads the runtimes, hands Python
// the `readingroom_host` module (SQL, embeddings, progress) and relays the page's requests.

import { loadPyodide } from './vendor/pyodide/pyodide.mjs';
import { Transfer, errorInfo, rpcClient, rpcServe } from './rpc.js';
import { attachBytes, detachSchema, importDatabase, loadSqlite, openDatabase, readBytes, sqlHost } from './sqlite-host.js';

const here = (path) => new URL(path, import.meta.url).href;

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

// Everything Python needs is fetched at once when the worker starts, in parallel: the build's
// manifest names the snapshot, our wheel and the compiled bytecode; Pyodide's lock names numpy's.
const manifestReady = fetch(here('./build-manifest.json')).then((response) => response.json());
manifestReady.catch(() => {}); // loadRuntime falls back

/** A file of the build as bytes; `integrity` (SRI) makes a damaged or swapped file fail here. */
async function fetchBytes(path, integrity) {
  const response = await fetch(here(path), integrity ? { integrity } : {});
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** A build asset's bytes, checked against the manifest's hash for it. */
function assetBytes(manifest, path) {
  const asset = manifest.assets?.find((a) => a.path === path);
  const bytes = fetchBytes(path, asset?.integrity);
  bytes.catch(() => {}); // whoever awaits it reports the failure
  return bytes;
}

/** numpy's wheel as Pyodide's lock names it, with the lock's sha256 as loadPackage would check it. */
async function numpyWheel() {
  const lock = await (await fetch(here('./vendor/pyodide/pyodide-lock.json'))).json();
  const { file_name: file, sha256 } = lock.packages.numpy;
  const integrity = `sha256-${btoa(String.fromCharCode(...sha256.match(/../g).map((h) => parseInt(h, 16))))}`;
  return { file, bytes: await fetchBytes(`./vendor/pyodide/${file}`, integrity) };
}

/**
 * The build may ship a Pyodide memory snapshot: the heap of this very Pyodide right after start-up
 * (and the stdlib modules readingroom and numpy import), made by build.py. build-manifest.json
 * names it: "pyodide_snapshot": {"path": ..., "gzip": true|false}. Returns Promise<ArrayBuffer>.
 */
const SNAPSHOT_MAGIC = 1886286592; // API.restoreSnapshot in pyodide.asm.js

function snapshotBytes(entry) {
  const bytes = fetch(here(entry.path)).then((response) => {
    if (!response.ok) throw new Error(`${entry.path}: HTTP ${response.status}`);
    const body = entry.gzip ? response.body.pipeThrough(new DecompressionStream('gzip')) : response.body;
    return new Response(body).arrayBuffer();
  }).then((buffer) => {
    // Pyodide trusts the snapshot's size before it checks its header, and does not recover from
    // a wrong one: check the magic number (Pyodide 0.27's) here, so a bad file only costs a retry.
    if (buffer.byteLength < 1 << 20 || new Uint32Array(buffer, 0, 1)[0] !== SNAPSHOT_MAGIC) {
      throw new Error(`${entry.path} is not a Pyodide memory snapshot`);
    }
    mark('snapshotBytes');
    return buffer;
  });
  bytes.catch(() => {}); // loadPyodide sees the failure and we fall back
  return bytes;
}

// The extension modules `import numpy` itself needs (numpy 2.0: the core, and linalg, which
// numpy.lib imports). loadPackage('numpy') compiles and instantiates all 19 of the wheel's before
// anything can import it (7.5 MB of wasm: random, fft, lapack_lite and test modules too); these
// are 4.5 MB of that. Any other one loads when something imports it (dlopen, synchronously, which
// a worker may do).
const NUMPY_EAGER = ['numpy/_core/_multiarray_umath.', 'numpy/linalg/_umath_linalg.'];

/** Unpack a wheel into site-packages, as loadPackage does, without loading its libraries. */
function unpack(py, bytes, filename) {
  py._api.package_loader.unpack_buffer.callKwargs({
    buffer: bytes, filename, extract_dir: py._api.sitepackages, calculate_dynlibs: false,
    installer: 'pyodide.loadPackage', source: 'pyodide',
  });
}

/**
 * The build's site-packages image (build.py site_image: numpy, readingroom and their .pyc files),
 * inflated by the browser as it downloads. Promise<ArrayBuffer>.
 */
function siteImage(manifest) {
  const { path } = manifest.pyodide_site;
  const integrity = manifest.assets?.find((a) => a.path === path)?.integrity;
  const bytes = fetch(here(path), integrity ? { integrity } : {}).then((response) => {
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return new Response(response.body.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
  });
  bytes.catch(() => {}); // installPackages falls back to the wheels
  return bytes;
}

/** Writes the image's files into site-packages; each file's bytes stay where they are (canOwn). */
function writeSite(py, buffer) {
  const headLength = new DataView(buffer).getUint32(0, true);
  const files = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, headLength)));
  const site = py._api.sitepackages;
  const made = new Set();
  let at = 4 + headLength;
  for (const { path, size } of files) {
    const dir = `${site}/${path}`.slice(0, `${site}/${path}`.lastIndexOf('/'));
    if (!made.has(dir)) {
      py.FS.mkdirTree(dir);
      made.add(dir);
    }
    py.FS.writeFile(`${site}/${path}`, new Uint8Array(buffer, at, size), { canOwn: true });
    at += size;
  }
  if (at !== buffer.byteLength) throw new Error('the site-packages image is damaged');
}

/** Loads NUMPY_EAGER's libraries ahead, asynchronously: compiling runs off this thread. */
async function loadNumpyLibraries(py) {
  const site = py._api.sitepackages;
  for (const prefix of NUMPY_EAGER) {
    const dir = `${site}/${prefix.slice(0, prefix.lastIndexOf('/'))}`;
    const stem = prefix.slice(prefix.lastIndexOf('/') + 1);
    const name = py.FS.readdir(dir).find((n) => n.startsWith(stem) && n.endsWith('.so'));
    if (!name) throw new Error(`numpy has no ${prefix}*.so`);
    await py._api.loadDynlib(`${dir}/${name}`, false, [`${site}/numpy.libs`]);
  }
}

/**
 * numpy and readingroom (and their compiled bytecode) into site-packages: from the build's image,
 * or else from the two wheels. These are Pyodide 0.27's internals (pyodide._api): on any surprise,
 * loadPackage does it the slow way.
 */
async function installPackages(py, downloads) {
  try {
    const image = await downloads.site?.catch((err) => {
      console.warn('Reading Room: no site-packages image, unpacking the wheels:', err?.message ?? err);
    });
    if (image) {
      writeSite(py, image);
    } else {
      const numpy = await numpyWheel();
      unpack(py, numpy.bytes, numpy.file);
      unpack(py, await assetBytes(downloads.manifest ?? {}, downloads.wheelPath), downloads.wheelPath.split('/').pop());
    }
    await loadNumpyLibraries(py);
  } catch (err) {
    console.warn('Reading Room: installing numpy and readingroom failed, using loadPackage:', err?.message ?? err);
    await py.loadPackage('numpy', { messageCallback: () => {} });
    // A wheel URL installs as-is: no dependency resolution, so no index is ever consulted.
    await py.loadPackage(here(downloads.wheelPath), { messageCallback: () => {} });
  }
  mark('numpy');
  // Python's finder for site-packages lists the folder again. (importlib.invalidate_caches()
  // would too, but it imports importlib.metadata and email first: 0.3 s of compiling, in node.)
  const finder = py._api.sys.path_importer_cache.get(py._api.sitepackages);
  finder?.invalidate_caches();
  finder?.destroy();
  mark('wheel');
}

/** Pyodide, numpy and readingroom: nothing here depends on the page's start message. */
async function loadRuntime() {
  mark('worker');
  progress('python', { status: 'loading Python' });
  const options = {
    indexURL: here('./vendor/pyodide/'),
    stdout: (line) => console.log('[python]', line),
    stderr: (line) => console.warn('[python]', line),
  };
  const manifest = await manifestReady.catch(() => null);
  mark('manifest');
  const downloads = { manifest, wheelPath: manifest?.wheel, site: manifest?.pyodide_site ? siteImage(manifest) : null };
  let py = null;
  if (manifest?.pyodide_snapshot?.path) {
    // Restoring a memory snapshot skips the interpreter's own start-up (seconds of wasm).
    py = await loadPyodide({ ...options, _loadSnapshot: snapshotBytes(manifest.pyodide_snapshot) }).catch((err) => {
      console.warn('Reading Room: Python snapshot not usable, starting Python from scratch:', err?.message ?? err);
      return null;
    });
    mark(py ? 'snapshot' : 'snapshotFailed');
  }
  py ??= await loadPyodide(options);
  mark('pyodide');
  progress('python', { status: 'loading numpy' });
  return { py, downloads };
}

// Start at once, before the page's 'start' arrives; start() picks the results up.
const runtime = loadRuntime();
const sqlite = loadSqlite();
runtime.catch(() => {}); // reported through 'start'
sqlite.catch(() => {});

async function loadPython(wheel) {
  const { py, downloads } = await runtime;
  progress('python', { status: 'installing readingroom' });
  await installPackages(py, { ...downloads, wheelPath: downloads.wheelPath ?? wheel });
  return py;
}

/** What the page adds to Python's status about where the library lives. */
function storageInfo() {
  // memoryCopy: reads are served from an in-memory copy of the OPFS library (sqlite-host.js).
  return { storageNote: store?.storageNote ?? '', memoryCopy: Boolean(store?.copy), memoryCopyNote: store?.copyNote ?? '' };
}

/** Python values crossing into JS arrive as proxies unless Python converted them already. */
function jsList(value) {
  if (Array.isArray(value)) return value;
  if (value && typeof value.toJs === 'function') return value.toJs();
  return Array.from(value);
}

// The embedding worker's port. The page replaces it (reconnectEmbedder) when that worker dies and
// is started again; embed calls still waiting on the dead one are rejected then, never left hanging.
let embedClient = null;
let embedPort = null;
// Set while the page knows the embedder cannot serve: {offline, message}; message says why, after
// "The embedding model " (e.g. "could not be loaded (…)").
let embedUnavailable = null;

/** The error an embed call gets while the model cannot load: OfflineError when the browser is offline. */
function unavailableError({ offline, message }) {
  const err = new Error(offline
    ? 'The embedding model is not available offline: it was never saved on this device. Connect to the internet once to load it.'
    : `The embedding model ${message}. Searching by words still works.`);
  err.name = offline ? 'OfflineError' : 'EmbedderUnavailable';
  return err;
}

function embedCall(op, texts) {
  if (embedUnavailable) return Promise.reject(unavailableError(embedUnavailable));
  if (!embedClient) return Promise.reject(new Error('The embedding model is not connected yet.'));
  return embedClient(op, { texts: jsList(texts) });
}

/** A new port to the (restarted) embedder; calls waiting on the old one fail with a clear message. */
function reconnectEmbedder({ port }) {
  embedUnavailable = null;
  usePort(port);
  return true;
}

function usePort(port) {
  const old = embedClient;
  const oldPort = embedPort;
  embedPort = port;
  embedClient = rpcClient(port);
  if (old) {
    const err = new Error('The embedding model stopped while this was being indexed, and was restarted. '
      + 'Its passages are found by their words until they are embedded, on the next add or reload.');
    err.name = 'EmbedderStopped';
    old.failAll(err);
    oldPort?.close();
  }
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
 * A Python exception reaches JS as a PythonError carrying only the class name and traceback text.
 * readingroom's errors carry a stable `kind`; Pyodide leaves the exception in sys.last_exc, so
 * read the kind and plain message from there when we can.
 */
function pythonErrorInfo(err) {
  if (!pyodide || !(err instanceof pyodide.ffi.PythonError)) return errorInfo(err);
  const lines = String(err.message).trim().split('\n');
  let info = { type: err.type, message: lines[lines.length - 1] };
  let sys;
  let exc;
  try {
    sys = pyodide.pyimport('sys');
    exc = sys.last_exc ?? sys.last_value;
    if (exc && exc.__class__.__name__ === err.type) { // not a stale one from an earlier error
      const kind = exc.kind;
      info = { type: typeof kind === 'string' ? kind : err.type, message: exc.toString() || info.message };
    }
  } catch {
    // keep the traceback-derived info
  } finally {
    exc?.destroy?.();
    sys?.destroy?.();
  }
  return info;
}

// Page requests run in lanes. An op in the 'alone' lane (start, imports, deletes, ...) runs with
// nothing else in flight. Reads (searches, questions, lists) and ingestion (adding documents,
// re-indexing) may run beside each other, one at a time within each lane: Python gives the event
// loop up only while it waits for an embedding, never inside a transaction (one per document), so
// a search typed during a long import is answered between two of its embedding batches instead of
// after the whole import.
const lanes = { alone: Promise.resolve(), tails: {} };

function inLane(lane, fn) {
  return (msg) => {
    const before = lane === 'alone'
      ? Promise.all([lanes.alone, ...Object.values(lanes.tails)])
      : Promise.all([lanes.alone, lanes.tails[lane]]);
    const run = before.then(() => fn(msg));
    const settled = run.then(() => {}, () => {});
    if (lane === 'alone') {
      lanes.alone = settled;
      lanes.tails = {};
    } else {
      lanes.tails[lane] = settled;
    }
    return run;
  };
}
const serialized = (fn) => inLane('alone', fn);
const reading = (fn) => inLane('read', fn);
const ingesting = (fn) => inLane('ingest', fn);

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
    throw pythonErrorInfo(err);
  }
}

async function start({ embedPort: port, wheel, model, storage: wanted }) {
  if (api) return callPython('status');
  mark('start');
  if (!embedClient) usePort(port);
  const opening = openDatabase(sqlite, {
    preferMemory: wanted === 'memory',
    onBlocked: () => progress('locked', { message: 'another tab has Reading Room open' }),
    onStep: (step) => mark(`db_${step}`),
  }).then((db) => {
    mark('database');
    return db;
  });
  opening.catch(() => {}); // awaited below, after the import
  pyodide = await loadPython(wheel);
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
  openConfig = JSON.stringify({ storage: store.storage, model });
  try {
    const status = await callPython('open', openConfig);
    if (status.error) throw status.error; // without a library there is nothing to serve
    mark('open');
    // Load the vectors into Python's matrix now, queued behind start, while the person types:
    // otherwise the first search pays for it.
    serialized(() => callPython('warm'))().catch(() => {});
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
    return reading(() => callPython('query', String(text), JSON.stringify(options ?? {}), queryId))();
  },
  // A question shares query's ids: a newer question or query stops it early.
  ask: ({ question, history, options }) => {
    const queryId = ++lastQueryId;
    if (api) api.cancel_queries_before(queryId);
    return reading(() => callPython('ask', String(question), JSON.stringify(history ?? []),
      JSON.stringify(options ?? {}), queryId))();
  },
  // Not queued: a question being typed is embedded at once (it touches no table), whatever runs.
  typeAhead: ({ text, history }) => (api
    ? callPython('type_ahead', String(text), JSON.stringify(history ?? []))
    : { source: null }),
  checkAnswer: reading(({ text, passages }) => callPython('check_answer', String(text), JSON.stringify(passages ?? []))),
  summarise: reading(({ docIds, options }) => callPython('summarise', JSON.stringify(docIds ?? []), JSON.stringify(options ?? {}))),
  documents: reading(() => callPython('documents')),
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
  embedderUnavailable: ({ offline, message }) => {
    embedUnavailable = { offline: Boolean(offline), message: String(message ?? '') };
    embedClient?.failAll(unavailableError(embedUnavailable)); // the page ended that worker
    return true;
  },
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
