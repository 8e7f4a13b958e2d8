// Search mode: results as cards with the query's words highlighted; a card opens the Reader.
// Everything from a document is set as text nodes; <mark> elements are made with createElement,
// never from HTML.

import { $, el, headingText, plural } from './dom.js';
import { closeReader } from './reader.js';

// --- highlighting -----------------------------------------------------------------------------

const WORD = /[\p{L}\p{M}\p{N}_]+/gu; // Python's \w, which cut the query into its terms
const SUFFIXES = ['ings', 'ing', 'ers', 'er', 'es', 'ed', 'ly', 's'];

/** Case- and accent-insensitive form (the index removes diacritics too). */
const fold = (word) => word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** A light stem, for display only: "genes" and "gene" highlight each other. */
function stem(word) {
  for (const suffix of SUFFIXES) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

/**
 * A fragment of `text` with every word matching one of `terms` (Python's stats.terms) in a
 * <mark>. Built from text nodes only, so markup in the text stays text.
 */
export function highlighted(text, terms = []) {
  const fragment = document.createDocumentFragment();
  const wanted = new Set((terms ?? []).map((t) => stem(fold(String(t)))).filter(Boolean));
  const source = String(text ?? '');
  let at = 0;
  if (wanted.size) {
    for (const match of source.matchAll(WORD)) {
      if (!wanted.has(stem(fold(match[0])))) continue;
      if (match.index > at) fragment.append(document.createTextNode(source.slice(at, match.index)));
      fragment.append(el('mark', '', match[0]));
      at = match.index + match[0].length;
    }
  }
  if (at < source.length) fragment.append(document.createTextNode(source.slice(at)));
  return fragment;
}

// --- cards ------------------------------------------------------------------------------------

const REASONS = {
  empty_query: 'Type a question first.',
  no_documents: 'Add a document first, then ask.',
};
const PARTIAL = {
  model_mismatch: 'Searched by words only: the library was indexed with another model (re-index to search by meaning).',
  embed_failed: 'Searched by words only: the question could not be turned into a vector.',
  offline: 'Searched by words only: the model is not available offline.',
};

const formatScore = (score) => Number(score ?? 0).toPrecision(3);

function card(row, index, terms) {
  const item = el('li', 'result');
  item.tabIndex = 0;
  item.dataset.index = String(index);
  item.dataset.docId = String(row.doc_id);
  item.setAttribute('role', 'button');
  item.setAttribute('aria-label', `Show passage ${index + 1} from ${row.doc_name} in context`);
  const head = el('div', 'result-head');
  const where = el('span', 'where');
  where.append(el('span', 'doc-name', row.doc_name ?? ''), el('span', 'doc-type', row.doc_type ?? ''));
  if (row.page !== null && row.page !== undefined) where.append(el('span', 'page', `page ${row.page}`));
  head.append(where, el('span', 'score', formatScore(row.score)));
  head.lastChild.title = 'Score (fused, after boosts)';
  item.append(head);
  const heading = headingText(row.heading_paths?.[0]);
  if (heading) item.append(el('div', 'heading', heading));
  const passage = el('p', 'passage');
  passage.append(highlighted(row.text ?? '', terms));
  item.append(passage);
  return item;
}

/**
 * Shows Python's result as cards; onOpen(index) runs when a card is clicked or activated with
 * the keyboard.
 */
export function showResults(result, onOpen = () => {}) {
  const list = $('results');
  const rows = result?.results ?? [];
  const summary = $('results-summary');
  const terms = result?.stats?.terms ?? [];
  closeReader();
  if (!rows.length) {
    summary.textContent = result?.message ?? REASONS[result?.reason] ?? `No matching passages${result?.reason ? ` (${result.reason})` : ''}.`;
    list.replaceChildren();
    return;
  }
  const docs = new Set(rows.map((r) => r.doc_id)).size;
  summary.textContent = `${plural(rows.length, 'passage')} from ${plural(docs, 'document')}`;
  if (PARTIAL[result.reason]) summary.textContent += `. ${PARTIAL[result.reason]}`;
  // Words first, meaning after: some passages were searched by their words only (pending.py).
  if (result.stats?.meaning?.message) summary.textContent += ` ${result.stats.meaning.message}`;
  list.replaceChildren(...rows.map((row, i) => card(row, i, terms)));
  list.onclick = (e) => {
    const item = e.target.closest?.('.result');
    if (item) onOpen(Number(item.dataset.index));
  };
  list.onkeydown = (e) => {
    const item = e.target.closest?.('.result');
    if (item && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      onOpen(Number(item.dataset.index));
    }
  };
}

/** Removes the cards of a deleted document at once (the query then runs again). */
export function dropResultsOf(docId) {
  for (const item of $('results').querySelectorAll('.result')) {
    if (item.dataset.docId === String(docId)) item.remove();
  }
  if ($('reader').dataset.docId === String(docId)) closeReader();
}
