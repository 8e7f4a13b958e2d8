// Search mode: the box's text goes to query() and the passages come back as cards (no answer).
// The cards on show always answer the latest search; an older one arriving late is dropped.

import { $ } from './dom.js';
import { showDebug } from './debug.js';
import { showNotice } from './notices.js';
import { openReader } from './reader.js';
import { dropResultsOf, showResults } from './results.js';
import { currentFilters } from './sources.js';
import { usingRemote } from './remote.js';
import { remoteQuery } from '../api/remote.js';

let searches = 0;
let lastSearch = null; // {text, result} of the last search made from the page

export async function search(api, contextOf, text) {
  const options = {};
  const remote = usingRemote();
  const filters = remote ? {} : currentFilters();
  if (Object.keys(filters).length) options.filters = filters;
  const summary = $('results-summary');
  const results = $('results');
  const mine = ++searches;
  summary.textContent = 'Searching…';
  results.setAttribute('aria-busy', 'true');
  try {
    const result = remote ? await remoteQuery(text, options) : await api.query(text, options);
    if (mine !== searches) return; // a newer search replaced this one: its answer is on the way
    if (result.error) {
      showNotice(result.error.message);
      summary.textContent = '';
      return;
    }
    showNotice('');
    lastSearch = { text, result };
    showResults(result, (i) => openReader(result, i, result.remote ? null : contextOf));
    if ($('debug-toggle').checked) showDebug(result);
  } catch (err) {
    if (mine === searches) showNotice(err.message ?? String(err));
  } finally {
    if (mine === searches) {
      results.dataset.query = text; // what the cards answer (tests wait on it)
      results.setAttribute('aria-busy', 'false');
    }
  }
}

/** The library changed (a document deleted, the scope changed): the last search runs again. */
export function searchAgain(api, contextOf, { deleted } = {}) {
  if (deleted !== undefined) dropResultsOf(deleted);
  if (lastSearch) search(api, contextOf, lastSearch.text);
}

export function wireDebug() {
  const toggle = $('debug-toggle');
  toggle.addEventListener('change', () => {
    $('debug').hidden = !toggle.checked;
    if (toggle.checked) showDebug(lastSearch?.result ?? null);
  });
}
