// The Sources pane: the stored documents as compact rows (grouped by folder, so the bundled set
// folds away), a filter box, a checkbox per document that sets the scope questions are asked in,
// the ingestion progress, counts, storage and import progress. Names and types come from
// Python's documents(); all of it is set as text.

import { $, el, formatBytes, h, plural } from './dom.js';

// One formatter for every row: toLocaleString builds a new one per call, which costs most of
// the time of showing a few thousand documents.
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function formatDate(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso ?? '') : dateFormat.format(date);
}

// --- the scope ----------------------------------------------------------------------------------

let docs = []; // Python's documents(), as last shown
// False while a large library's list is still being read, a page at a time (app.js): the scope
// cannot be changed then, since "every document but this one" needs every document's id.
let complete = true;
let scope = null; // null: every document; otherwise the Set of doc ids asked
const scopeListeners = new Set();

const inScope = (id) => scope === null || scope.has(id);

let summariseHandler = () => {};

/** fn([{id, name}]) is called by a row's Summarise action (conversation.js answers it). */
export function onSummarise(fn) {
  summariseHandler = fn;
}

/** Called with no arguments whenever the scope changes. */
export function onScopeChange(fn) {
  scopeListeners.add(fn);
}

function setScope(next) {
  scope = complete && next !== null && next.size === docs.length && docs.every((d) => next.has(d.id)) ? null : next;
  for (const box of document.querySelectorAll('#document-list input.pick')) {
    box.checked = inScope(Number(box.closest('.doc-row').dataset.docId));
  }
  showScope();
  for (const fn of scopeListeners) fn();
}

/** options.filters for the ticked documents: {} when every document is asked. */
export function currentFilters() {
  return scope === null ? {} : { doc_ids: [...scope] };
}

/** "Asking all 79 documents" / "Asking 3 of 79 documents" / "No document ticked". */
export function scopeText() {
  if (!docs.length) return 'No documents yet';
  if (scope === null && !complete) return 'Asking all your documents';
  if (scope === null) return docs.length === 1 ? 'Asking your 1 document' : `Asking all ${docs.length} documents`;
  if (!scope.size) return 'No document ticked: tick the ones to ask';
  if (!complete) return `Asking ${plural(scope.size, 'document')}`;
  return `Asking ${scope.size} of ${plural(docs.length, 'document')}`;
}

function showScope() {
  for (const node of document.querySelectorAll('[data-scope-text]')) node.textContent = scopeText();
}

/** Documents whose name contains `text` (case-insensitive), for the box's # suggestions. */
export function matchDocuments(text, limit = 8) {
  const needle = text.toLowerCase();
  return docs.filter((d) => d.name.toLowerCase().includes(needle)).slice(0, limit);
}

/** Asks only these documents (the box's #name), or every document for null. */
export function scopeTo(ids) {
  setScope(ids === null ? null : new Set(ids));
}

export const documentName = (id) => docs.find((d) => d.id === id)?.name ?? null;

// --- the list -----------------------------------------------------------------------------------

const folderOf = (name) => (name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '');

// The document whose Delete was clicked once ("Delete?" for 4 s), and those being deleted: kept
// here, not in the buttons, because the list is drawn again whenever the library changes (a
// document's vectors landing, another tab's add), and a second click must still delete.
let armed = { id: null, timer: null };
const deleting = new Set();

function disarm() {
  clearTimeout(armed.timer);
  armed = { id: null, timer: null };
  for (const button of document.querySelectorAll('#document-list button.delete.armed')) {
    button.classList.remove('armed');
    if (!button.disabled) button.textContent = 'Delete';
  }
}

function row(doc, folder, onDelete) {
  const short = folder ? doc.name.slice(folder.length + 1) : doc.name;
  const pick = h('input', {
    type: 'checkbox', class: 'pick', checked: inScope(doc.id), 'aria-label': `Ask ${doc.name}`, disabled: !complete,
  });
  pick.addEventListener('change', () => {
    const next = new Set(scope ?? docs.map((d) => d.id));
    if (pick.checked) next.add(doc.id);
    else next.delete(doc.id);
    setScope(next);
  });
  const asking = armed.id === doc.id;
  const remove = h('button', {
    type: 'button', class: asking ? 'delete armed' : 'delete', 'aria-label': `Delete ${doc.name}`,
    text: deleting.has(doc.id) ? 'Deleting…' : asking ? 'Delete?' : 'Delete', disabled: deleting.has(doc.id),
  });
  remove.addEventListener('click', () => {
    if (armed.id !== doc.id) {
      disarm();
      armed = { id: doc.id, timer: setTimeout(disarm, 4000) };
      remove.textContent = 'Delete?';
      remove.classList.add('armed');
      return;
    }
    disarm();
    deleting.add(doc.id);
    remove.disabled = true;
    remove.textContent = 'Deleting…';
    Promise.resolve(onDelete(doc)).finally(() => deleting.delete(doc.id));
  });
  const summarise = h('button', {
    type: 'button', class: 'summarise quiet', text: 'Summarise', 'aria-label': `Summarise ${doc.name}`,
    onclick: () => summariseHandler([{ id: doc.id, name: doc.name }]),
  });
  return h('li', { class: 'doc-row', dataset: { docId: String(doc.id), name: doc.name } },
    pick,
    h('div', { class: 'doc-main' },
      h('span', { class: 'name', text: short, title: doc.name }),
      h('span', { class: 'doc-meta' },
        h('span', { class: 'type', text: doc.doc_type }), ' · ',
        h('span', { class: 'chunks', text: String(doc.chunks) }), doc.chunks === 1 ? ' passage · ' : ' passages · ',
        h('span', { class: 'size', text: formatBytes(doc.size) }), ' · ',
        h('span', { class: 'status', text: 'indexed' }), ' ',
        h('time', { class: 'added', text: formatDate(doc.added_at), datetime: doc.added_at }))),
    h('span', { class: 'doc-actions' }, summarise, remove));
}

// At most this many rows are in the page at once (more with "Show more"): a row per document
// for a library of 37,786 documents kept the main thread busy for many seconds after an import,
// and every answer and click waited behind it. The filter works on the data, not on the rows,
// so any document is a few keystrokes away.
const ROW_LIMIT = 300;
let limit = ROW_LIMIT;
let onDeleteRow = () => {};

const needle = () => ($('doc-filter')?.value ?? '').trim().toLowerCase();
const matching = () => {
  const n = needle();
  return n ? docs.filter((d) => `${d.name} ${d.doc_type}`.toLowerCase().includes(n)) : docs;
};

/**
 * Rows grouped by folder: documents without one first, then a collapsible group per folder.
 * `complete` false: the list's first pages only, more to come (`more`: a page added to what is
 * shown, which keeps "Show more" where the person left it).
 */
export function showDocuments(list, onDelete, { complete: whole = true, more = false } = {}) {
  docs = list;
  onDeleteRow = onDelete;
  complete = whole;
  if (!more) limit = ROW_LIMIT;
  if (scope !== null && complete) {
    const ids = new Set(docs.map((d) => d.id));
    scope = new Set([...scope].filter((id) => ids.has(id)));
  }
  $('no-documents').hidden = docs.length > 0;
  $('scope-tools').hidden = docs.length === 0;
  for (const id of ['select-all', 'select-none']) $(id).disabled = !complete;
  showScope();
  render();
}

/** The rows of the documents the filter matches, up to the limit, in their folder groups. */
function render() {
  const box = $('document-list');
  const open = new Set([...box.querySelectorAll('details.doc-group[open]')].map((d) => d.dataset.folder));
  const known = new Set([...box.querySelectorAll('details.doc-group')].map((d) => d.dataset.folder));
  const filtering = Boolean(needle());
  const found = matching();
  const folders = new Map();
  for (const doc of found) {
    const folder = folderOf(doc.name);
    if (!folders.has(folder)) folders.set(folder, []);
    folders.get(folder).push(doc);
  }
  const parts = [];
  let room = limit;
  for (const [folder, members] of [...folders].sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))) {
    const rows = h('ul', { class: 'doc-rows' }, ...members.slice(0, Math.max(0, room)).map((d) => row(d, folder, onDeleteRow)));
    room -= members.length;
    if (!folder) {
      parts.push(rows);
      continue;
    }
    const group = h('details', { class: 'doc-group', dataset: { folder } },
      h('summary', {}, h('span', { class: 'group-name', text: `${folder}/` }), ' ',
        h('span', { class: 'group-count', text: plural(members.length, 'document') })),
      rows);
    group.open = filtering || (known.has(folder) ? open.has(folder) : folders.size === 1 || members.length <= 12);
    parts.push(group);
  }
  if (found.length > limit) {
    const more = h('button', { type: 'button', class: 'quiet', text: `Show ${Math.min(ROW_LIMIT, found.length - limit)} more` });
    more.addEventListener('click', () => {
      limit += ROW_LIMIT;
      render();
    });
    parts.push(h('p', { class: 'doc-more' },
      `Showing ${limit.toLocaleString()} of ${found.length.toLocaleString()} ${filtering ? 'matching documents' : 'documents'}`
      + `${complete ? '' : ' listed so far'}; type in the filter to find others. `, more));
  } else if (filtering && !found.length && complete) {
    parts.push(h('p', { class: 'doc-more', text: 'No document matches the filter.' }));
  }
  if (!complete) {
    parts.push(h('p', { class: 'doc-more', role: 'status', dataset: { listing: '' },
      text: `Listing your documents: ${docs.length.toLocaleString()} so far. Questions are answered meanwhile.` }));
  }
  box.replaceChildren(...parts);
}

/** Ids of every document the filter matches (shown or past the limit). */
const shownIds = () => matching().map((d) => d.id);

/** The filter box, Select all and Clear (each acts on the rows the filter shows). */
export function wireSources() {
  $('doc-filter').addEventListener('input', () => {
    limit = ROW_LIMIT;
    render();
  });
  $('select-all').addEventListener('click', () => {
    const next = new Set(scope ?? docs.map((d) => d.id));
    for (const id of shownIds()) next.add(id);
    setScope(next);
  });
  $('select-none').addEventListener('click', () => {
    const next = new Set(scope ?? docs.map((d) => d.id));
    for (const id of shownIds()) next.delete(id);
    setScope(next);
  });
}

// --- counts, messages, import progress ------------------------------------------------------

let countsShown = 0; // the latest showCounts call: an older one's storage estimate is dropped

/** Documents and passages in the library, plus how much of the site's storage is used. */
export async function showCounts(status) {
  const mine = ++countsShown;
  const documents = status?.documents ?? 0;
  const chunks = status?.chunks ?? 0;
  const counts = $('counts');
  const text = `${plural(documents, 'document')}, ${plural(chunks, 'passage')} indexed`;
  counts.textContent = text;
  if (status?.storage !== 'opfs') return;
  const estimate = await navigator.storage?.estimate?.().catch(() => null);
  if (estimate?.quota && mine === countsShown) {
    counts.textContent = `${text} · ${formatBytes(estimate.usage)} of ${formatBytes(estimate.quota)} storage used`;
  }
}

/** Whether the browser agreed to keep the library under storage pressure (persist()). */
export function showPersistence(storage, persisted) {
  const line = $('persistence');
  line.dataset.state = storage !== 'opfs' ? 'memory' : persisted ? 'kept' : 'not-kept';
  line.textContent = storage !== 'opfs'
    ? 'Kept in memory only: download the library to keep a copy.'
    : persisted
      ? 'Kept: the browser agreed not to clear your library when space runs low.'
      : 'Not guaranteed: the browser may clear your library when space runs low. Download a copy to be safe.';
}

export function showActivity(text) {
  $('activity').textContent = text;
}

/** Per-file problems (not UTF-8, empty, wrong type, rejected by Python). */
export function showFileMessages(messages) {
  const list = $('file-messages');
  list.replaceChildren(...messages.map((m) => el('li', `message ${m.kind ?? 'error'}`, m.text)));
}

/**
 * The index import's progress bar: event {phase, bytes, total} from the worker (null hides it).
 * With a known size the bar fills; without one (or while checking) it is indeterminate.
 */
export function showImportProgress(event, text = '') {
  const box = $('import');
  box.hidden = !event;
  if (!event) return;
  const bar = $('import-bar');
  if (event.phase === 'reading' && event.total) {
    bar.max = event.total;
    bar.value = Math.min(event.bytes ?? 0, event.total);
  } else {
    bar.removeAttribute('value'); // indeterminate
  }
  $('import-text').textContent = text;
}
