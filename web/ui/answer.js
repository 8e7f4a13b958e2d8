// One question and its answer, as a card: the quick answer (sentences quoted from the documents,
// each with its [n]), the generated answer when one is written (only its supported sentences; the
// rest folded away, unchecked text a draft),
// and under it only the sources cited (the other passages folded). [n] are buttons: hover or focus
// shows the passage, a click opens it in the Reader with the quoted sentence highlighted.
//
// Everything from documents and models is set as text; [n] that is not a source is plain text.

import { citedSources, splitCitations } from '../chat/prompt.js';
import { h, headingText, placeTail, plural, seconds, tableCells } from './dom.js';
import { renderSummary } from './summary.js';

/** The sources of an answer in [n] order: entry n-1 is what [n] points at. */
export const sourcesOf = (answer) => (answer ? citedSources(answer) : []);

// Markdown, text and HTML show their heading on a line of its own, as before.
const HEADED = new Set(['md', 'txt', 'html']);
// Answers without a quick answer whose passages are shown folded, as the closest ones found.
const REFUSALS = ['not_covered', 'vague_question'];

/** Which table a quoted row belongs to (its document and header row), null for a sentence:
 * consecutive rows of one table are shown, and exported, under one header. */
export function tableOf(q) {
  return q.header ? `${q.doc_id}\n${q.header}` : null;
}

export function whereText(src) {
  const tail = HEADED.has(src.doc_type) ? '' : placeTail(src);
  if (tail) return `${src.doc_name} · ${tail}`;
  return [src.doc_name, src.page !== null && src.page !== undefined ? `page ${src.page}` : null].filter(Boolean).join(', ');
}

/** The heading line under a source, unless its place already names it. */
export function headingLine(src) {
  return HEADED.has(src.doc_type) || !placeTail(src) ? headingText(src.heading_paths?.[0]) : '';
}

// --- the preview shown on hover / focus of a [n] ------------------------------------------------

let preview = null;

function previewBox() {
  if (!preview) {
    preview = h('div', { class: 'cite-preview', id: 'cite-preview', role: 'tooltip', hidden: true });
    document.body.append(preview);
  }
  return preview;
}

export function hidePreview() {
  if (preview) preview.hidden = true;
}

function showPreview(button, src, sentence) {
  const box = previewBox();
  const heading = headingLine(src);
  const text = sentence?.text ?? src.text ?? '';
  box.replaceChildren(
    h('p', { class: 'where', text: `[${button.dataset.n}] ${whereText(src)}` }),
    heading ? h('p', { class: 'heading', text: heading }) : null,
    h('p', { class: 'text', text: text.length > 700 ? `${text.slice(0, 700)}…` : text }));
  box.hidden = false;
  const r = button.getBoundingClientRect();
  const width = Math.min(448, window.innerWidth * 0.92);
  box.style.left = `${Math.max(8, Math.min(r.left, window.innerWidth - width - 8))}px`;
  const below = r.bottom + 6;
  box.style.top = below + box.offsetHeight < window.innerHeight ? `${below}px` : `${Math.max(8, r.top - box.offsetHeight - 6)}px`;
  button.setAttribute('aria-describedby', 'cite-preview');
}

/** A [n] button; onOpen(n, sentence) when chosen. */
function citeButton(n, src, sentence, onOpen) {
  const button = h('button', {
    type: 'button', class: 'chat-cite', text: String(n), dataset: { n: String(n) },
    'aria-label': `Source ${n}: ${whereText(src)}`,
  });
  const show = () => showPreview(button, src, sentence);
  button.addEventListener('mouseenter', show);
  button.addEventListener('focus', show);
  button.addEventListener('mouseleave', hidePreview);
  button.addEventListener('blur', hidePreview);
  button.addEventListener('click', () => {
    hidePreview();
    onOpen(n, sentence);
  });
  return button;
}

/** Text with its [n] (valid ones only) as buttons. */
function withCitations(text, sources, onOpen) {
  const nodes = [];
  for (const part of splitCitations(text, sources.length)) {
    if (!part.refs) {
      nodes.push(document.createTextNode(part.text));
      continue;
    }
    nodes.push('[');
    part.refs.forEach((n, i) => {
      if (i) nodes.push(', ');
      nodes.push(citeButton(n, sources[n - 1], null, onOpen));
    });
    nodes.push(']');
  }
  return nodes;
}

/**
 * The generated answer. Unchecked (plain chat, or no check possible): the text with its [n].
 * Checked (`checkable`): only sentences Python's check found supported are shown as the answer;
 * the unsupported ones are returned to be folded away, and text not yet checked (still streaming,
 * or a check that failed) is shown as a draft, never as an answer.
 */
export function renderGenerated(node, turn, sources, onOpen) {
  const text = turn.generated ?? '';
  if (!turn.checkable) {
    node.replaceChildren(...withCitations(text, sources, onOpen));
    return [];
  }
  const upto = turn.check ? turn.checkedUpTo ?? 0 : 0;
  const nodes = [];
  const unsupported = [];
  for (const s of turn.check?.sentences ?? []) {
    const piece = text.slice(s.start, s.end);
    if (s.supported) {
      nodes.push(h('span', { class: 'sentence' }, ...withCitations(piece, sources, onOpen)), ' ');
    } else {
      unsupported.push({ text: piece, why: s.cites?.length ? 'not supported by the passage it cites' : 'cites no passage' });
    }
  }
  const rest = text.slice(upto).trim();
  if (rest) nodes.push(h('span', { class: 'draft', title: 'Not checked against your documents yet', text: rest }));
  node.replaceChildren(...nodes);
  return unsupported;
}

function sourceItem(n, src, onOpen, turnId, remote = null) {
  const heading = headingLine(src);
  const open = () => onOpen(n, null);
  const item = h('li', { class: 'chat-source', id: `${turnId}-src-${n}`, dataset: { n: String(n) } },
    h('button', { type: 'button', class: 'chat-source-head', title: 'Read it in the Reader' },
      h('span', { class: 'chat-source-n', text: `[${n}]` }),
      h('span', { class: 'chat-source-doc', text: whereText(src) }),
      remote ? h('span', { class: 'badge chat-source-remote', text: `remote · ${remote}` }) : null,
      heading ? h('span', { class: 'chat-source-heading', text: heading }) : null,
      src.trimmed ? h('span', { class: 'chat-source-trimmed', text: '(shortened to fit)' }) : null),
    h('p', { class: 'chat-source-text', text: src.text }));
  item.addEventListener('click', open);
  return item;
}

/** How the question was routed (summarise/route.py): kind, documents, why; one line. */
function routeLine(answer) {
  const r = answer?.route;
  if (!answer || answer.error) return '';
  if (!r) return 'route: passages · the question asks no summary or comparison';
  const names = new Map((answer.summary?.documents ?? []).map((d) => [d.doc_id, d.doc_name]));
  const docs = (r.doc_ids ?? []).map((id) => names.get(id) ?? `document ${id}`).join(', ') || 'none';
  return `route: ${r.kind} · documents: ${docs} · why: ${r.why ?? r.reason ?? ''}`;
}

/** The query searched, the coverage decision and the sentence scores, for the debug view. */
function answerWhy(answer) {
  if (!answer) return '';
  const a = answer.stats?.answer ?? {};
  const c = a.coverage ?? {};
  const num = (x) => (typeof x === 'number' ? x.toFixed(3) : '—');
  const lines = [`searched for: ${answer.standalone_query ?? answer.question ?? ''}`,
    `covered: ${answer.covered} (probability ${num(c.probability)}, threshold ${num(c.threshold)}; best sentence logit ${num(c.best_logit)}, ` +
    `sentence cosine ${num(c.sentence_sim)}, passage cosine ${num(c.passage_sim)}, words ${num(c.words)}, ` +
    `words found anywhere ${num(c.known)}${c.missing ? `, a name nothing found mentions: ${c.missing}` : ''})`];
  const o = answer.stats?.options;
  if (o) lines.push(`passages: k ${o.k}, at most ${o.cap_per_key} a document, budget ${o.budget} tokens`);
  for (const q of answer.quick ?? []) lines.push(`[${q.n}] ${num(q.score)}  ${q.text}`);
  const t = a.timings_ms ?? {};
  lines.push(`timings (ms): ${Object.entries(t).map(([k, v]) => `${k} ${Math.round(v)}`).join(', ')}`);
  return lines.join('\n');
}

/** The [n]s a generated text cites (valid ones). */
function citedIn(text, count) {
  return splitCitations(text ?? '', count).flatMap((p) => p.refs ?? []);
}

/**
 * Fills the turn's <li> from its record: {question, mode, answer, generated, check, state, note,
 * error, timings, plan}. `on`: {open(n, sentence), write(), canWrite (false: no model chosen)}.
 */
export function renderTurn(li, turn, on) {
  const answer = turn.answer;
  const sources = sourcesOf(answer);
  const quick = answer?.quick ?? [];
  li.dataset.state = turn.state;
  const parts = [h('p', { class: 'chat-question' }, h('span', { class: 'chat-who', text: 'You: ' }), turn.question)];
  const searched = answer?.standalone_query;
  if (searched && searched.trim().toLowerCase() !== turn.question.trim().toLowerCase()) {
    parts.push(h('p', { class: 'searched-for', text: `Searched for: ${searched}` }));
  }
  const card = h('div', { class: 'answer-card' });
  if (answer?.message && (answer.reason || !quick.length)) card.append(h('p', { class: 'reason', text: answer.message }));
  if (quick.length) {
    const p = h('div', { class: 'quick' });
    let table = null; // the rows of one table are quoted in one table under its header row
    let body = null;
    for (const q of quick) {
      const src = sources[q.n - 1];
      const head = tableOf(q);
      if (!head) {
        table = null;
        p.append(h('span', { class: 'quick-sentence', text: q.text }), ...(src ? [' [', citeButton(q.n, src, q, on.open), ']'] : []), ' ');
        continue;
      }
      const columns = tableCells(q.header);
      if (head !== table) {
        body = h('tbody');
        p.append(h('div', { class: 'quick-table-wrap' }, h('table', { class: 'quick-table' },
          h('thead', {}, h('tr', { class: 'quick-table-head' }, columns.map((c) => h('th', { scope: 'col', text: c })),
            h('th', { scope: 'col', class: 'quick-cite' }, h('span', { class: 'visually-hidden', text: 'Source' })))),
          body)));
      }
      table = head;
      const cells = tableCells(q.text);
      body.append(h('tr', { class: 'quick-row', dataset: { text: q.text } },
        [...cells, ...Array(Math.max(0, columns.length - cells.length)).fill('')].map((c) => h('td', { text: c })),
        h('td', { class: 'quick-cite' }, ...(src ? ['[', citeButton(q.n, src, q, on.open), ']'] : []))));
    }
    card.append(h('p', { class: 'quick-label', text: answer.remote ? `From the remote library at ${answer.remote.origin}` : 'From your documents' }), p);
  }
  if (answer?.summary?.documents?.length) { // a whole-document answer: the outline is the quick answer
    card.append(renderSummary(answer, (n, point) => (sources[n - 1] ? citeButton(n, sources[n - 1], point, on.open) : String(n))));
  }
  const generated = h('div', { class: 'chat-answer' });
  let unsupported = [];
  if (turn.generated !== undefined && turn.generated !== null) {
    card.append(h('p', { class: 'generated-label', text: turn.model ? `Written by ${turn.model}` : 'Written answer' }));
    unsupported = renderGenerated(generated, turn, sources, on.open);
  }
  card.append(generated);
  const done = !['generating', 'checking', 'retrieving'].includes(turn.state);
  if (turn.checkable && done && turn.generated?.trim() && !turn.check) {
    card.append(h('p', { class: 'unsupported-note', text: 'The written answer could not be checked against your documents, so it is shown as a draft.' }));
  } else if (turn.checkable && done && turn.check && !turn.check.sentences?.some((x) => x.supported)) {
    card.append(h('p', { class: 'unsupported-note', text: 'Nothing the model wrote is supported by your documents; the quick answer above is.' }));
  }
  if (unsupported.length) {
    card.append(h('details', { class: 'unsupported-fold' },
      h('summary', { text: `The model also wrote ${plural(unsupported.length, 'sentence')} not supported by your documents` }),
      h('ul', {}, unsupported.map((u) => h('li', { class: 'unsupported', title: u.why, text: u.text })))));
  }
  card.append(h('p', { class: 'chat-note', text: turn.note ?? '', hidden: !turn.note }),
    h('p', { class: 'chat-error', role: 'alert', text: turn.error ?? '', hidden: !turn.error }));
  const actions = h('div', { class: 'answer-actions' });
  if (on.canWrite === false) {
    // no model chosen: the quick answer and its sources are the answer
  } else if (turn.state === 'answered' && answer?.reason === 'vague_question') {
    // nothing to write about until the question names something
  } else if (turn.state === 'answered' && answer?.reason === 'not_covered') {
    actions.append(h('button', { type: 'button', class: 'ask-anyway quiet', text: 'Ask the model anyway', onclick: on.write }));
  } else if (turn.state === 'answered' && sources.length) {
    actions.append(h('button', { type: 'button', class: 'write-answer', text: 'Write an answer', onclick: on.write }));
  }
  if (turn.state === 'answered' && turn.plan?.wait) actions.append(h('span', { class: 'muted', text: turn.plan.wait }));
  if (actions.childNodes.length) card.append(actions);

  const refused = REFUSALS.includes(answer?.reason) || Boolean(answer?.summary); // a summary's outline lists its sources
  const cited = new Set([...quick.map((q) => q.n), ...citedIn(turn.generated, sources.length)]);
  const shown = refused ? [] : sources.map((src, i) => [i + 1, src]).filter(([n]) => cited.has(n) || !cited.size);
  const folded = sources.map((src, i) => [i + 1, src]).filter(([n]) => refused || (cited.size && !cited.has(n)));
  card.append(h('ol', { class: 'chat-sources', 'aria-label': 'Sources cited' }, shown.map(([n, s]) => sourceItem(n, s, on.open, li.id, answer?.remote?.origin))));
  if (folded.length) {
    const label = answer?.summary ? `${plural(folded.length, 'passage')} quoted or sent`
      : refused ? `The ${plural(folded.length, 'closest passage')} found, for you to judge`
      : `${plural(folded.length, 'other passage')} found`;
    card.append(h('details', { class: refused ? 'more-sources closest' : 'more-sources' }, h('summary', { text: label }),
      h('ol', { class: 'chat-sources', 'aria-label': refused ? 'Closest passages' : 'Other passages found' },
        folded.map(([n, s]) => sourceItem(n, s, on.open, li.id, answer?.remote?.origin)))));
  }
  // What the model reads of them (its own context budget: small for the in-page model).
  const packed = answer?.packed ?? {};
  const tokens = answer?.model_budget ? answer.model_tokens : packed.tokens;
  const budget = answer?.model_budget || packed.budget;
  const retrieval = answer && !answer.error
    ? (sources.length ? `${plural(sources.length, 'passage')} from your documents (${tokens ?? '?'} of ${budget ?? '?'} tokens)` : '')
    : '';
  card.append(h('p', { class: 'chat-retrieval', text: retrieval }));
  const t = turn.timings ?? {};
  const bits = [];
  if (t.sources !== undefined) bits.push(`sources in ${seconds(t.sources)}`);
  if (t.first !== undefined) bits.push(`first token in ${seconds(t.first)}`);
  if (t.total !== undefined) bits.push(`${seconds(t.total)} in all`);
  card.append(h('p', { class: 'chat-timing', text: bits.join(' · ') }),
    h('details', { class: 'chat-debug' }, h('summary', { text: 'Prompt sent' }), h('pre', { class: 'chat-prompt', text: turn.prompt ?? '' })),
    h('details', { class: 'answer-debug' }, h('summary', { text: 'How the quick answer was chosen' }),
      h('p', { class: 'answer-route', text: routeLine(answer) }),
      h('pre', { class: 'answer-why', text: answerWhy(answer) })));
  parts.push(card);
  li.replaceChildren(...parts);
  for (const [key, value] of Object.entries({ ttfsMs: t.sources, ttftMs: t.first, totalMs: t.total })) {
    if (value !== undefined) li.dataset[key] = String(value);
  }
  return { generated, sources };
}
