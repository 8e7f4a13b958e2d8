// An index file made elsewhere, read into a new database beside the library's own (a new OPFS
// pool file, or :memory: without OPFS) and checked: a whole SQLite file, every page stored, the
// tables of a Reading Room index. Nothing here replaces the library (sqlite-host.js does).

import { asRollbackJournal, checkHeader, counted, deserialize, importError } from './sqlite-bytes.js';

// Tables every Reading Room index has (py_src/readingroom/store/sqlite_sql.py); an import without them is refused.
const INDEX_TABLES = ['meta', 'documents', 'chunks', 'chunks_fts', 'chunks_vec'];

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

/** Stream -> the new pool file `name`, opened and checked. Nothing is replaced yet. */
export async function importIntoPool(store, name, source, onBytes, onCheck) {
  const { pool } = store;
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

/** Stream -> sqlite3_malloc'd bytes -> a new :memory: database (sqlite3_deserialize). */
export async function importIntoMemory(store, source, onBytes, onCheck) {
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
