// Loading SQLite (the sqlite-vec build of sqlite-wasm, with FTS5) and running its first calls
// once. The retrieval worker loads it to use it (sqlite-host.js opens the library with it); the
// page loads it only to have its code compiled early (api/early.js). No imports: the page loads
// this file alone.

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
  // server "must emit COOP/COEP headers"; on a cross-origin isolated page the worker's URL says
  // opfs-disable (api/early.js), or it would start that VFS's proxy worker, which we do not ship,
  // and log an error. We use opfs-sahpool, which needs neither: drop those lines.
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
  const sqlite3 = await sqlite3InitModule(moduleArg);
  warmUp(sqlite3);
  return sqlite3;
}

/**
 * Run SQLite's start-up code once on a throwaway in-memory database, as soon as the wasm is in.
 * The browser compiles each wasm function the first time it is called: the first database
 * opened took ~300 ms on a warm reload (opening the library's file right after took ~10 ms), on
 * the start-up's critical path. The retrieval worker runs it while it still waits for Python's
 * snapshot; the page runs it too, first (api/early.js), and as the browser shares the compiled
 * code of the same wasm bytes between the page and its workers, the worker's own run then finds
 * most of it compiled.
 */
function warmUp(sqlite3) {
  let db = null;
  try {
    db = new sqlite3.oo1.DB(':memory:');
    db.exec([
      'pragma journal_mode=DELETE;',
      'create virtual table w using fts5(x);',
      "insert into w(x) values ('reading room');",
      "select rowid, bm25(w) from w where w match 'room';",
      'create virtual table v using vec0(e float[2]);',
      "insert into v(rowid, e) values (1, '[1, 0]');",
      "select rowid, distance from v where e match '[1, 0]' and k = 1;",
    ]);
  } catch (err) {
    console.warn('Reading Room: warming SQLite up failed (harmless):', err?.message ?? err);
  } finally {
    db?.close();
  }
}
