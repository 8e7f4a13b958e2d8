// Bytes into SQLite databases, shared by the import (sqlite-import.js), the in-memory copy
// (sqlite-copy.js) and the bundled set's attach (attachBytes): counting a stream, checking a
// header, deserializing into :memory:, and the typed errors a person reads.

export function importError(message, type = 'bad_index') {
  return Object.assign(new Error(message), { type });
}

const HEADER = 'SQLite format 3\0';

/** Throws unless `bytes` (a whole file) could be an SQLite database. */
export function checkHeader(bytes) {
  if (bytes.byteLength < 512 || bytes.byteLength % 512 !== 0) {
    throw importError(`the file is not an SQLite database (${bytes.byteLength} bytes is not a whole number of pages)`);
  }
  if (![...HEADER].every((c, i) => bytes[i] === c.charCodeAt(0))) {
    throw importError('the file is not an SQLite database (no SQLite header)');
  }
}

/** Counts bytes through a stream of Uint8Array chunks, reporting at most every 100 ms. */
export function counted(stream, onBytes) {
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
 * A new :memory: database holding the `size` bytes at `ptr` (from sqlite3_malloc). SQLite owns
 * the memory from here on (FREEONCLOSE), and frees it even when this fails.
 */
export function deserialize(sqlite3, ptr, size) {
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
export function asRollbackJournal(heap, ptr) {
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
