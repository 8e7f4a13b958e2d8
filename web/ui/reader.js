// The Reader pane: a passage with its heading path, page and the text around it in its document;
// for a quick-answer citation, the sentence quoted is highlighted inside it. Text only.

import { $, el, headingText, placeTail } from './dom.js';
import { highlighted } from './results.js';
import { closeReaderPane, openReaderPane } from './layout.js';

/**
 * The neighbouring chunks of a span, when this query's evidence holds them (same document, same
 * page, the chunk just before / after), cut by character offsets so no text repeats: every chunk
 * is an exact slice of its document, as merge.py relies on too.
 */
function neighbours(span, evidence) {
  const inSpan = evidence.filter((h) => span.chunk_ids.includes(h.chunk_id));
  const first = span.chunk_index;
  const last = inSpan.length ? Math.max(...inSpan.map((h) => h.chunk_index)) : first + span.chunk_ids.length - 1;
  const same = (h) => h.doc_id === span.doc_id && (h.page ?? null) === (span.page ?? null);
  const prev = evidence.find((h) => same(h) && h.chunk_index === first - 1);
  const next = evidence.find((h) => same(h) && h.chunk_index === last + 1);
  const before = prev && prev.start < span.start ? prev.text.slice(0, span.start - prev.start) : '';
  const after = next && next.end > span.end ? next.text.slice(Math.max(0, span.end - next.start)) : '';
  return { before, after };
}

export function closeReader() {
  const reader = $('reader');
  if (!reader.hidden) closeReaderPane();
  reader.hidden = true;
  delete reader.dataset.docId;
  for (const item of document.querySelectorAll('#results .result[aria-expanded="true"]')) {
    item.setAttribute('aria-expanded', 'false');
  }
}

/**
 * The span's text with `sentence` ({start, end} in the document's offsets, as a quick answer's
 * sentence carries them) in its own element, and the query's words marked.
 */
function spanText(span, terms, sentence) {
  const main = el('p', 'context-span');
  const text = span.text ?? '';
  const from = sentence ? sentence.start - span.start : -1;
  const to = sentence ? sentence.end - span.start : -1;
  if (from < 0 || to > text.length || to <= from) {
    main.append(highlighted(text, terms));
    return main;
  }
  const quoted = el('span', 'sentence');
  quoted.append(highlighted(text.slice(from, to), terms));
  main.append(highlighted(text.slice(0, from), terms), quoted, highlighted(text.slice(to), terms));
  return main;
}

/** Fills the reader's body: the span, and the neighbouring text any of `chunks` holds. */
function showContext(reader, span, terms, chunks, sentence) {
  const { before, after } = neighbours(span, chunks);
  const body = reader.querySelector('.reader-body');
  body.replaceChildren();
  if (before) body.append(el('p', 'context-before', before));
  const main = spanText(span, terms, sentence);
  body.append(main);
  if (after) body.append(el('p', 'context-after', after));
  reader.querySelector('.reader-note').textContent = before || after
    ? 'The passage found, with the text around it in its document (greyed).'
    : 'The passage found; its document has no text around it.';
}

/**
 * Shows result.results[index] with its heading path, page and neighbouring text: at once what this
 * search's evidence holds, then the document's own neighbouring chunks from fetchContext(span)
 * (a Promise of chunk dicts), when given.
 */
export function openReader(result, index, fetchContext = null, { sentence = null, label = null } = {}) {
  const span = result?.results?.[index];
  if (!span) return;
  const opener = document.activeElement;
  const reader = $('reader');
  const terms = result.stats?.terms ?? [];
  reader.dataset.docId = String(span.doc_id);
  reader.querySelector('.reader-title').textContent = span.doc_name ?? '';
  const tail = placeTail(span);
  const where = [span.doc_type, tail || (span.page != null ? `page ${span.page}` : null), label ?? `passage ${index + 1}`]
    .filter(Boolean).join(' · ');
  reader.querySelector('.reader-where').textContent = where;
  const paths = (span.heading_paths ?? []).map(headingText).filter(Boolean);
  reader.querySelector('.reader-headings').replaceChildren(...paths.map((p) => el('li', '', p)));

  const evidence = result.evidence ?? [];
  showContext(reader, span, terms, evidence, sentence);
  const key = `${span.doc_id}:${span.chunk_ids.join(',')}`;
  reader.dataset.span = key;
  fetchContext?.(span).then((chunks) => {
    if (reader.dataset.span === key) showContext(reader, span, terms, [...chunks, ...evidence], sentence);
  }, () => {}); // the evidence-only view stays

  for (const item of document.querySelectorAll('#results .result')) {
    item.setAttribute('aria-expanded', String(Number(item.dataset.index) === index));
  }
  reader.hidden = false;
  openReaderPane(opener);
  reader.querySelector('.sentence')?.scrollIntoView?.({ block: 'center' });
}
