// SQLite (with sqlite-vec and FTS5) for the retrieval worker: load the wasm, take the per-origin
// lock, open the database in OPFS (or in memory), expose the two calls Python uses, and swap in
// an index file made elsewhere (importDatabase).

const FIRST_DB_NAME = '/readingroom.sqlite3';
const VFS_DIR = '.readingroom';
const LOCK_NAME = 'readingroom-database';
// OPFS file (outside the pool) naming the pool file that holds the library. An import writes a
// new pool file and then rewrites this pointer, which is the commit: until then the old library
// is the library, so an import that fails or is interrupted leaves it untouched.
const CURRENT_FILE = 'readingroom-current-db';
// Largest library kept as an in-memory copy for reads (see sqlHost); above it, reads go to OPFS.
const MEMORY_COPY_MAX_BYTES = 1 << 30;
// Tables every Reading Room index has (py_src/readingroom/store/sqlite_sql.py); an import without them is refused.
const INDEX_TABLES = ['meta', 'documents', 'chunks', 'chunks_fts', 'chunks_vec'];

/**
 * Initialise the sqlite-vec build of sqlite-wasm.
 *
 * As published, its post-js code pushes onto Module.postRun after Emscripten has already run the
 * postRun hooks, which aborts ("Attempt to set Module.postRun after it has already been
 * processed"). Owning `postRun` ourselves keeps Emscripten from replacing it with that trap, and
 * our push() runs the API bootstrap at once, handing it the module as Emscripten would.
 * `HEAPU64` is not exported by this build; the bootstrap probes it to decide on BigInt support,
 * and the wasm is built with WASM_BIGINT, so answer true.
 */
export async function loadSqlite() {
  // Imported here rather than statically, so the worker's own script runs (and starts Pyodide)
  // without waiting for this 760 kB module.
  const { default: sqlite3InitModule } = await import('./vendor/sqlite/sqlite3.mjs');
  // The bootstrap also tries the other OPFS VFS. Without SharedArrayBuffer it warns that the
  // server "must emit COOP/COEP headers"; on a cross-origin isolated page it tries to start that
  // VFS's proxy worker, which we do not ship (one 404), and logs an error. We use opfs-sahpool,
  // which needs neither: drop those lines.
  const theirs = (args) => /^(Ignoring inability to install OPFS|Error initializing OPFS asyncer)/.test(String(args[0]));
  globalThis.sqlite3ApiConfig = {
    warn: (...args) => {
      if (!theirs(args)) console.warn(...args);
    },
    error: (...args) => {
      if (!theirs(args)) console.error(...args);
    },
  };
  const moduleArg = {
    postRun: { push: (fn) => fn(moduleArg) },
    HEAPU64: true,
    print: (...a) => console.log('[sqlite]', ...a),
    printErr: (...a) => console.warn('[sqlite]', ...a),
  };
  return sqlite3InitModule(moduleArg);
}

/**
 * opfs-sahpool holds exclusive handles on its files, so only one tab may open the database.
 * Take a Web Lock first; if another tab has it, tell the caller and wait for it to be released.
 * The lock is held until this worker ends.
 */
async function acquireLock(onBlocked) {
  if (!navigator.locks) return; // no Web Locks: nothing to coordinate with (nor OPFS, in practice)
  const held = (grant) =>
    new Promise((resolveOuter) => {
      navigator.locks.request(LOCK_NAME, grant, (lock) => {
        resolveOuter(lock);
        return lock ? new Promise(() => {}) : undefined; // hold forever once granted
      });
    });
  if (await held({ ifAvailable: true })) return;
  onBlocked();
  await held({});
}

async function readCurrentName() {
  try {
    const root = await navigator.storage.getDirectory();
    const file = await (await root.getFileHandle(CURRENT_FILE)).getFile();
    const name = (await file.text()).trim();
    return /^\/readingroom(-\d+)?\.sqlite3$/.test(name) ? name : FIRST_DB_NAME;
  } catch {
    return FIRST_DB_NAME; // no pointer yet: the library is where it has always been
  }
}

async function writeCurrentName(name) {
  const root = await navigator.storage.getDirectory();
  const handle = await root.getFileHandle(CURRENT_FILE, { create: true });
  // A writable stream writes to a swap file that replaces the original on close(): all or nothing.
  const out = await handle.createWritable();
  await out.write(name);
  await out.close();
}

function nextName(name) {
  const n = Number(/-(\d+)\.sqlite3$/.exec(name)?.[1] ?? 0);
  return `/readingroom-${n + 1}.sqlite3`;
}

/** Pool files left by an import that never committed, or by the library it replaced. */
function removeStrays(pool, current) {
  for (const name of pool.getFileNames()) {
    if (name !== current && name !== `${current}-journal` && /^\/readingroom/.test(name)) pool.unlink(name);
  }
}

/**
 * Returns the worker's store: {sqlite3, db, storage: 'opfs'|'memory', storageNote, pool, name,
 * copy, copyNote}. `db` (and `copy`) change when an index is imported: read them through the
 * store, never keep them.
 */
/** `loading`: the promise loadSqlite() returned. */
export async function openDatabase(loading, { preferMemory = false, onBlocked = () => {}, onStep = () => {} } = {}) {
  const sqlite3 = await loading;
  onStep('sqlite');
  const memory = (storageNote) => ({
    sqlite3, db: new sqlite3.oo1.DB(':memory:'), storage: 'memory', storageNote, pool: null, name: ':memory:',
    copy: null, copyNote: '',
  });
  if (preferMemory) return memory('memory storage requested');
  if (typeof navigator.storage?.getDirectory !== 'function') return memory('this browser has no Origin Private File System');
  await acquireLock(onBlocked);
  onStep('lock');
  let step = 'opening the file pool';
  try {
    const pool = await sqlite3.installOpfsSAHPoolVfs({ directory: VFS_DIR });
    onStep('pool');
    step = 'finding the library';
    const name = await readCurrentName();
    step = 'tidying the file pool';
    removeStrays(pool, name);
    step = 'opening the library';
    const store = { sqlite3, db: new pool.OpfsSAHPoolDb(name), storage: 'opfs', storageNote: '', pool, name };
    onStep('file');
    loadCopy(store);
    return store;
  } catch (err) {
    console.warn(`OPFS unavailable (${step}), using memory`, err);
    return memory(`${step}: ${err?.message ?? err}`);
  }
}

function importError(message, type = 'bad_index') {
  return Object.assign(new Error(message), { type });
}

const HEADER = 'SQLite format 3\0';

/** Throws unless `bytes` (a whole file) could be an SQLite database. */
function checkHeader(bytes) {
  if (bytes.byteLength < 512 || bytes.byteLength % 512 !== 0) {
    throw importError(`the file is not an SQLite database (${bytes.byteLength} bytes is not a whole number of pages)`);
  }
  if (![...HEADER].every((c, i) => bytes[i] === c.charCodeAt(0))) {
    throw importError('the file is not an SQLite database (no SQLite header)');
  }
}

/** Throws unless `db` holds a Reading Room index (the tables of store/sqlite_sql.py and its provenance). */
function checkIndex(db) {
  let tables;
  try {
    tables = new Set(db.selectValues("SELECT name FROM sqlite_master WHERE type = 'table'"));
  } catch (err) {
    throw importError(`the file is not a readable SQLite database (${err.message})`);
  }
  const missing = INDEX_TABLES.filter((t) => !tables.has(t));
  if (missing.length) throw importError(`the file is not a Reading Room index (no ${missing.join(', ')} table)`);
  if (!db.selectValue("SELECT value FROM meta WHERE key = 'model_id'")) {
    throw importError('the file is not a Reading Room index (no model_id in its meta table)');
  }
}

/** Counts bytes through a stream of Uint8Array chunks, reporting at most every 100 ms. */
function counted(stream, onBytes) {
  const reader = stream.getReader();
  let bytes = 0;
  let last = 0;
  return {
    get bytes() {
      return bytes;
    },
    async next() {
      const { done, value } = await reader.read();
      if (done) {
        onBytes(bytes);
        return undefined;
      }
      const chunk = value instanceof Uint8Array ? value : new Uint8Array(value);
      bytes += chunk.byteLength;
      const now = performance.now();
      if (now - last > 100) {
        last = now;
        onBytes(bytes);
      }
      return chunk;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

/**
 * The input's first bytes in one chunk of at least 100 (unless the file is shorter): the SQLite
 * header, whose page size and page count tell how much of the file must end up stored. (It also
 * spares importDb its check for a first chunk under 15 bytes, which reads the pool file's own
 * header instead of the database's.)
 */
async function leadingChunk(input) {
  const parts = [];
  let size = 0;
  for (let chunk = await input.next(); chunk; chunk = size < 100 ? await input.next() : undefined) {
    parts.push(chunk);
    size += chunk.byteLength;
  }
  if (parts.length <= 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * {pageSize, pages}: the pages a whole file of `bytes` bytes with this header holds (SQLite's own
 * rule in lockBtree), or null when the header has no valid page size.
 */
function expectedPages(header, bytes) {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const raw = view.getUint16(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return null; // not a page size: checkIndex says so
  const inFile = Math.floor(bytes / pageSize);
  const inHeader = view.getUint32(28);
  // The header's count is valid when its version-valid-for number matches the change counter.
  const valid = inHeader > 0 && view.getUint32(24) === view.getUint32(92);
  return { pageSize, pages: valid ? Math.min(inHeader, inFile) : inFile };
}

const sizeText = (n) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${Math.round(n / 1e6)} MB`);

/** The error for a file the browser did not store whole: no room left for this site's files. */
function noRoom(stored, total) {
  const kept = stored == null ? '' : `: it stored ${sizeText(stored)} of it, then refused more`;
  return importError(
    `the browser has no room left to store this ${sizeText(total)} index for this site${kept}. ` +
      'Free some disk space and try again; in a private (incognito) window, which keeps site files ' +
      'in memory (about 1.5 GB at most), open Reading Room in a normal window and import it there. ' +
      'Your library is unchanged.',
    'storage',
  );
}

/** The error for a file too large for the in-memory database (no OPFS here). */
function noMemory(total) {
  return importError(
    `this ${sizeText(total)} index does not fit in the page's memory, where this window keeps the library ` +
      "(it has no private file system for the site's files). Open Reading Room in a normal window of a " +
      'browser with the Origin Private File System and import it there. Your library is unchanged.',
    'storage',
  );
}

/**
 * Throws unless the pool file `name` holds every page of the imported file.
 *
 * Chromium's FileSystemSyncAccessHandle.write() does not throw when the site's storage is full
 * (over its quota, or past the ~1.5 GB an incognito profile keeps in memory): it returns
 * 2^32 - 8 (its "no space" error code as a byte count) and writes nothing, and importDb ignores
 * write()'s result. The import then "succeeds" with a truncated file, which SQLite reports as
 * SQLITE_CORRUPT (the header promises more pages than the file has). With writable_schema on,
 * SQLite opens it anyway and page_count says how many pages are really there.
 */
function checkStored(pool, name, header, bytes) {
  const expected = expectedPages(header, bytes);
  if (!expected) return;
  let stored;
  const probe = new pool.OpfsSAHPoolDb(name);
  try {
    probe.exec('PRAGMA writable_schema = ON');
    stored = probe.selectValue('PRAGMA page_count');
  } catch {
    return; // not readable at all: checkIndex says so
  } finally {
    probe.close();
  }
  if (stored < expected.pages) throw noRoom(stored * expected.pageSize, bytes);
}

/** Throws a storage error before writing when the browser already says the file will not fit. */
async function checkRoom(total) {
  if (!total || typeof navigator.storage?.estimate !== 'function') return;
  const { quota, usage } = await navigator.storage.estimate().catch(() => ({}));
  if (quota != null && usage != null && quota - usage < total) throw noRoom(null, total);
}

/** Stream -> a new pool file, opened and checked. Nothing is replaced yet. */
async function importIntoPool(store, source, onBytes, onCheck) {
  const { pool } = store;
  const name = nextName(store.name);
  pool.unlink(name);
  pool.unlink(`${name}-journal`);
  await pool.reserveMinimumCapacity(6);
  const input = counted(source.stream, onBytes);
  let db;
  try {
    await checkRoom(source.total);
    // importDb with a callback writes chunk by chunk: the file never has to fit in memory.
    // It checks the header and the size (whole pages) itself.
    const header = await leadingChunk(input);
    let first = header;
    try {
      await pool.importDb(name, () => {
        if (!first) return input.next();
        const chunk = first;
        first = undefined;
        return chunk;
      });
    } catch (err) {
      if (err.type) throw err;
      if (err.name === 'QuotaExceededError') throw noRoom(null, source.total ?? input.bytes);
      throw importError(`the file is not an SQLite database (${err.message})`);
    }
    if (source.total != null && input.bytes !== source.total) {
      throw importError(`got ${input.bytes} bytes where ${source.total} were announced`, 'incomplete');
    }
    onCheck();
    checkStored(pool, name, header, input.bytes);
    db = new pool.OpfsSAHPoolDb(name);
    checkIndex(db);
    return { db, name };
  } catch (err) {
    input.cancel();
    db?.close();
    pool.unlink(name);
    throw err.type ? err : importError(err.message ?? String(err));
  }
}

/**
 * A new :memory: database holding the `size` bytes at `ptr` (from sqlite3_malloc). SQLite owns
 * the memory from here on (FREEONCLOSE), and frees it even when this fails.
 */
function deserialize(sqlite3, ptr, size) {
  const { capi } = sqlite3;
  const db = new sqlite3.oo1.DB(':memory:');
  const flags = capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE;
  const rc = capi.sqlite3_deserialize(db.pointer, 'main', ptr, BigInt(size), BigInt(size), flags);
  if (rc) {
    db.close();
    throw importError(`SQLite could not load the file (${capi.sqlite3_js_rc_str(rc)})`);
  }
  return db;
}

/** An in-memory database cannot be in WAL mode: mark the file at ptr as rollback-journal. */
function asRollbackJournal(heap, ptr) {
  if (heap[ptr + 18] === 2) heap[ptr + 18] = 1;
  if (heap[ptr + 19] === 2) heap[ptr + 19] = 1;
}

/** A source's bytes ({stream, total}) in one array; onBytes(n) as they arrive, now and then. */
export async function readBytes({ stream, total }, onBytes = () => {}) {
  const input = counted(stream, onBytes);
  const parts = [];
  for (let chunk = await input.next(); chunk; chunk = await input.next()) parts.push(chunk);
  if (total && input.bytes !== total) {
    throw importError(`got ${input.bytes} bytes where ${total} were announced`, 'incomplete');
  }
  const out = new Uint8Array(input.bytes);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * Attach an index file's bytes to the library's connection (and its in-memory copy, which
 * mirrors every write) as schema `schema`, so Python can copy rows across in SQL: the bundled
 * set (py_src/readingroom/bundle.py). Each connection gets its own copy, freed on detach.
 */
export function attachBytes(store, schema, bytes) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw importError('bad schema name', 'bad_request');
  checkHeader(bytes);
  const { capi, wasm } = store.sqlite3;
  const flags = capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE;
  const attached = [];
  try {
    for (const db of [store.db, store.copy].filter(Boolean)) {
      db.exec(`ATTACH ':memory:' AS ${schema}`);
      attached.push(db);
      const ptr = wasm.alloc(bytes.byteLength);
      wasm.heap8u().set(bytes, ptr);
      asRollbackJournal(wasm.heap8u(), ptr);
      const size = BigInt(bytes.byteLength);
      const rc = capi.sqlite3_deserialize(db.pointer, schema, ptr, size, size, flags);
      if (rc) throw importError(`SQLite could not load the file (${capi.sqlite3_js_rc_str(rc)})`);
    }
  } catch (err) {
    detachSchema({ db: attached[0], copy: attached[1] }, schema);
    throw err;
  }
}

export function detachSchema(store, schema) {
  for (const db of [store.db, store.copy].filter(Boolean)) {
    try {
      db.exec(`DETACH ${schema}`);
    } catch {
      // not attached on this connection
    }
  }
}

/** Stream -> sqlite3_malloc'd bytes -> a new :memory: database (sqlite3_deserialize). */
async function importIntoMemory(store, source, onBytes, onCheck) {
  const { sqlite3 } = store;
  const { wasm } = sqlite3;
  const input = counted(source.stream, onBytes);
  // Copy straight into wasm memory when the size is known up front; otherwise gather first.
  const parts = [];
  let size = source.total ?? 0;
  const alloc = (n) => {
    try {
      return wasm.alloc(n);
    } catch (err) {
      throw err.name === 'WasmAllocError' ? noMemory(n) : err;
    }
  };
  let ptr = size ? alloc(size) : 0;
  try {
    for (let chunk = await input.next(); chunk; chunk = await input.next()) {
      if (ptr && input.bytes <= size) wasm.heap8u().set(chunk, ptr + input.bytes - chunk.byteLength);
      else parts.push(chunk);
    }
    if (ptr && input.bytes !== size) {
      throw importError(`got ${input.bytes} bytes where ${size} were announced`, 'incomplete');
    }
    if (!ptr) {
      size = input.bytes;
      if (size < 512) throw importError('the file is too small to be an SQLite database');
      ptr = alloc(size);
      let at = ptr;
      for (const part of parts.splice(0)) {
        wasm.heap8u().set(part, at);
        at += part.byteLength;
      }
    }
    onCheck();
    const heap = wasm.heap8u();
    checkHeader(heap.subarray(ptr, ptr + size));
    asRollbackJournal(heap, ptr);
  } catch (err) {
    input.cancel();
    if (ptr) wasm.dealloc(ptr);
    throw err.type ? err : importError(err.message ?? String(err));
  }
  const db = deserialize(sqlite3, ptr, size);
  try {
    checkIndex(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return { db, name: ':memory:' };
}

/**
 * Replace the store's database with an index file.
 *
 * source: {stream: ReadableStream<Uint8Array>, total: bytes | null}. onProgress({phase, bytes,
 * total}) is called as bytes arrive (phase 'reading'), then with phase 'checking'.
 * The new file is written and checked beside the current one; only then does it become the
 * store's database (in OPFS, by rewriting the pointer file), so a failure leaves the old one.
 */
export async function importDatabase(store, source, onProgress = () => {}) {
  const total = source.total ?? null;
  const onBytes = (bytes) => onProgress({ phase: 'reading', bytes, total });
  const onCheck = () => onProgress({ phase: 'checking', total });
  onBytes(0);
  const fresh = store.pool
    ? await importIntoPool(store, source, onBytes, onCheck)
    : await importIntoMemory(store, source, onBytes, onCheck);
  if (store.pool) {
    try {
      await writeCurrentName(fresh.name);
    } catch (err) {
      fresh.db.close();
      store.pool.unlink(fresh.name);
      throw importError(`the imported index could not be made current (${err.message})`, 'storage');
    }
  }
  const old = store.db;
  closeCopy(store);
  store.db = fresh.db;
  store.name = fresh.name;
  old.close();
  if (store.pool) {
    removeStrays(store.pool, store.name);
    loadCopy(store);
  }
}

// --- the in-memory copy ---------------------------------------------------------------------
//
// SQLite reads a large blob's overflow pages straight from the file, past its page cache, one
// VFS read per page, and each read of an OPFS sync access handle costs ~0.3 ms in Chromium. A
// KNN reads every vector, so over OPFS it takes ~2.3 s at 20k chunks (4 KiB pages) against
// ~45 ms in memory; a larger cache_size does not help (measured). So an OPFS library is also
// loaded into a :memory: copy at start: reads go to the copy, and every statement that writes
// runs on the OPFS database first, then on the copy. OPFS stays the durable truth: a write that
// fails there never reaches the copy, and if the two ever disagree the copy is dropped and
// reads go back to OPFS.

/** Loads store.copy from the OPFS file (none when the file is too large or memory runs out). */
function loadCopy(store) {
  const { sqlite3, pool, db, name } = store;
  closeCopy(store);
  try {
    // Any read rolls back a hot journal left by a crash, so the file is consistent before copying.
    const size = db.selectValue('PRAGMA page_count') * db.selectValue('PRAGMA page_size');
    if (size > MEMORY_COPY_MAX_BYTES) {
      store.copyNote = `the library is ${Math.round(size / 1e6)} MB, too large to keep in memory`;
    } else if (size === 0) {
      store.copy = new sqlite3.oo1.DB(':memory:');
    } else {
      const bytes = pool.exportFile(name);
      const ptr = sqlite3.wasm.alloc(bytes.byteLength);
      sqlite3.wasm.heap8u().set(bytes, ptr);
      store.copy = deserialize(sqlite3, ptr, bytes.byteLength);
    }
  } catch (err) {
    store.copyNote = `no in-memory copy (${err.message})`;
  }
  if (store.copyNote) console.warn('Reading Room: reading from OPFS directly,', store.copyNote);
}

function closeCopy(store) {
  store.copy?.close();
  store.copy = null;
  store.copyNote = '';
}

function dropCopy(store, why) {
  console.warn('Reading Room: dropped the in-memory copy, reading from OPFS directly:', why);
  closeCopy(store);
  store.copyNote = `in-memory copy dropped (${why})`;
}

// Statements run on both databases whatever sqlite3_stmt_readonly says of them.
const ALWAYS_BOTH = /^\s*(begin|commit|end|rollback|savepoint|release|pragma|attach|detach|vacuum|analyze|reindex)\b/i;
const readOnlyCache = new Map();

function isReadOnly(store, sql) {
  let known = readOnlyCache.get(sql);
  if (known === undefined) {
    if (ALWAYS_BOTH.test(sql)) known = false;
    else {
      const stmt = store.copy.prepare(sql);
      try {
        known = Boolean(store.sqlite3.capi.sqlite3_stmt_readonly(stmt.pointer));
      } finally {
        stmt.finalize();
      }
    }
    if (readOnlyCache.size > 500) readOnlyCache.clear(); // filtered queries make many variants
    readOnlyCache.set(sql, known);
  }
  return known;
}

function sameRows(a, b) {
  if (a.length !== b.length) return false;
  return a.every((row, i) => row.length === b[i].length && row.every((v, j) => {
    const w = b[i][j];
    if (v instanceof Uint8Array && w instanceof Uint8Array) return v.length === w.length && v.every((x, k) => x === w[k]);
    return v === w;
  }));
}

/** After a failed write on OPFS: if it ended OPFS's transaction, end the copy's too. */
function alignTransaction(store) {
  const { capi } = store.sqlite3;
  if (capi.sqlite3_get_autocommit(store.db.pointer) && !capi.sqlite3_get_autocommit(store.copy.pointer)) {
    try {
      store.copy.exec('ROLLBACK');
    } catch (err) {
      dropCopy(store, err.message);
    }
  }
}

/** Runs a write on OPFS, then on the copy; returns what OPFS returned. */
function writeBoth(store, run) {
  let out;
  try {
    out = run(store.db);
  } catch (err) {
    alignTransaction(store);
    throw err;
  }
  try {
    const mirrored = run(store.copy);
    if (out !== undefined && !sameRows(out, mirrored)) dropCopy(store, 'the copy returned different rows');
  } catch (err) {
    dropCopy(store, err.message);
  }
  return out;
}

/** A JS Array (or array-like) of params, each a number, string, null, bigint or Uint8Array. */
function toBindable(params) {
  if (params == null) return undefined;
  const list = Array.from(params);
  return list.length ? list.map((v) => (v === undefined ? null : v)) : undefined;
}

/**
 * The `exec` and `query` calls of the readingroom_host contract, over the store's current
 * database (and its in-memory copy, when there is one).
 */
export function sqlHost(store) {
  return {
    /** Run a script of one or more statements; no params, no result. */
    exec(sql) {
      const text = String(sql);
      if (!store.copy) store.db.exec(text);
      else writeBoth(store, (db) => void db.exec(text));
    },
    /** One statement with positional params; rows as arrays, blobs as Uint8Array. */
    query(sql, params) {
      const text = String(sql);
      const bind = toBindable(params);
      const run = (db) => db.exec({ sql: text, bind, rowMode: 'array', returnValue: 'resultRows' });
      if (!store.copy) return run(store.db);
      if (isReadOnly(store, text)) return run(store.copy);
      return writeBoth(store, run);
    },
  };
}
