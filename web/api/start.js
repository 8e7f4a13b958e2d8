// Start-up of the page's library: adopts the workers early.js started, loads Python and
// opens the library (libraryReady), waits for the model (ready), and turns the workers' progress
// events into the page's steps, banners and ingestion panel (as events: api/ imports nothing from
// ui/). library.js, the automation API, calls start() once.

// In the built site the workers' modules (web/workers/) sit at the root, one folder up.
import { RemoteError, rpcClient } from '../rpc.js';
import {
  mark, pageTimes, publicStatus, refreshDocuments, retrieval, showState, started, state, whenNoQuestion, worker,
} from './core.js';
import {
  bindEmbedder, embedderFailedToLoad, embedderReady, embedding, spawnEmbedder, startAnswerHelper,
} from './embedder.js';
import { adopt, retrievalWorker } from './early.js';
import { importMessage, openBundle } from './index-file.js';
import { setupOffline } from './offline.js';
import { askToTakeOver } from './tabs.js';
import { ingestView as ingest, view } from './view.js';


function onProgress(event) {
  if (event?.type !== 'progress') return;
  if (event.stage === 'python') view.setStep('python', 'active', event.status ?? '');
  else if (event.stage === 'model') {
    view.setStep('model', 'active', event.percent !== undefined ? `${event.status} ${event.percent}%` : event.status ?? '');
  } else if (event.stage === 'locked') {
    state.state = 'locked';
    view.showAppState('locked');
    view.showBanner('tab-lock', 'Another tab has Reading Room open, and only one tab at a time can use the ' +
      'library. Use it here instead (the other tab lets go of it), or close the other tab and this one ' +
      'carries on by itself.', [{ label: 'Use here', onClick: askToTakeOver }]);
  } else if (event.stage === 'database') {
    view.showStorage(event.storage, event.storageNote);
  } else if (event.stage === 'import') {
    view.showImportProgress(event, importMessage(event));
  } else if (event.stage === 'numpy') {
    // numpy is imported right after the page is ready (the worker's warm-up): when it was.
    state.timings.retrievalWorker = { ...state.timings.retrievalWorker, ...pageTimes({ numpy: event.at }) };
    helperAfterWarmUp();
  } else if (event.stage === 'meaning') {
    showPending(event.pending);
  } else if (event.event === 'chunks' || event.event === 'document') {
    ingest.event(event);
    // Words first: a document is listed (and found by its words) once stored, before its vectors.
    if (event.event === 'document' && (event.status === 'added' || event.status === 'replaced')) refreshDocuments({ added: event.doc_id });
  }
}

/** Words first, meaning after: which documents are searched by meaning only in part, and why. */
export function showPending(pending) {
  view.showBanner('meaning-pending', pending?.message ?? '');
}

function workerFailed(name) {
  return (event) => {
    event.preventDefault?.();
    fail({ type: 'worker', message: `The ${name} could not start (${event.message || 'script error'}). Reload the page to try again.` });
  };
}

function fail(error) {
  state.state = 'error';
  state.error = { type: error.type ?? 'error', message: error.message ?? String(error) };
  view.setPhase('error');
  showState();
  view.showNotice(state.error.message);
  started.all.reject(new RemoteError(state.error));
  started.library.reject(new RemoteError(state.error));
}

/** Re-throws a start-up failure with a sentence saying what failed and what to do. */
function explain(step, what) {
  return (err) => {
    view.setStep(step, 'error', '');
    throw new RemoteError({
      type: err?.type ?? 'error',
      message: `${what} (${err?.message ?? err}). Reload the page to try again.`,
    });
  };
}

let manifest = null;
bindEmbedder({ state, retrieval, manifest: () => manifest, onProgress });

/**
 * Python and the library are up (the model may still be loading): the documents are drawn and
 * searching by words works from here on; `libraryReady` resolves.
 */
function libraryUp(status) {
  state.storage = status.storage;
  state.storageNote = status.storageNote ?? '';
  state.timings.retrievalWorker = pageTimes(status.workerTimings);
  mark('library');
  if (state.state === 'starting' || state.state === 'locked') state.state = 'words';
  view.setPhase('ready');
  showState();
  view.showNotice('');
  view.showBanner('tab-lock', '');
  view.showStorage(state.storage, state.storageNote);
  view.showCounts(status);
  view.showMismatch(status.mismatch);
  showUnfinished(status.unfinished);
  showPending(status.pending);
  refreshDocuments();
  openBundle(manifest.bundle, status); // not awaited: the app is usable while it opens
  started.library.resolve(publicStatus(status));
}

// The embedder's answer helper (a second model session: a quick answer's sentences on both
// cores) compiles its model on a core of its own. Started at ready, it took the core a first
// question needs (20k chunks, asked at ready: a search 1.51-2.11 s with it, 0.78-1.74 s without;
// a quick answer 3.82-4.46 s with it, 2.43-3.62 s without), so it starts once the worker's
// warm-up has numpy in and no question is in flight (or HELPER_AT_LATEST_MS after ready).
const HELPER_AT_LATEST_MS = 10_000;
let helperAsked = false;
function helperAfterWarmUp(atLatest = false) {
  const numpyIn = state.timings.retrievalWorker?.numpy !== undefined;
  if (helperAsked || state.timings.ready === undefined || !(numpyIn || atLatest)) return;
  helperAsked = true;
  whenNoQuestion(() => {
    mark('answerHelper'); // status().timings says when (tests/browser/test_queries_first.py)
    startAnswerHelper();
  });
}

/** Starts both workers and the page; resolves with the status once Python, the library and the
 * model are up (`ready`), or rejects with a RemoteError saying what failed. */
async function boot() {
  // Workers first: each starts loading its runtime as soon as its script runs, while the page
  // fetches the manifest. Both started earlier still (early.js); these adopt them.
  const first = spawnEmbedder();
  retrievalWorker.addEventListener('error', workerFailed('retrieval worker'));
  worker.rpc = rpcClient(retrievalWorker, onProgress);
  state.retrievalWorker = adopt(retrievalWorker);

  manifest = await (await fetch('build-manifest.json')).json();
  state.version = manifest.version;
  const offline = () => setupOffline(manifest.version, (change) => {
    if ('offlineReady' in change) state.offlineReady = change.offlineReady;
    view.showOffline(change);
    showState();
  });
  // A first visit's service worker fetches, hashes and stores every asset for offline use; begun
  // with the start it took ~1.5-2 s of the cores the start needs (a fresh context on 2 slow cores,
  // 2026-12-01: ready at 6.4-6.9 s with no service worker, 7.5-8.8 s with it). So a page no worker
  // controls yet registers it once the start is over (ready or failed); a controlled page at once.
  const offlineAfterStart = !navigator.serviceWorker?.controller;
  if (!offlineAfterStart) offline();
  const storage = new URLSearchParams(location.search).get('storage') === 'memory' ? 'memory' : 'opfs';
  const { dim, max_tokens, id } = manifest.model;
  state.dim = dim;
  // The retrieval worker asks the embedder for vectors directly, over its own channel.
  const [, status] = await Promise.all([
    first.started.then((info) => {
      mark('model');
      if (first.generation === embedding.generation) embedderReady(info, first.generation);
    }, (err) => {
      // Searching by words works without the model: the banner offers to download it again.
      if (first.generation === embedding.generation) embedderFailedToLoad(err);
    }),
    retrieval(
      'start',
      { embedPort: first.port, wheel: manifest.wheel, model: { id, dim, max_tokens }, storage },
      [first.port],
    ).then((s) => {
      mark('python');
      view.setStep('python', 'done', '');
      libraryUp(s);
      return s;
    }, explain('python', 'Python could not start')),
  ]).finally(() => {
    if (offlineAfterStart) offline();
  });
  if (state.state === 'words') state.state = 'ready';
  mark('ready');
  view.setStep('ready', 'done', `${(state.timings.ready / 1000).toFixed(1)} s`);
  showState();
  helperAfterWarmUp();
  setTimeout(() => helperAfterWarmUp(true), HELPER_AT_LATEST_MS);
  if (state.storage === 'opfs') {
    // Ask the browser not to evict the library under storage pressure (it may say no).
    state.persisted = (await navigator.storage.persisted?.().catch(() => false))
      || ((await navigator.storage.persist?.().catch(() => false)) ?? false);
  }
  view.showPersistence(state.storage, state.persisted);
  return publicStatus(status);
}

/** Documents whose adding started but never finished (the tab closed mid-ingest). */
function showUnfinished(names) {
  if (!names?.length) {
    view.showBanner('unfinished', '');
    return;
  }
  view.showBanner('unfinished', `These files did not finish indexing: ${names.join(', ')} — add them again.`, [{
    label: 'Dismiss',
    onClick: async () => {
      try {
        const out = await retrieval('clearUnfinished');
        if (out?.error) throw out.error;
        view.showBanner('unfinished', '');
      } catch (err) {
        view.showNotice(`The list could not be cleared: ${err.message ?? err}`);
      }
    },
  }]);
}

/** Boots once; `started.all` (window.readingroom.ready) settles with the outcome. */
export function start() {
  boot().then(started.all.resolve, fail);
}
