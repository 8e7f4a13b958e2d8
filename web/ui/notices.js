// The notice area and the header: start-up progress, the app's state, the one notice line, the
// banners that carry their own remedy (second tab, embedder, unfinished files, mismatch), offline
// and storage warnings. Text from documents and errors is set with textContent only.

import { $, el } from './dom.js';


// Start-up progress is one slim bar: Python and the model each fill part of it; its label says
// what is loading. A step that fails leaves the bar and says so in the header badge.
const STEP_LABELS = {
  python: { active: 'Loading Python', done: 'Python loaded', error: 'Python did not start' },
  model: { active: 'Loading model', done: 'Model loaded', error: 'Model not loaded' },
  ready: { active: 'Starting', done: 'Ready', error: 'Could not start' },
};
const steps = { python: 0, model: 0, ready: 0 }; // 0..1 each

/** step: 'python' | 'model' | 'ready'; state: 'active' | 'done' | 'error'; detail may hold "NN%". */
export function setStep(step, state, detail = '') {
  const bar = $('boot-bar');
  if (!bar) return;
  const percent = /(\d+)%/.exec(detail);
  steps[step] = state === 'done' ? 1 : percent ? Number(percent[1]) / 100 : steps[step];
  bar.value = Math.round(45 * steps.python + 45 * steps.model + 10 * steps.ready);
  const label = `${STEP_LABELS[step]?.[state] ?? step}${detail ? ` (${detail})` : ''}`;
  bar.setAttribute('aria-valuetext', label);
  bar.title = label;
  bar.dataset[step] = state;
  $('boot-label').textContent = label;
  $('boot').hidden = step === 'ready' && state === 'done';
}

export function setPhase(phase) {
  document.body.dataset.phase = phase; // CSS enables the controls once 'ready'
  for (const id of ['query', 'query-button']) {
    const control = $(id);
    if (control) control.disabled = phase !== 'ready';
  }
}

const APP_STATES = {
  starting: 'Warming up…',
  locked: 'Waiting for another tab',
  elsewhere: 'Open in another tab',
  words: 'Ready · meaning search in a moment',
  ready: 'Ready',
  offline: 'Ready offline',
  error: 'Could not start',
};

/** The state in the header: starting | locked | words (searching by words; the model loading) | ready | offline | error. */
export function showAppState(state) {
  const badge = $('app-state');
  badge.dataset.state = state;
  badge.textContent = APP_STATES[state] ?? state;
}

/** A message the user should read; kind: 'error' | 'warning' | 'info'. Empty text hides it. */
export function showNotice(text, kind = 'error') {
  const notice = $('notice');
  notice.hidden = !text;
  notice.dataset.kind = kind;
  notice.textContent = text;
}

/**
 * A banner (#tab-lock, #embedder-problem, #unfinished) with its message and buttons; each action
 * is {label, onClick}. Empty text hides it.
 */
export function showBanner(id, text, actions = []) {
  const box = $(id);
  box.hidden = !text;
  box.querySelector('.text').textContent = text ?? '';
  box.querySelector('.actions').replaceChildren(...(text ? actions : []).map(({ label, onClick }) => {
    const button = el('button', '', label);
    button.type = 'button';
    button.addEventListener('click', () => {
      button.disabled = true;
      Promise.resolve(onClick()).finally(() => {
        button.disabled = false;
      });
    });
    return button;
  }));
}

export function showOffline({ offlineReady, progress, updateReady, error }) {
  const badge = $('offline');
  if (updateReady) {
    badge.dataset.state = 'update';
    badge.textContent = 'A new version is ready: reload the page to use it.';
  } else if (offlineReady) {
    badge.dataset.state = 'ready';
    badge.textContent = 'Ready offline: this app now works without a network connection.';
  } else if (error) {
    badge.dataset.state = 'error';
    badge.textContent = `Not available offline: ${error}`;
  } else if (progress) {
    badge.dataset.state = 'saving';
    badge.textContent = `Saving for offline use… ${progress.done} of ${progress.total} files`;
  }
}

export function showStorage(storage, note) {
  const warning = $('storage-warning');
  warning.hidden = storage !== 'memory';
  if (storage === 'memory' && storageFullMessage({ message: note })) {
    // The saved library is still there: the browser would not open it without room to write.
    warning.textContent = 'Storage is full, so your saved library could not be opened. Documents added ' +
      'now are kept in memory only and will be gone when you close this tab. Free space on this device ' +
      '(or delete documents once it opens), then reload the page to open your library again.';
    return;
  }
  warning.textContent =
    storage === 'memory'
      ? 'Storage unavailable: documents are kept in memory only and will be gone when you close ' +
        `this tab${note ? ` (${note})` : ''}. Keep your files to add them again.`
      : '';
}

/** Storage full (a QuotaExceededError, or SQLite's "database or disk is full"), or null. */
export function storageFullMessage(error) {
  const text = `${error?.type ?? ''} ${error?.name ?? ''} ${error?.message ?? ''}`;
  if (!/quota|disk is full|database or disk|SQLITE_FULL|storage is full/i.test(text)) return null;
  return 'Storage is full: the browser will not give this site more space, so nothing more was ' +
    'saved. Delete documents you no longer need, or free space on this device, then try again.';
}

const PROBE_BYTES = 2 * 1024 * 1024; // about what the next write of a document needs at least

/**
 * Whether the site's storage is used up. A write that fails for want of space reaches Python as
 * a plain SQLite error, so after a storage error the page asks: does the estimate say there is
 * no room, or does the browser refuse a small write of its own (QuotaExceededError)?
 */
export async function storageLooksFull() {
  const estimate = await navigator.storage?.estimate?.().catch(() => null);
  if (estimate?.quota && estimate.quota - (estimate.usage ?? 0) < PROBE_BYTES) return true;
  if (typeof navigator.storage?.getDirectory !== 'function') return false;
  const name = 'readingroom-space-probe';
  try {
    const root = await navigator.storage.getDirectory();
    const file = await root.getFileHandle(name, { create: true });
    try {
      const out = await file.createWritable();
      try {
        await out.write(new Uint8Array(PROBE_BYTES));
        await out.close();
      } catch (err) {
        await out.abort().catch(() => {});
        throw err;
      }
    } finally {
      await root.removeEntry(name).catch(() => {});
    }
    return false;
  } catch (err) {
    return err?.name === 'QuotaExceededError';
  }
}

/** Python's `mismatch` (or null): the stored index was built by another model or chunker. */
export function showMismatch(mismatch) {
  const box = $('mismatch');
  box.hidden = !mismatch;
  box.querySelector('.text').textContent = mismatch
    ? `This library was indexed differently from this app (${mismatch}). Searching by words still ` +
      'works; searching by meaning and adding documents need it re-indexed with this app\'s model.'
    : '';
}
