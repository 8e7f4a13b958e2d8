// The chat panel: ask a question, see the passages retrieval found at once, then read the
// answer a model writes from them as it streams in, with [n] linked to the passages.
//
//   mountChat(root, api)   root: the <section id="chat-root">; api: window.readingroom
//
// Flow of one question: api.ask(question, {k, budget}) -> the sources are shown -> Python's
// `answer.messages` (instructions and the packed context, then the question) go to the chosen
// transport (chat/*.js) -> the answer streams in -> Python's check_answer says which [n] exist. With "Answer from my documents" off it is plain chat: no retrieval,
// the question alone. Everything from documents or models is set as text (textContent /
// text nodes), never parsed as HTML.
//
// Each finished turn (li.chat-turn) carries its timings for tests and curious users:
// data-ttfs-ms (question -> sources shown), data-ttft-ms (question -> first answer token),
// data-total-ms, and data-state: done | stopped | interrupted | error.

import { allowedOrigin } from './chat/csp.js'; // first: narrows connect-src before anything runs
import { citedSources, splitCitations } from './chat/prompt.js';
import {
  DEFAULTS, endpointOrigin, loadApiKey, loadSettings, saveApiKey, saveSettings,
} from './chat/settings.js';
import { ChatError, isAbort } from './chat/transports.js';
import { engineInfo, onEngineStatus } from './chat/wllama-transport.js';
import { isStored } from './chat/model-store.js';
import { makeTransport } from './chat/automation.js';
import { chatManifest as manifestStore } from './chat/manifest.js';
import { contextBudget } from './chat/pace.js';

const TRANSPORT_LABELS = {
  wllama: 'In this browser: SmolLM2-135M (downloads 145 MB once)',
  openai: 'OpenAI-compatible server (llama-server, Ollama, vLLM, OpenAI…)',
  none: 'No model: show the passages only',
};

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key in node && typeof value !== 'string') node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
const MB = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

function field(label, input, hint) {
  return el('label', { class: 'chat-field' },
    el('span', { class: 'chat-field-label', text: label }), input,
    hint ? el('span', { class: 'chat-hint', text: hint }) : null);
}

const loadChatManifest = () => manifestStore.load();

export function mountChat(root, api) {
  if (!root || root.dataset.mounted) return;
  root.dataset.mounted = '';
  document.head.append(el('link', { rel: 'stylesheet', href: 'chat/chat.css' }));

  let settings = loadSettings();
  let chatManifest = null;
  let busy = null; // AbortController of the running turn
  let turnCount = 0;

  // --- the form -------------------------------------------------------------------------------
  const question = el('textarea', {
    name: 'question', rows: 2, placeholder: 'Ask your documents a question…', 'aria-label': 'Question', disabled: true,
  });
  const grounded = el('input', { type: 'checkbox', name: 'grounded', checked: settings.grounded });
  const askButton = el('button', { type: 'submit', class: 'chat-ask', text: 'Ask', disabled: true });
  const stopButton = el('button', { type: 'button', class: 'chat-stop', text: 'Stop', hidden: true });
  const engineLabel = el('span', { class: 'chat-engine' });
  const form = el('form', { class: 'chat-form' },
    question,
    el('div', { class: 'chat-actions' },
      el('label', { class: 'chat-grounded' }, grounded, ' Answer from my documents'),
      engineLabel, askButton, stopButton));

  const status = el('p', { class: 'chat-status', 'aria-live': 'polite' });
  const progress = el('progress', { class: 'chat-progress', max: 1, hidden: true });
  const reloadNote = el('p', { class: 'chat-reload', hidden: true });
  const log = el('ol', { class: 'chat-log' });

  // --- settings ---------------------------------------------------------------------------------
  const transportSelect = el('select', { name: 'transport' },
    ...Object.entries(TRANSPORT_LABELS).map(([value, text]) => el('option', { value, text })));
  const baseUrl = el('input', { name: 'baseUrl', type: 'url', placeholder: 'http://127.0.0.1:8080/v1', autocomplete: 'off', spellcheck: 'false' });
  const model = el('input', { name: 'model', type: 'text', placeholder: 'model name (optional for llama-server)', autocomplete: 'off', spellcheck: 'false' });
  const apiKey = el('input', { name: 'apiKey', type: 'password', autocomplete: 'off', placeholder: 'optional' });
  const temperature = el('input', { name: 'temperature', type: 'number', min: 0, max: 2, step: 0.1 });
  const maxTokens = el('input', { name: 'maxTokens', type: 'number', min: 1, max: 8192, step: 1 });
  const budget = el('input', { name: 'budget', type: 'number', min: 50, max: 32000, step: 50 });
  const k = el('input', { name: 'k', type: 'number', min: 1, max: 50, step: 1 });
  const serverFields = el('fieldset', { class: 'chat-server' },
    el('legend', { text: 'Server' }),
    field('Base URL', baseUrl, 'Requests go to <base URL>/chat/completions.'),
    field('Model', model),
    field('API key', apiKey, 'Kept in this browser only (localStorage); sent only to this server.'));
  const settingsForm = el('form', { class: 'chat-settings-form' },
    field('Model', transportSelect),
    serverFields,
    el('fieldset', {},
      el('legend', { text: 'Answer' }),
      field('Temperature', temperature),
      field('Max tokens', maxTokens)),
    el('fieldset', {},
      el('legend', { text: 'Retrieval' }),
      field('Context budget (tokens)', budget, 'Empty: chosen for the model (smaller in this browser, so answers start within seconds).'),
      field('Passages (k)', k, `Default ${DEFAULTS.k}.`)));
  const settingsBox = el('details', { class: 'chat-settings' }, el('summary', { text: 'Settings' }), settingsForm);

  function fillSettings() {
    transportSelect.value = settings.transport;
    baseUrl.value = settings.baseUrl;
    model.value = settings.model;
    apiKey.value = loadApiKey();
    temperature.value = String(settings.temperature);
    maxTokens.value = String(settings.maxTokens);
    budget.value = settings.budget === null ? '' : String(settings.budget);
    budget.placeholder = `automatic: ${contextBudget(settings.transport, { threads: engineInfo().threads })}`;
    k.value = String(settings.k);
    grounded.checked = settings.grounded;
    serverFields.hidden = settings.transport !== 'openai';
    showEngine();
    showReloadNote();
  }

  function readSettings() {
    settings = saveSettings({
      transport: transportSelect.value,
      baseUrl: baseUrl.value,
      model: model.value,
      temperature: temperature.value,
      maxTokens: maxTokens.value,
      budget: budget.value,
      k: k.value,
      grounded: grounded.checked,
    });
    saveApiKey(apiKey.value);
  }

  function showReloadNote() {
    const origin = endpointOrigin(settings.baseUrl);
    const blocked = settings.transport === 'openai' && origin && origin !== location.origin && origin !== allowedOrigin;
    reloadNote.hidden = !blocked;
    reloadNote.replaceChildren();
    if (blocked) {
      reloadNote.append(
        `For your privacy this page only connects to servers it was loaded with. Reload it to connect to ${origin}. `,
        el('button', { type: 'button', text: 'Reload now', onclick: () => location.reload() }));
    }
  }

  function showEngine() {
    const where = settings.transport === 'openai'
      ? (endpointOrigin(settings.baseUrl) ?? 'no server set')
      : { wllama: 'in this browser', none: 'no model' }[settings.transport];
    engineLabel.textContent = `Model: ${where}`;
  }

  settingsForm.addEventListener('change', () => {
    readSettings();
    fillSettings();
  });
  settingsForm.addEventListener('submit', (e) => e.preventDefault());
  grounded.addEventListener('change', () => readSettings());

  // --- the in-browser model's status ------------------------------------------------------------
  onEngineStatus((s) => {
    progress.hidden = s.phase !== 'download';
    if (s.phase === 'download') {
      progress.max = s.total || 1;
      progress.value = s.loaded || 0;
      status.textContent = `Downloading the in-browser model… ${MB(s.loaded || 0)} of ${MB(s.total || 0)}`;
    } else if (s.phase === 'load') {
      status.textContent = 'Loading the in-browser model…';
    } else if (s.phase === 'ready') {
      status.textContent = `In-browser model ready in ${seconds(s.ms)} (${s.threads} thread${s.threads === 1 ? '' : 's'})` +
        `${s.stored ? '; saved in this browser for offline use.' : '.'}`;
    } else if (s.phase === 'error') {
      status.textContent = s.message;
    }
  });

  // --- one turn -------------------------------------------------------------------------------
  function sourceCard(turnId, n, src) {
    const where = [src.doc_name];
    if (src.page !== null && src.page !== undefined) where.push(`page ${src.page}`);
    const heading = (src.heading_paths?.[0] ?? []).join(' › ');
    return el('li', { class: 'chat-source', id: `${turnId}-src-${n}`, tabindex: -1, dataset: { n: String(n) } },
      el('div', { class: 'chat-source-head' },
        el('span', { class: 'chat-source-n', text: `[${n}]` }),
        el('span', { class: 'chat-source-doc', text: where.join(', ') }),
        heading ? el('span', { class: 'chat-source-heading', text: heading }) : null,
        src.trimmed ? el('span', { class: 'chat-source-trimmed', text: '(shortened to fit)' }) : null),
      el('p', { class: 'chat-source-text', text: src.text }));
  }

  function renderAnswer(node, text, turnId, valid) {
    const nodes = [];
    for (const part of splitCitations(text, valid)) {
      if (!part.refs) {
        nodes.push(document.createTextNode(part.text));
        continue;
      }
      nodes.push('[');
      part.refs.forEach((n, i) => {
        if (i) nodes.push(', ');
        nodes.push(el('a', {
          class: 'chat-cite', href: `#${turnId}-src-${n}`, text: String(n), 'aria-label': `source ${n}`,
          onclick: (e) => {
            e.preventDefault();
            const card = document.getElementById(`${turnId}-src-${n}`);
            if (!card) return;
            card.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
            card.focus({ preventScroll: true });
            card.classList.remove('flash');
            void card.offsetWidth; // restart the highlight
            card.classList.add('flash');
          },
        }));
      });
      nodes.push(']');
    }
    node.replaceChildren(...nodes);
  }

  // After the stream: Python's check_answer says which [n] exist; only those stay links.
  async function linkCheckedCitations(node, text, turnId, cited) {
    if (!api.checkAnswer || !text.trim() || !cited.length) return;
    try {
      const passages = cited.map((src, i) => ({ n: i + 1, text: src.text }));
      const check = await api.checkAnswer(text, passages);
      if (check?.error) return;
      const invalid = new Set(check?.invalid_citations ?? []);
      const valid = new Set(passages.map((p) => p.n).filter((n) => !invalid.has(n)));
      renderAnswer(node, text, turnId, valid);
    } catch {
      // the check is an extra: the answer as streamed stays
    }
  }

  async function ask(text) {
    readSettings();
    const s = settings;
    const turnId = `chat-${++turnCount}`;
    const t0 = performance.now();
    const since = () => Math.round(performance.now() - t0);
    const sources = el('ol', { class: 'chat-sources', 'aria-label': 'Sources' });
    const answer = el('div', { class: 'chat-answer' });
    const note = el('p', { class: 'chat-note', hidden: true });
    const error = el('p', { class: 'chat-error', role: 'alert', hidden: true });
    const timing = el('p', { class: 'chat-timing' });
    const debugPre = el('pre', { class: 'chat-prompt' });
    const retrievalInfo = el('p', { class: 'chat-retrieval' });
    const turn = el('li', { class: 'chat-turn', id: turnId, dataset: { state: s.grounded ? 'retrieving' : 'generating', transport: s.transport } },
      el('p', { class: 'chat-question' }, el('span', { class: 'chat-who', text: 'You: ' }), text),
      retrievalInfo, sources, answer, note, error, timing,
      el('details', { class: 'chat-debug' }, el('summary', { text: 'Prompt sent' }), debugPre));
    log.append(turn);
    turn.scrollIntoView({ block: 'nearest' });

    const controller = new AbortController();
    busy = controller;
    askButton.disabled = true;
    stopButton.hidden = false;
    question.value = '';
    let got = '';
    const timings = {};
    const finish = (state) => {
      turn.dataset.state = state;
      timings.total = since();
      turn.dataset.totalMs = String(timings.total);
      const bits = [];
      if (timings.sources !== undefined) bits.push(`sources in ${seconds(timings.sources)}`);
      if (timings.first !== undefined) bits.push(`first token in ${seconds(timings.first)}`);
      bits.push(`${seconds(timings.total)} in all`);
      timing.textContent = bits.join(' · ');
    };
    const fail = (message) => {
      error.hidden = false;
      error.textContent = message;
    };

    try {
      let context = null;
      let cited = [];
      let result = null;
      if (s.grounded) {
        retrievalInfo.textContent = 'Searching your documents…';
        const budgetNow = contextBudget(s.transport, { threads: engineInfo().threads, budget: s.budget });
        // Library.ask: the sources, and the messages for the model (built in Python).
        result = await api.ask(text, { k: s.k, budget: budgetNow });
        if (result?.error) {
          retrievalInfo.textContent = '';
          fail(`Search failed: ${result.error.message ?? result.error.type ?? 'unknown error'}`);
          finish('error');
          return;
        }
        cited = citedSources(result);
        sources.append(...cited.map((src, i) => sourceCard(turnId, i + 1, src)));
        timings.sources = since();
        turn.dataset.ttfsMs = String(timings.sources);
        context = result.context ?? '';
        const packed = result.packed ?? {};
        retrievalInfo.textContent = cited.length
          ? `${cited.length} passage${cited.length === 1 ? '' : 's'} from your documents (${packed.tokens ?? '?'} of ${packed.budget ?? budgetNow} tokens):`
          : 'No passage in your documents matches this question.';
        if (result.reason === 'no_documents') retrievalInfo.textContent = result.message;
        else if (result.reason && result.reason !== 'empty_query') retrievalInfo.textContent += ` (${result.reason.replace(/_/g, ' ')})`;
        turn.dataset.state = 'generating';
      }

      if (s.grounded && !result?.messages?.length) {
        // Nothing to ask a model (an empty question, no documents): Python's sentence says why.
        note.hidden = false;
        note.textContent = result?.message ?? 'There is nothing to answer from.';
        finish('done');
        return;
      }
      const transport = makeTransport(s.transport, s, chatManifest);
      // Plain chat (no documents) sends the question alone.
      const messages = s.grounded ? result.messages : [{ role: 'user', content: text }];
      const request = transport.request(messages);
      debugPre.textContent = request
        ? `${transport.label}${s.transport === 'openai' ? ` → ${s.baseUrl}` : ''}\n${JSON.stringify(request, null, 2)}`
        : `${transport.label}: nothing is sent to a model; the answer is the packed context.\n\n${context ?? ''}`;

      for await (const piece of transport.stream({ messages, context, signal: controller.signal })) {
        if (timings.first === undefined) {
          timings.first = since();
          turn.dataset.ttftMs = String(timings.first);
        }
        got += piece;
        renderAnswer(answer, got, turnId, cited.length);
      }
      await linkCheckedCitations(answer, got, turnId, cited);
      if (!got.trim()) {
        note.hidden = false;
        note.textContent = 'The model returned an empty answer.';
      }
      finish('done');
    } catch (err) {
      const e = err instanceof ChatError ? err : new ChatError(isAbort(err) ? 'aborted' : 'model', err?.message ?? String(err));
      if (e.kind === 'aborted') {
        note.hidden = false;
        note.textContent = got ? 'Stopped: the answer above is incomplete.' : 'Stopped.';
        finish('stopped');
      } else if (got && (e.kind === 'interrupted' || e.kind === 'server')) {
        note.hidden = false;
        note.textContent = `Interrupted: the answer above is incomplete. ${e.message}`;
        finish('interrupted');
      } else {
        fail(e.message);
        if (e.needsReload) showReloadNote();
        finish(got ? 'interrupted' : 'error');
      }
    } finally {
      busy = null;
      askButton.disabled = false;
      stopButton.hidden = true;
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = question.value.trim();
    if (!text || busy) return;
    ask(text);
  });
  question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  stopButton.addEventListener('click', () => busy?.abort());

  root.replaceChildren(
    el('h2', { id: 'chat-title', text: 'Chat with your documents' }),
    el('p', { class: 'chat-intro', text: 'Answers are written from the passages found in your documents; [n] links to them.' }),
    form, status, progress, reloadNote, settingsBox, log);
  root.setAttribute('aria-labelledby', 'chat-title');
  fillSettings();

  loadChatManifest()
    .then(async (m) => {
      chatManifest = m;
      if (chatManifest && settings.transport === 'wllama' && await isStored(chatManifest.model)) {
        status.textContent = 'The in-browser model is saved in this browser; it loads with the first question.';
      }
    })
    .catch(() => {});

  Promise.resolve(api?.ready).then(() => {
    question.disabled = false;
    askButton.disabled = Boolean(busy);
  }, (err) => {
    status.textContent = `Search is unavailable (${err?.message ?? err}); turn off "Answer from my documents" for plain chat.`;
    question.disabled = false;
    askButton.disabled = false;
  });
}
