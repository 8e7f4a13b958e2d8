// Page entry: wires the library (api/library.js, which starts the workers) to the UI parts in ui/
// and puts the automation API on window.readingroom (documented in api/library.js).

import './chat/csp.js'; // first: narrows connect-src before anything connects
import './ui/bind.js'; // before the library starts: the UI hears everything it says (api/view.js)
import { contextOf, onLibraryChange, readingroom } from './api/library.js';
import { problemText, wireAdding } from './ui/adding.js';
import { wireComposer } from './ui/composer.js';
import { mountConversation, showIntro } from './ui/conversation.js';
import { $ } from './ui/dom.js';
import { wireLayout } from './ui/layout.js';
import { showNotice } from './ui/notices.js';
import { closeReader } from './ui/reader.js';
import { search, searchAgain, wireDebug } from './ui/search.js';
import { wireTheme } from './ui/settings.js';
import { onScopeChange, showActivity, showDocuments, wireSources } from './ui/sources.js';
import { onRemoteChange, remoteApi, wireRemote } from './ui/remote.js';

window.readingroom = Object.freeze({ ...readingroom, remote: remoteApi }); // remote: ui/remote.js

let documentsRefresh = null;
let listed = null; // the documents as last shown, by name (documents()'s order)
/**
 * Shows a change of the library in the Sources pane and the intro, one change at a time in the
 * order they came. One document added, replaced or deleted changes that row only: at a million
 * passages the whole list (377,863 documents) took 10-13 s to read again after every add, and
 * the add's reply and every status() waited behind it. Anything else reads the whole list.
 */
function refreshDocuments(change = {}) {
  const run = async () => {
    let docs;
    if (listed && change.deleted !== undefined) {
      docs = listed.filter((d) => d.id !== change.deleted);
    } else if (listed && change.added !== undefined && change.added !== null) {
      const fresh = await readingroom.documents([change.added]);
      if (!Array.isArray(fresh)) return;
      const names = new Set(fresh.map((d) => d.name));
      docs = listed.filter((d) => d.id !== change.added && !names.has(d.name));
      for (const doc of fresh) docs.splice(sortedIndex(docs, doc.name), 0, doc);
    } else {
      docs = await readAll();
    }
    if (!Array.isArray(docs)) return;
    listed = docs;
    showDocuments(docs, removeDocument, { more: docs.length > FIRST_PAGE });
    showIntro(docs);
  };
  documentsRefresh = (documentsRefresh ?? Promise.resolve()).then(run, run).catch((err) => {
    listed = null; // read it whole next time
    showNotice(`The document list could not be read: ${err.message ?? err}`);
  });
  return documentsRefresh;
}

// The whole list is read a page at a time, by name: at a million passages (377,862 documents) one
// read took 30 s in the page (load 8-11), and a question asked after a reload waited behind it.
// The first page is shown at once, the others as they come; a question goes between two pages.
const FIRST_PAGE = 1000;
const PAGE = 5000;

/** Every document, by name; the pages before the last are shown as they arrive. */
async function readAll() {
  let docs = [];
  let limit = FIRST_PAGE;
  for (;;) {
    const page = await readingroom.documents(null, { after: docs.length ? docs[docs.length - 1].name : null, limit });
    if (!Array.isArray(page) && !docs.length) return page; // Python's error reply
    if (!Array.isArray(page)) throw new Error(`${page?.error?.message ?? 'no reply'} (after ${docs.length} documents)`);
    docs = docs.concat(page);
    if (page.length < limit) return docs;
    showDocuments(docs, removeDocument, { complete: false, more: limit !== FIRST_PAGE });
    if (limit === FIRST_PAGE) showIntro(docs);
    limit = PAGE;
  }
}

/** Where a name goes in a list sorted as SQLite sorts names (by their UTF-8 bytes). */
function sortedIndex(docs, name) {
  const key = utf8(name);
  let lo = 0;
  let hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareBytes(utf8(docs[mid].name), key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const encoder = new TextEncoder();
const utf8 = (s) => encoder.encode(s);
function compareBytes(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

async function removeDocument(doc) {
  try {
    const out = await readingroom.deleteDocument(doc.id);
    if (out.error) throw out.error;
    showActivity(`Deleted ${doc.name}.`);
  } catch (err) {
    showNotice(problemText(err));
    refreshDocuments();
  }
}

function wireReindex() {
  $('reindex').addEventListener('click', async (e) => {
    const button = e.currentTarget;
    const message = $('reindex-message');
    button.disabled = true;
    message.textContent = 'Re-indexing…';
    try {
      const out = await readingroom.reindex();
      if (out.error) throw out.error;
      message.textContent = 'Re-indexed with this app\'s model.';
    } catch (err) {
      message.textContent = err?.type === 'bad_request'
        ? 'Re-indexing is not available in this version yet. Searching by words still works. To ' +
          'start a new library with this app\'s model, clear this site\'s data in the browser\'s ' +
          'settings, then add your files again.'
        : `Re-indexing failed: ${problemText(err)}`;
    } finally {
      button.disabled = false;
    }
  });
}

const runSearch = (text) => search(readingroom, contextOf, text);

wireTheme();
wireLayout();
wireSources();
wireRemote();
wireAdding(readingroom);
wireDebug();
wireReindex();
$('reader-close').addEventListener('click', closeReader);
mountConversation(readingroom, contextOf, runSearch);
wireComposer({ typeAhead: (text) => readingroom.typeAhead(text) });
onLibraryChange((change) => {
  if (change.deleted !== undefined) searchAgain(readingroom, contextOf, change);
  return refreshDocuments(change);
});
onScopeChange(() => searchAgain(readingroom, contextOf));
onRemoteChange(() => searchAgain(readingroom, contextOf));
