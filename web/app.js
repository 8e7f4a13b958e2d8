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
/** Re-reads documents() into the Sources pane and the intro (one read at a time, the latest wins). */
function refreshDocuments() {
  const run = async () => {
    const docs = await readingroom.documents();
    if (!Array.isArray(docs)) return;
    showDocuments(docs, removeDocument);
    showIntro(docs);
  };
  documentsRefresh = (documentsRefresh ?? Promise.resolve()).then(run, run).catch((err) => {
    showNotice(`The document list could not be read: ${err.message ?? err}`);
  });
  return documentsRefresh;
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
  return refreshDocuments();
});
onScopeChange(() => searchAgain(readingroom, contextOf));
onRemoteChange(() => searchAgain(readingroom, contextOf));
