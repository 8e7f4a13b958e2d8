// The conversation: one box, two modes. Ask sends the question with the conversation's earlier
// turns to api.ask (Python picks the quick answer, the standalone query and the messages a model
// is sent); a model then writes an answer (written.js) when it can start soon enough, or on "Write an answer".
// Search shows passages only (search.js). Turns are kept in this browser (api/conversations.js).
//
// Each turn (li.chat-turn#chat-N) carries data-state: retrieving | answered (quick answer shown,
// no model asked) | generating | checking (the last sentences) | done | stopped | interrupted | error, and its timings in
// data-ttfs-ms (question -> sources shown), data-ttft-ms (first answer token), data-total-ms.

import { plan as chatPlan } from '../chat/automation.js';
import { contextBudget } from '../chat/pace.js';
import { engineInfo } from '../chat/wllama-transport.js';
import {
  deleteConversation, historyOf, keptAnswer, listConversations, newConversation, saveConversation,
} from '../api/conversations.js';
import { renderTurn, sourcesOf } from './answer.js';
import { $, h } from './dom.js';
import { conversationMarkdown } from './export.js';
import { openReader } from './reader.js';
import { usingRemote } from './remote.js';
import { remoteAsk } from '../api/remote.js';
import { currentFilters, onSummarise } from './sources.js';
import { currentSettings, mountSettings } from './settings.js';
import { isWriting, mountWriterStatus, stopWriting, writeAnswer } from './written.js';

let api = null;
let contextOf = null;
const writer = { api: null, show: (turn) => show(turn), save: () => save() };
let conversation = newConversation();
let turnCount = 0; // ids chat-1, chat-2… of the conversation on show

// What a whole-document answer may send a model (Python's fit or map-reduce): the server's
// context as set, or the in-page model's small budget.
const fitBudget = (s) => (s.transport === 'openai' ? s.fitBudget
  : contextBudget(s.transport, { threads: engineInfo().threads, budget: s.budget }));

// --- turns ------------------------------------------------------------------------------------

function openSource(turn, n, sentence) {
  const answer = turn.answer;
  const src = sourcesOf(answer)[n - 1];
  if (!src) return;
  const key = (ids) => (ids ?? []).join(',');
  const index = (answer.results ?? []).findIndex((r) => key(r.chunk_ids) === key(src.chunk_ids));
  if (index < 0) return;
  // A remote answer's passages are read from the answer itself: chunk ids there are the remote
  // library's, and this browser's library is never asked about them.
  openReader({ evidence: [], ...answer }, index, answer.remote ? null : contextOf, { sentence, label: `source [${n}]` });
}

function show(turn) {
  return renderTurn(turn.li, turn.record, {
    open: (n, sentence) => openSource(turn.record, n, sentence),
    write: () => writeAnswer(turn, writer),
    canWrite: currentSettings().transport !== 'none',
  });
}

function save() {
  if (!conversation.turns.length) return Promise.resolve();
  conversation.title ||= conversation.turns[0].question.slice(0, 80);
  return saveConversation(conversation).then(showConversationList, (err) => {
    console.warn('Reading Room: the conversation could not be saved', err);
  });
}

function addTurnElement(record) {
  const li = h('li', { class: 'chat-turn', id: `chat-${++turnCount}` });
  $('chat-log').append(li);
  const turn = { li, record };
  show(turn);
  return turn;
}

async function ask(question) {
  const s = currentSettings();
  const record = { question, mode: 'ask', state: 'retrieving', timings: {} };
  const history = historyOf(conversation);
  conversation.turns.push(record);
  showIntro();
  const turn = addTurnElement(record);
  turn.li.scrollIntoView({ block: 'nearest' });
  turn.t0 = performance.now();
  if (!s.grounded) { // plain chat: no documents, straight to the model
    record.state = 'generating';
    return writeAnswer(turn, writer, { plain: true });
  }
  try {
    // The retrieval budget each model can take (chat/pace.js): small for the in-page model.
    // Only what the model reads shrinks (model_budget); the quick answer uses the whole context.
    const budget = contextBudget(s.transport, { threads: engineInfo().threads, budget: s.budget });
    const options = { history, model_budget: budget, fit_budget: fitBudget(s) };
    if (s.k !== null) options.k = s.k; // else Python's own (ask.py ASK_RETRIEVAL)
    const remote = usingRemote(); // remote.js sends only the questions, k and the budget
    const filters = remote ? {} : currentFilters();
    if (Object.keys(filters).length) options.filters = filters;
    const answer = remote ? await remoteAsk(question, options) : await api.ask(question, options);
    if (answer?.error) throw answer.error;
    record.answer = keptAnswer(answer);
    record.timings.sources = Math.round(performance.now() - turn.t0);
    record.state = 'answered';
    show(turn);
    const covered = answer.covered !== false && !answer.reason;
    if (!covered || !sourcesOf(answer).length) {
      save();
      return;
    }
    // chat/ says whether the model answers soon enough to start by itself, else how long it takes.
    const sent = s.transport === 'wllama' && answer.brief_messages?.length ? answer.brief_messages : answer.messages;
    const p = await chatPlan(sent, s.transport).catch(() => ({ autoStart: false, waitText: '' }));
    record.plan = { wait: p.waitText ?? '' };
    if (p.autoStart) {
      await writeAnswer(turn, writer);
    } else {
      show(turn);
      save();
    }
  } catch (err) {
    record.state = 'error';
    record.error = `Search failed: ${err?.message ?? err?.type ?? err}`;
    show(turn);
    save();
  }
}

/** The Summarise action (a source row, the Reader): a turn whose answer is the documents' outline. */
async function summariseDocuments(docs) {
  if (isWriting() || !docs.length) return;
  const names = docs.map((d) => d.name).join(', ');
  const record = { question: `Summarise ${names}`, mode: 'summarise', state: 'retrieving', timings: {} };
  conversation.turns.push(record);
  showIntro();
  const turn = addTurnElement(record);
  turn.li.scrollIntoView({ block: 'nearest' });
  turn.t0 = performance.now();
  try {
    const answer = await api.summarise(docs.map((d) => d.id), { fit_budget: fitBudget(currentSettings()) });
    if (answer?.error) throw answer.error;
    record.answer = keptAnswer(answer);
    record.timings.sources = Math.round(performance.now() - turn.t0);
    record.state = 'answered';
  } catch (err) {
    record.state = 'error';
    record.error = `Summarising failed: ${err?.message ?? err?.type ?? err}`;
  }
  show(turn);
  save();
}

// --- conversations ------------------------------------------------------------------------------

async function showConversationList() {
  const select = $('conversation-list');
  let all = [];
  try {
    all = await listConversations();
  } catch {
    // storage blocked: this page's conversation only
  }
  const options = all.map((c) => h('option', { value: c.id, text: c.title || 'Conversation' }));
  if (!all.some((c) => c.id === conversation.id)) options.unshift(h('option', { value: conversation.id, text: 'New conversation' }));
  select.replaceChildren(...options);
  select.value = conversation.id;
}

function load(record) {
  stopWriting();
  conversation = record;
  turnCount = 0;
  $('chat-log').replaceChildren();
  for (const turn of conversation.turns) {
    if (['retrieving', 'generating', 'checking'].includes(turn.state)) turn.state = turn.answer ? 'answered' : 'error';
    addTurnElement(turn);
  }
  showIntro();
  showConversationList();
}

function exportMarkdown() {
  const text = conversationMarkdown(conversation);
  const day = new Date().toISOString().slice(0, 10);
  const slug = (conversation.title || 'conversation').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '').slice(0, 40);
  const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown' }));
  const link = h('a', { href: url, download: `reading-room-${slug || 'conversation'}-${day}.md` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// --- the intro, starters and the library's state ----------------------------------------------

const STARTERS = {
  'python-reference': [
    'How do I catch an exception?',
    'What happens to an exception when a finally clause runs a return statement?',
    'How do default argument values work?',
  ],
};
let libraryDocs = [];

/** The intro shows while the conversation is empty: two lines, Add files, starter questions. */
export function showIntro(docs = libraryDocs) {
  libraryDocs = docs;
  const searching = $('mode-search').checked;
  $('intro').hidden = searching || conversation.turns.length > 0;
  $('chat-log').hidden = searching;
  $('search-view').hidden = !searching;
  $('intro-empty').hidden = docs.length > 0;
  const folders = new Set(docs.map((d) => d.name.split('/')[0]));
  const starters = Object.entries(STARTERS).filter(([folder]) => folders.has(folder)).flatMap(([, qs]) => qs);
  $('starters').hidden = !starters.length;
  $('starters').querySelector('ul').replaceChildren(...starters.map((q) => h('li', {},
    h('button', { type: 'button', text: q, onclick: () => submitQuestion(q) }))));
}

function submitQuestion(text) {
  $('mode-ask').checked = true;
  showIntro();
  $('query').value = text;
  $('query-form').requestSubmit();
}

// --- mounting ------------------------------------------------------------------------------------

/** onSearch(text) runs Search mode. */
export function mountConversation(readingroom, contextFn, onSearch) {
  api = readingroom;
  writer.api = readingroom;
  contextOf = contextFn;
  const form = $('query-form');
  const box = $('query');
  const status = document.querySelector('#chat-root .chat-status');
  const progress = document.querySelector('#chat-root .chat-progress');
  mountSettings(document.querySelector('#chat-root .composer-status'));

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = box.value.trim();
    if ($('mode-search').checked) {
      onSearch(box.value);
      return;
    }
    if (!text || isWriting()) return;
    box.value = '';
    ask(text);
  });
  form.querySelector('.chat-stop').addEventListener('click', stopWriting);
  onSummarise((docs) => summariseDocuments(docs));
  $('reader-summarise')?.addEventListener('click', () => {
    const reader = $('reader');
    const id = Number(reader.dataset.docId);
    if (Number.isInteger(id)) summariseDocuments([{ id, name: reader.querySelector('.reader-title').textContent }]);
  });
  for (const radio of form.querySelectorAll('input[name=mode]')) {
    radio.addEventListener('change', () => {
      $('query-button').textContent = $('mode-search').checked ? 'Search' : 'Ask';
      showIntro();
    });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && isWriting()) {
      stopWriting();
      return;
    }
    const typing = e.target instanceof HTMLElement && e.target.closest('input, textarea, select, [contenteditable]');
    if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      box.focus();
    }
  });

  $('new-conversation').addEventListener('click', () => {
    load(newConversation());
    box.focus();
  });
  $('delete-conversation').addEventListener('click', async () => {
    await deleteConversation(conversation.id).catch(() => {});
    const [next] = await listConversations().catch(() => []);
    load(next ?? newConversation());
  });
  $('export-conversation').addEventListener('click', exportMarkdown);
  $('conversation-list').addEventListener('change', async (e) => {
    const all = await listConversations().catch(() => []);
    const found = all.find((c) => c.id === e.target.value);
    if (found) load(found);
  });
  listConversations().then((all) => load(all[0] ?? newConversation()), () => load(newConversation()));

  mountWriterStatus(status, progress);
}

