// SQLite (with sqlite-vec and FTS5) for the retrieval worker: load the wasm, take the per-origin
// lock, open the database in OPFS (or in memory), and expose the two calls Python uses.

import sqlite3InitModule from './vendor/sqlite/sqlite3.mjs';

const DB_NAME = '/readingroom.sqlite3';
const VFS_DIR = '.readingroom';
const LOCK_NAME = 'readingroom-database';

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
async function initSqlite() {
  // The bootstrap also tries the other OPFS VFS, which needs SharedArrayBuffer, and warns that the
  // server "must emit COOP/COEP headers". We use opfs-sahpool, which needs neither: drop that line.
  globalThis.sqlite3ApiConfig = {
    warn: (...args) => {
      if (!String(args[0]).startsWith('Ignoring inability to install OPFS')) console.warn(...args);
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

/** Returns {sqlite3, db, storage: 'opfs'|'memory', storageNote}. */
export async function openDatabase({ preferMemory = false, onBlocked = () => {} } = {}) {
  const sqlite3 = await initSqlite();
  if (!preferMemory && typeof navigator.storage?.getDirectory === 'function') {
    await acquireLock(onBlocked);
    try {
      const pool = await sqlite3.installOpfsSAHPoolVfs({ directory: VFS_DIR });
      return { sqlite3, db: new pool.OpfsSAHPoolDb(DB_NAME), storage: 'opfs', storageNote: '' };
    } catch (err) {
      console.warn('OPFS unavailable, using memory', err);
      return { sqlite3, db: new sqlite3.oo1.DB(':memory:'), storage: 'memory', storageNote: String(err?.message ?? err) };
    }
  }
  const note = preferMemory ? 'memory storage requested' : 'this browser has no Origin Private File System';
  return { sqlite3, db: new sqlite3.oo1.DB(':memory:'), storage: 'memory', storageNote: note };
}

/** A JS Array (or array-like) of params, each a number, string, null, bigint or Uint8Array. */
function toBindable(params) {
  if (params == null) return undefined;
  const list = Array.from(params);
  return list.length ? list.map((v) => (v === undefined ? null : v)) : undefined;
}

/** The `exec` and `query` calls of the readingroom_host contract, over one oo1 DB. */
export function sqlHost(db) {
  return {
    /** Run a script of one or more statements; no params, no result. */
    exec(sql) {
      db.exec(String(sql));
    },
    /** One statement with positional params; rows as arrays, blobs as Uint8Array. */
    query(sql, params) {
      return db.exec({ sql: String(sql), bind: toBindable(params), rowMode: 'array', returnValue: 'resultRows' });
    },
  };
}
