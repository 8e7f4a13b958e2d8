// The retrieval worker, started by the page's first script: index.html loads this module on its
// own, before app.js, whose imports are four modules deep (the worker would otherwise start only
// after all of them had loaded: ~130 ms later on a warm reload). start.js adopts the worker; the
// events it sends before then are kept and handed over, in order, by adopt(). Then the page
// loads SQLite only to run its first calls once (see the end).

const kept = [];
const keep = (event) => {
  event.preventDefault?.(); // an early error is reported when adopted, not as an uncaught one
  kept.push(event);
};

// opfs-disable: sqlite3.mjs reads this flag from its worker's own URL and then does not install
// its "opfs" VFS, which would start a proxy worker we do not ship (one 404) and hold SQLite's
// start until that failed (~0.3-0.5 s of a warm reload). The library uses opfs-sahpool, which
// needs no proxy. The service worker serves worker scripts whatever their query.
export const retrievalWorker = new Worker('retrieval-worker.js?opfs-disable', { type: 'module', name: 'readingroom-retrieval' });
retrievalWorker.addEventListener('message', keep);
retrievalWorker.addEventListener('error', keep);

/** Call once the worker's own listeners are attached: stops keeping and replays what was kept. */
export function adopt() {
  retrievalWorker.removeEventListener('message', keep);
  retrievalWorker.removeEventListener('error', keep);
  for (const event of kept.splice(0)) {
    retrievalWorker.dispatchEvent(event.type === 'message'
      ? new MessageEvent('message', { data: event.data })
      : new ErrorEvent('error', { message: event.message, filename: event.filename, lineno: event.lineno }));
  }
  return retrievalWorker;
}

// The browser compiles a wasm function when it is first called, and shares compiled code between
// the page and its workers for the same wasm bytes. The worker's first calls into SQLite came on
// its start's critical path (~200-350 ms on a warm reload, its one thread also restoring Python);
// made here first, on the page's otherwise idle thread, the worker finds them compiled (~5-15 ms).
// The page keeps no SQLite of its own afterwards.
import('../sqlite-load.js').then(({ loadSqlite }) => loadSqlite()).then(() => {
  if (globalThis.sqlite3ApiBootstrap) globalThis.sqlite3ApiBootstrap.sqlite3 = undefined;
}).catch((err) => console.warn('Reading Room: compiling SQLite ahead failed (harmless):', err?.message ?? err));
