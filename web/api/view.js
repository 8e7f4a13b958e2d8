// What the library and the embedder tell the page, as events: api/ never imports ui/. Each call
// of `view.<name>(...)` dispatches a 'view' event {name, args} (a function of ui/notices.js or
// ui/sources.js by that name); `ingestView.<step>(...)` an 'ingest' event for the ingestion
// progress panel. ui/bind.js subscribes (app.js imports it before api/library.js, so nothing said
// while the library starts is missed); without a subscriber the events go nowhere.

export const viewEvents = new EventTarget();

function emitter(type, names) {
  return Object.freeze(Object.fromEntries(names.map((name) => [name, (...args) => {
    viewEvents.dispatchEvent(new CustomEvent(type, { detail: { name, args } }));
  }])));
}

export const VIEW_NAMES = Object.freeze([
  'setPhase', 'setStep', 'showActivity', 'showAppState', 'showBanner', 'showCounts', 'showFileMessages',
  'showImportProgress', 'showMismatch', 'showNotice', 'showOffline', 'showPersistence', 'showStorage',
]);
export const view = emitter('view', VIEW_NAMES);

export const INGEST_STEPS = Object.freeze(['begin', 'event', 'onReading', 'end']);
export const ingestView = emitter('ingest', INGEST_STEPS);

let cancelIngest = () => Promise.resolve();
/** The library says how an ingestion is cancelled; the progress panel's Cancel asks for it. */
export function onIngestCancel(fn) {
  cancelIngest = fn;
}
export function requestIngestCancel() {
  return cancelIngest();
}
