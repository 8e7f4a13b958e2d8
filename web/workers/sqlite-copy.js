// The library's in-memory copy (reads) beside its OPFS file (the durable truth), and the
// `exec` / `query` calls Python makes through readingroom_host over the two.

import { deserialize } from './sqlite-bytes.js';

// SQLite reads a large blob's overflow pages straight from the file, past its page cache, one
// VFS read per page, and each read of an OPFS sync access handle costs ~0.3 ms in Chromium. A
// KNN reads every vector, so over OPFS it takes ~2.3 s at 20k chunks (4 KiB pages) against
// ~45 ms in memory; a larger cache_size does not help (measured). So an OPFS library is also
// loaded into a :memory: copy at start: reads go to the copy, and every statement that writes
// runs on the OPFS database first, then on the copy. OPFS stays the durable truth: a write that
// fails there never reaches the copy, and if the two ever disagree the copy is dropped and
// reads go back to OPFS.

// Largest library kept as an in-memory copy for reads (see sqlHost); above it, reads go to OPFS.
const MEMORY_COPY_MAX_BYTES = 1 << 30;

/** Loads store.copy from the OPFS file (none when the file is too large or memory runs out). */
export function loadCopy(store) {
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

export function closeCopy(store) {
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
 * A failed statement as a value: {failed: message, code: SQLite's result code}. Python raises it
 * as a StorageError. Thrown instead, the error would have to cross Pyodide's JS-to-Python
 * exception conversion, which in Chromium 156 (Pyodide 0.27.7, in this worker) at times loses it
 * and leaves Python a bare "SystemError: error return without exception set": a full disk then
 * read as an internal error, not as a full disk.
 */
function failure(err) {
  return { failed: String(err?.message ?? err), code: err?.resultCode ?? null };
}

/**
 * The `exec` and `query` calls of the readingroom_host contract, over the store's current
 * database (and its in-memory copy, when there is one). Neither throws: a failure is returned.
 */
export function sqlHost(store) {
  return {
    /** Run a script of one or more statements; no params; undefined, or a failure. */
    exec(sql) {
      const text = String(sql);
      try {
        if (!store.copy) store.db.exec(text);
        else writeBoth(store, (db) => void db.exec(text));
      } catch (err) {
        return failure(err);
      }
      return undefined;
    },
    /** One statement with positional params; rows as arrays (blobs as Uint8Array), or a failure. */
    query(sql, params) {
      const text = String(sql);
      const bind = toBindable(params);
      const run = (db) => db.exec({ sql: text, bind, rowMode: 'array', returnValue: 'resultRows' });
      try {
        if (!store.copy) return run(store.db);
        if (isReadOnly(store, text)) return run(store.copy);
        return writeBoth(store, run);
      } catch (err) {
        return failure(err);
      }
    },
  };
}
