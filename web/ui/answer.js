// One question and its answer, as a card: the quick answer (sentences quoted from the documents,
// each with its [n]), the generated answer when one is written, with unsupported sentences marked,
// and under it only the sources cited (the other passages folded). [n] are buttons: hover or focus
// shows the passage, a click opens it in the Reader with the quoted sentence highlighted.
//
// Everything from documents and models is set as text; [n] that is not a source is plain text.

import { citedSources, splitCitations } from '../chat/prompt.js';
import { h, headingText, plural, seconds } from './dom.js';

/** The sources of an answer in [n] order: entry n-1 is what [n] points at. */
export const sourcesOf = (answer) => (answer ? citedSources(answer) : []);

export function whereText(src) {
  return [src.doc_name, src.page !== null && src.page !== undefined ? `page ${src.page}` : null].filter(Boolean).join(', ');
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
  const heading = headingText(src.heading_paths?.[0]);
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
 * The generated answer: with a citation check, each sentence in its own span, the unsupported
 * ones marked; before the check, the text as it streams.
 */
export function renderGenerated(node, text, sources, check, onOpen) {
  const sentences = check?.sentences ?? [];
  if (!sentences.length) {
    node.replaceChildren(...withCitations(text, sources, onOpen));
    return;
  }
  const nodes = [];
  let at = 0;
  for (const s of sentences) {
    if (s.start > at) nodes.push(...withCitations(text.slice(at, s.start), sources, onOpen));
    const span = h('span', { class: s.supported ? 'sentence' : 'sentence unsupported' },
      ...withCitations(text.slice(s.start, s.end), sources, onOpen));
    if (!s.supported) span.title = s.cites?.length ? 'Not supported by the passage it cites' : 'Cites no passage';
    nodes.push(span);
    at = Math.max(at, s.end);
  }
  if (at < text.length) nodes.push(...withCitations(text.slice(at), sources, onOpen));
  node.replaceChildren(...nodes);
}

function sourceItem(n, src, onOpen, turnId, remote = null) {
  const heading = headingText(src.heading_paths?.[0]);
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

/** The [n]s a generated text cites (valid ones). */
function citedIn(text, count) {
  return splitCitations(text ?? '', count).flatMap((p) => p.refs ?? []);
}

/**
 * Fills the turn's <li> from its record: {question, mode, answer, generated, check, state, note,
 * error, timings, plan}. `on`: {open(n, sentence), write(), anyway()}.
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
    const p = h('p', { class: 'quick' });
    for (const q of quick) {
      const src = sources[q.n - 1];
      p.append(h('span', { class: 'quick-sentence', text: q.text }));
      if (src) p.append(' [', citeButton(q.n, src, q, on.open), ']');
      p.append(' ');
    }
    card.append(h('p', { class: 'quick-label', text: answer.remote ? `From the remote library at ${answer.remote.origin}` : 'From your documents' }), p);
  }
  const generated = h('div', { class: 'chat-answer' });
  if (turn.generated !== undefined && turn.generated !== null) {
    card.append(h('p', { class: 'generated-label', text: turn.model ? `Written by ${turn.model}` : 'Written answer' }));
    renderGenerated(generated, turn.generated, sources, turn.check, on.open);
  }
  card.append(generated);
  const unsupported = turn.check?.unsupported ?? 0;
  if (unsupported) {
    card.append(h('p', { class: 'unsupported-note', text: `${plural(unsupported, 'sentence')} of the written answer ` +
      `${unsupported === 1 ? 'is' : 'are'} not supported by the passages ${unsupported === 1 ? 'it cites' : 'they cite'} (underlined).` }));
  }
  card.append(h('p', { class: 'chat-note', text: turn.note ?? '', hidden: !turn.note }),
    h('p', { class: 'chat-error', role: 'alert', text: turn.error ?? '', hidden: !turn.error }));
  const actions = h('div', { class: 'answer-actions' });
  if (turn.state === 'answered' && answer?.reason === 'not_covered') {
    actions.append(h('button', { type: 'button', class: 'ask-anyway quiet', text: 'Ask the model anyway', onclick: on.write }));
  } else if (turn.state === 'answered' && sources.length) {
    actions.append(h('button', { type: 'button', class: 'write-answer', text: 'Write an answer', onclick: on.write }));
  }
  if (turn.state === 'answered' && turn.plan?.wait) actions.append(h('span', { class: 'muted', text: turn.plan.wait }));
  if (actions.childNodes.length) card.append(actions);

  const cited = new Set([...quick.map((q) => q.n), ...citedIn(turn.generated, sources.length)]);
  const shown = sources.map((src, i) => [i + 1, src]).filter(([n]) => cited.has(n) || !cited.size);
  const folded = sources.map((src, i) => [i + 1, src]).filter(([n]) => cited.size && !cited.has(n));
  card.append(h('ol', { class: 'chat-sources', 'aria-label': 'Sources cited' }, shown.map(([n, s]) => sourceItem(n, s, on.open, li.id, answer?.remote?.origin))));
  if (folded.length) {
    card.append(h('details', { class: 'more-sources' },
      h('summary', { text: `${plural(folded.length, 'other passage')} found` }),
      h('ol', { class: 'chat-sources', 'aria-label': 'Other passages found' }, folded.map(([n, s]) => sourceItem(n, s, on.open, li.id, answer?.remote?.origin)))));
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
    h('details', { class: 'chat-debug' }, h('summary', { text: 'Prompt sent' }), h('pre', { class: 'chat-prompt', text: turn.prompt ?? '' })));
  parts.push(card);
  li.replaceChildren(...parts);
  for (const [key, value] of Object.entries({ ttfsMs: t.sources, ttftMs: t.first, totalMs: t.total })) {
    if (value !== undefined) li.dataset[key] = String(value);
  }
  return { generated, sources };
}
