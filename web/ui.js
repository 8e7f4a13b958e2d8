// DOM updates for the page. Text from documents and from errors is only ever set with
// textContent, never parsed as HTML.

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** step: 'python' | 'model' | 'ready'; state: 'active' | 'done' | 'error'. */
export function setStep(step, state, detail = '') {
  const item = document.querySelector(`#steps [data-step="${step}"]`);
  if (!item) return;
  item.dataset.state = state;
  item.querySelector('.label').textContent = item.dataset[state === 'done' ? 'doneLabel' : 'label'] ?? '';
  item.querySelector('.detail').textContent = detail;
}

export function setPhase(phase) {
  document.body.dataset.phase = phase; // CSS enables the controls once 'ready'
  $('query').disabled = phase !== 'ready';
  $('query-button').disabled = phase !== 'ready';
}

/** A message the user should read; kind: 'error' | 'warning' | 'info'. Empty text hides it. */
export function showNotice(text, kind = 'error') {
  const notice = $('notice');
  notice.hidden = !text;
  notice.dataset.kind = kind;
  notice.textContent = text;
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
  warning.textContent =
    storage === 'memory'
      ? `Documents are kept in memory only and will be gone when you close this tab${note ? ` (${note})` : ''}.`
      : '';
}

export function showCounts(status) {
  const docs = status?.documents ?? 0;
  const chunks = status?.chunks ?? 0;
  $('counts').textContent = `${docs} document${docs === 1 ? '' : 's'}, ${chunks} passage${chunks === 1 ? '' : 's'} indexed`;
}

/** Python's `mismatch` (or null): the stored index was built by another model or chunker. */
export function showMismatch(mismatch) {
  const box = $('mismatch');
  box.hidden = !mismatch;
  box.textContent = mismatch
    ? `This index was made differently from this app (${mismatch}). Search by words still works; ` +
      'searching by meaning and adding documents need an index made with this app\'s model.'
    : '';
}

export function showActivity(text) {
  $('activity').textContent = text;
}

/** Per-file problems (not UTF-8, empty, wrong type, rejected by Python). */
export function showFileMessages(messages) {
  const list = $('file-messages');
  list.replaceChildren(...messages.map((m) => el('li', `message ${m.kind ?? 'error'}`, m.text)));
}

const REASONS = {
  empty_query: 'Type a question first.',
  no_documents: 'Add a document first, then ask.',
};

export function showResults(result) {
  const list = $('results');
  const rows = result?.results ?? [];
  const summary = $('results-summary');
  if (!rows.length) {
    summary.textContent = REASONS[result?.reason] ?? `No matching passages${result?.reason ? ` (${result.reason})` : ''}.`;
    list.replaceChildren();
    return;
  }
  summary.textContent = `${rows.length} passage${rows.length === 1 ? '' : 's'}`;
  list.replaceChildren(
    ...rows.map((row) => {
      const item = el('li', 'result');
      const head = el('div', 'result-head');
      head.append(el('span', 'doc-name', row.doc_name ?? ''), el('span', 'score', Number(row.score ?? 0).toFixed(3)));
      item.append(head);
      const heading = (row.heading_paths?.[0] ?? []).join(' › ');
      if (heading) item.append(el('div', 'heading', heading));
      item.append(el('p', 'passage', row.text ?? ''));
      return item;
    }),
  );
}
