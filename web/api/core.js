// What the library's modules share: its state, the retrieval worker's RPC, the promises of
// start-up, the public status, and who hears that the documents changed. library.js starts and
// runs the library; tabs.js keeps one tab at a time; index-file.js opens and saves index files.

import { chatStatus } from '../chat/automation.js';
import { embedding } from './embedder.js';
import { view } from './view.js';

export const state = {
  // starting | locked | words (library open, searching by words works, the model still loading)
  // | ready | error | elsewhere
  state: 'starting',
  offlineReady: false,
  version: null,
  storage: null,
  storageNote: '',
  embedder: null,
  error: null,
  // ms since navigation start: python, model, ready, retrievalWorker: {phase: ms}, answerHelper,
  // firstQuestion and firstAnswer (the first search or question asked, and its result back)
  timings: {},
};
export const mark = (name) => {
  state.timings[name] = Math.round(performance.now());
};

// The retrieval worker's RPC client (rpc.js), set by library.js's boot().
export const worker = { rpc: null };
// Questions and searches in flight: whenNoQuestion(fn) runs fn once none is (start.js starts the
// answer helper so, not while a first question needs the core its model would compile on).
const asking = { count: 0, waiting: [] };
export function whenNoQuestion(fn) {
  if (asking.count === 0) fn();
  else asking.waiting.push(fn);
}
export const retrieval = (op, args, transfer) => {
  const call = worker.rpc(op, args, transfer);
  if (op === 'query' || op === 'ask') {
    const first = state.timings.firstQuestion === undefined;
    if (first) mark('firstQuestion');
    asking.count++;
    const done = () => {
      if (first) mark('firstAnswer');
      asking.count--;
      if (asking.count === 0) for (const fn of asking.waiting.splice(0)) fn();
    };
    call.then(done, done);
  }
  return call;
};

function deferred() {
  const d = {};
  d.promise = new Promise((resolve, reject) => Object.assign(d, { resolve, reject }));
  d.promise.catch(() => {}); // shown on the page; automation sees the rejection through the promise
  return d;
}
// `library`: Python and the library are up (documents listed, searching by words works);
// `all`: the model is up too (or failed to load: then `embedderError` says why).
export const started = { library: deferred(), all: deferred() };
export const libraryReady = started.library.promise;

// Whoever shows the library (the Sources pane, the search view) hears when its documents change:
// fn({deleted?: docId, added?: docId}) for one document deleted, or added or replaced (the one
// stored under that name now), fn({}) when any number may have changed (an import, a bundle);
// it may return a promise that settles once the change is shown.
const changeListeners = new Set();
export function onLibraryChange(fn) {
  changeListeners.add(fn);
}

/** Tells the listeners; settles when each has shown the change (so "ready" is said after the list). */
export function refreshDocuments(change = {}) {
  if (!libraryOpen()) return Promise.resolve();
  return Promise.all([...changeListeners].map((fn) => fn(change))).then(() => undefined, () => undefined);
}

/** The library is open: its documents can be listed and searched (by words at least). */
export function libraryOpen() {
  return state.state === 'words' || state.state === 'ready';
}

// What searching can do now, a typed state for status().searchMode (searchNote says it in words;
// Python's own status().search is about its in-memory search legs, a different thing):
// 'starting' (nothing open yet), 'words' (the model is loading: searching by words works now; a
// search by meaning waits for the model), 'hybrid', 'words_only' (the model could not load).
const SEARCH_NOTES = {
  words: 'Meaning search in a moment: the model is still loading. Searching by words works now; a search by meaning waits for the model.',
  words_only: 'Searching by words only: the embedding model is not available.',
};
function searchState() {
  if (!libraryOpen()) return 'starting';
  if (state.embedder) return 'hybrid';
  return state.embedderError ? 'words_only' : 'words';
}

/** Header state: warming up, ready, ready offline, locked, error. */
export function showState() {
  if (state.state === 'ready') view.showAppState(state.offlineReady ? 'offline' : 'ready');
  else view.showAppState(state.state);
}

/** A worker's {phase: epoch ms} as ms since this page's navigation started. */
export function pageTimes(epochTimes = {}) {
  return Object.fromEntries(Object.entries(epochTimes).map(([k, t]) => [k, Math.round(t - performance.timeOrigin)]));
}

export function publicStatus(pythonStatus = {}) {
  return {
    ...pythonStatus,
    state: state.state,
    offlineReady: state.offlineReady,
    version: state.version,
    embedder: state.embedder,
    crossOriginIsolated: self.crossOriginIsolated === true,
    embedThreads: state.embedder ? state.embedder.threads * (state.embedder.workers ?? 1) : null,
    ...(state.embedderError ? { embedderError: state.embedderError } : {}),
    embedderRestarts: embedding.restarts,
    storageNote: state.storageNote,
    searchMode: searchState(),
    searchNote: SEARCH_NOTES[searchState()] ?? '',
    timings: state.timings,
    persisted: state.persisted ?? false,
    chat: chatStatus(),
    ...(state.error ? { error: state.error } : {}),
  };
}
