// The debug view: for the last query, every candidate Python weighed (its `evidence`), the time
// spent per stage, the counts, and the packed context text. Numbers are shown as Python sent
// them, rounded for reading; nothing is recomputed here.

import { $, el } from './dom.js';


const num = (value, digits = 3) => (value === null || value === undefined ? '–' : Number(value).toFixed(digits));
const int = (value) => (value === null || value === undefined ? '–' : String(value));

const QUERY_VECTOR = {
  cache: 'from the cache (asked before)',
  typed_ahead: 'typed ahead (embedded while the question was typed)',
  embedded: 'embedded after Enter',
};

const COLUMNS = [
  ['#', (h, i) => String(i + 1)],
  ['document', (h) => h.doc_name],
  ['chunk', (h) => int(h.chunk_index)],
  ['page', (h) => int(h.page)],
  ['vector rank', (h) => int(h.vector_rank)],
  ['similarity', (h) => num(h.vector_sim)],
  ['lexical rank', (h) => int(h.lexical_rank)],
  ['BM25', (h) => num(h.lexical_score)],
  ['name rank', (h) => int(h.name_rank)],
  ['fused', (h) => num(h.fused, 4)],
  ['boosts', (h) => Object.entries(h.boosts ?? {}).map(([name, f]) => `${name} ×${f}`).join(', ') || '–'],
  ['score', (h) => num(h.score, 4)],
  ['dropped', (h) => h.dropped ?? 'kept'],
];

function table(className, headers, rows) {
  const t = el('table', className);
  const head = el('tr');
  head.append(...headers.map((h) => el('th', '', h)));
  t.append(el('thead'), el('tbody'));
  t.tHead.append(head);
  for (const cells of rows) {
    const tr = el('tr');
    tr.append(...cells.map((c) => el('td', '', c)));
    t.tBodies[0].append(tr);
  }
  return t;
}

/** Renders the debug panel for Python's query result (or clears it for null). */
export function showDebug(result) {
  const panel = $('debug');
  const body = panel.querySelector('.debug-body');
  if (!result) {
    body.replaceChildren(el('p', 'muted', 'Ask something to see how the answer was found.'));
    return;
  }
  const stats = result.stats ?? {};
  const evidence = result.evidence ?? [];
  const parts = [];
  parts.push(el('p', 'debug-query', `Query: ${result.query ?? ''}${result.reason ? ` (reason: ${result.reason})` : ''}`));
  if (stats.terms?.length) parts.push(el('p', 'debug-terms', `Words searched: ${stats.terms.join(', ')}`));
  // Documents the question names by their name's words (names.py): the name leg searched their chunks.
  if (stats.named?.length) {
    parts.push(el('p', 'debug-named', `Documents named: ${stats.named.map((d) => `${d.doc_name ?? d.doc_id} (${d.words.join(', ')})`).join('; ')}`));
  }
  // A large library's names not read yet by the warm-up: the name leg sat this question out.
  if (stats.names_later) parts.push(el('p', 'debug-named', stats.names_later));
  // How the query's syntax was read (syntax.py): said when wrong syntax was read as plain words.
  if (stats.syntax) {
    const { mode, read_as: readAs, note } = stats.syntax;
    parts.push(el('p', 'debug-syntax', `Query read as ${readAs || mode} (syntax: ${mode})${note ? `: ${note}` : ''}`));
  }

  // Words first, meaning after: what the vector leg covered (pending.py's sentence).
  if (stats.meaning?.message) parts.push(el('p', 'debug-meaning', stats.meaning.message));
  // Where the query's vector came from: typed ahead, the cache, or embedded after Enter.
  if (stats.query_vector?.source) parts.push(el('p', 'debug-query-vector', `Query vector: ${QUERY_VECTOR[stats.query_vector.source] ?? stats.query_vector.source}`));

  const timings = el('section', 'debug-timings');
  timings.append(el('h3', '', 'Time per stage (ms)'),
    table('kv timings', ['stage', 'ms'], Object.entries(stats.timings_ms ?? {}).map(([k, v]) => [k, num(v, 1)])));
  const counts = el('section', 'debug-counts');
  counts.append(el('h3', '', 'Counts'),
    table('kv counts', ['what', 'how many'], Object.entries(stats.counts ?? {}).map(([k, v]) => [k, int(v)])));
  const row = el('div', 'debug-row');
  row.append(timings, counts);
  parts.push(row);

  const kept = evidence.filter((h) => !h.dropped).length;
  parts.push(el('h3', '', `Candidates (${evidence.length}, ${kept} kept)`));
  const wrap = el('div', 'table-scroll');
  const rows = table('evidence', COLUMNS.map(([h]) => h), evidence.map((h, i) => COLUMNS.map(([, f]) => f(h, i))));
  rows.tBodies[0].querySelectorAll('tr').forEach((tr, i) => {
    tr.dataset.dropped = evidence[i].dropped ?? 'kept';
    tr.title = (evidence[i].text ?? '').slice(0, 300);
  });
  wrap.append(rows);
  parts.push(wrap);

  const packed = result.packed ?? {};
  parts.push(el('h3', '', `Context (${packed.tokens ?? 0} of ${packed.budget ?? 0} tokens)`));
  parts.push(el('pre', 'debug-context', result.context || '(empty)'));
  body.replaceChildren(...parts);
}
