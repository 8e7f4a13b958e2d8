// SQLite (with sqlite-vec and FTS5) for the retrieval worker: take the per-origin lock, open the
// database in OPFS (or in memory), and swap in an index file made elsewhere (importDatabase).
// Loading the wasm is sqlite-load.js; the two calls Python uses are sqlite-copy.js's sqlHost; the
// import's reading and checks are sqlite-import.js; bytes into databases, sqlite-bytes.js.

import { importError } from './sqlite-bytes.js';
import { closeCopy, loadCopy } from './sqlite-copy.js';
import { importIntoMemory, importIntoPool } from './sqlite-import.js';

const FIRST_DB_NAME = '/readingroom.sqlite3';
const VFS_DIR = '.readingroom';
const LOCK_NAME = 'readingroom-database';
// OPFS file (outside the pool) naming the pool file that holds the library. An import writes a
// new pool file and then rewrites this pointer, which is the commit: until then the old library
// is the library, so an import that fails or is interrupted leaves it untouched.
const CURRENT_FILE = 'readingroom-current-db';

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
    ? await importIntoPool(store, nextName(store.name), source, onBytes, onCheck)
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
