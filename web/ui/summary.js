// A whole-document answer (Python's Summarised.to_dict(): `summary`): each document's outline
// under its own headings, every point a verbatim sentence with its [n] (cite(n) makes the
// button that shows it and opens the Reader at its place); for a comparison, the points both
// documents make side by side, then what only one of them says. Text only, never HTML.

import { h, headingText } from './dom.js';

function pointItem(p, cite) {
  // a table-only document's point is a table: its header row, and how many rows it has
  const rows = p.rows ? h('span', { class: 'summary-rows', text: ` (${p.rows.toLocaleString('en')} row${p.rows === 1 ? '' : 's'})` }) : null;
  return h('li', { class: p.rows ? 'summary-point summary-table' : 'summary-point', dataset: { n: String(p.n) } },
    h('span', { class: 'summary-text', text: p.text }), rows, ' [', cite(p.n, p), ']');
}

function outlineOf(doc, cite) {
  const parts = [h('h4', { class: 'summary-doc', text: doc.doc_name })];
  if (doc.message) parts.push(h('p', { class: 'summary-note', text: doc.message }));
  for (const section of doc.sections ?? []) {
    const head = headingText(section.heading);
    if (head) parts.push(h('p', { class: 'summary-heading', text: head }));
    parts.push(h('ul', { class: 'summary-points' }, section.points.map((p) => pointItem(p, cite))));
  }
  return h('section', { class: 'summary-block', dataset: { docId: String(doc.doc_id) } }, ...parts);
}

function comparisonOf(summary, cite) {
  const c = summary.comparison;
  const docs = summary.documents ?? [];
  const byN = new Map(docs.flatMap((d) => (d.sections ?? []).flatMap((s) => s.points)).map((p) => [p.n, p]));
  const name = (id) => docs.find((d) => d.doc_id === id)?.doc_name ?? '';
  const cell = (n) => h('td', {}, ...(byN.has(n) ? [h('span', { class: 'summary-text', text: byN.get(n).text }), ' [', cite(n, byN.get(n)), ']'] : []));
  const table = h('table', { class: 'summary-compare' },
    h('thead', {}, h('tr', {}, h('th', { text: name(c.a) }), h('th', { text: name(c.b) }))),
    h('tbody', {}, c.pairs.map((p) => h('tr', { class: 'summary-pair' }, cell(p.a), cell(p.b)))));
  const only = (key, id) => h('section', { class: `summary-only ${key}` },
    h('p', { class: 'summary-heading', text: `Only in ${name(id)}` }),
    c[key].length ? h('ul', { class: 'summary-points' }, c[key].map((n) => pointItem(byN.get(n), cite)))
      : h('p', { class: 'muted', text: 'Nothing: every point is paired above.' }));
  return [h('p', { class: 'summary-heading', text: c.pairs.length ? 'Both say' : 'No point of one is close to a point of the other.' }),
    c.pairs.length ? table : null, only('only_a', c.a), only('only_b', c.b)];
}

/** The outline (or the comparison) as nodes. */
export function renderSummary(answer, cite) {
  const summary = answer.summary ?? {};
  const box = h('div', { class: 'summary', dataset: { kind: answer.kind ?? 'summary' } });
  if (summary.comparison) box.append(...comparisonOf(summary, cite).filter(Boolean));
  else for (const doc of summary.documents ?? []) box.append(outlineOf(doc, cite));
  return box;
}
