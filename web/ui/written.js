// A written answer: a chat transport writes from Python's messages while Python checks each
// sentence's citations as it completes (api.checkAnswer). Until checked, text is a draft, never
// an answer (answer.js renders the turn). One generation at a time: isWriting, stopWriting.
// Also the in-page model's download and load status line (mountWriterStatus).

import { makeTransport } from '../chat/automation.js';
import { chatManifest as manifestStore } from '../chat/manifest.js';
import { isStored } from '../chat/model-store.js';
import { ChatError, isAbort } from '../chat/transports.js';
import { onEngineStatus } from '../chat/wllama-transport.js';
import { sourcesOf } from './answer.js';
import { $, seconds } from './dom.js';
import { currentSettings, serverNeedsReload, showReloadNote } from './settings.js';

const MB = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

let chatManifest = null;
let busy = null; // AbortController of the running generation

export const isWriting = () => busy !== null;

/** Stops a running generation (Esc, the Stop button, another conversation opened). */
export const stopWriting = () => busy?.abort();

function finish(turn, state) {
  const { record } = turn;
  record.state = state;
  record.timings.total = Math.round(performance.now() - turn.t0);
}

// Where the last complete sentence of a streaming answer ends (after its [n] marks), or -1.
const SENTENCE_END = /[.!?…]["'”’)\]]*(?:\s*\[\d+(?:\s*[,;]\s*\d+)*\])*(?=\s)/g;
function lastSentenceEnd(text) {
  let end = -1;
  for (const m of text.matchAll(SENTENCE_END)) end = m.index + m[0].length;
  return end;
}

/**
 * The model writes an answer from Python's messages (the in-page model: the quick answer's
 * sentences as notes, `brief_messages`); Python checks each sentence's citations as it
 * completes. Until checked, text is shown as a draft, never as an answer (answer.js).
 */
export async function writeAnswer(turn, { api, show, save }, { plain = false } = {}) {
  if (busy) return;
  const s = currentSettings();
  const { record } = turn;
  turn.t0 ??= performance.now();
  const since = () => Math.round(performance.now() - turn.t0);
  const controller = new AbortController();
  busy = controller;
  setBusy(true);
  record.state = 'generating';
  record.generated = '';
  record.note = '';
  record.error = '';
  record.check = null;
  record.checkedUpTo = 0;
  chatManifest ??= await manifestStore.load();
  const transport = makeTransport(s.transport, s, chatManifest);
  record.model = transport.label;
  const answer = record.answer;
  const brief = !plain && s.transport === 'wllama' && (answer.brief_messages ?? []).length > 0;
  const messages = plain ? [{ role: 'user', content: record.question }] : (brief ? answer.brief_messages : answer.messages);
  const context = plain ? null : answer.context ?? '';
  const request = transport.request(messages);
  record.prompt = request
    ? `${transport.label}${s.transport === 'openai' ? ` → ${s.baseUrl}` : ''}\n${JSON.stringify(request, null, 2)}`
    : `${transport.label}: nothing is sent to a model; the answer is the packed context.\n\n${context ?? ''}`;
  const checkable = !plain && s.transport !== 'none' && typeof api.checkAnswer === 'function';
  // the model saw [1]..[model_passages] (brief: the notes, quoted from those same passages)
  const passages = checkable ? sourcesOf(answer).map((src, i) => ({ n: i + 1, text: src.text }))
    .slice(0, brief ? undefined : answer.model_passages ?? undefined) : [];
  let checking = null;
  const check = (upto) => {
    const text = record.generated.slice(0, upto);
    return api.checkAnswer(text, passages).then((c) => {
      if (c && !c.error && text === record.generated.slice(0, upto)) {
        record.check = c;
        record.checkedUpTo = upto;
      }
    }, () => {});
  };
  record.checkable = checkable;
  show(turn);
  try {
    if (serverNeedsReload()) {
      throw new ChatError('unreachable', 'This page may only connect to the new server after a reload. Reload the page to use it.', { needsReload: true });
    }
    for await (const piece of transport.stream({ messages, context, signal: controller.signal })) {
      if (record.timings.first === undefined) record.timings.first = since();
      record.generated += piece;
      const end = checkable ? lastSentenceEnd(record.generated) : -1;
      if (end > record.checkedUpTo && !checking) {
        checking = check(end).finally(() => { checking = null; show(turn); });
      }
      show(turn);
    }
    if (!record.generated.trim()) record.note = 'The model returned an empty answer.';
    finish(turn, 'done');
  } catch (err) {
    const e = err instanceof ChatError ? err : new ChatError(isAbort(err) ? 'aborted' : 'model', err?.message ?? String(err));
    if (e.kind === 'aborted') {
      record.note = record.generated ? 'Stopped: the answer above is incomplete.' : 'Stopped.';
      finish(turn, 'stopped');
    } else if (record.generated && (e.kind === 'interrupted' || e.kind === 'server')) {
      record.note = `Interrupted: the answer above is incomplete. ${e.message}`;
      finish(turn, 'interrupted');
    } else {
      record.error = e.message;
      if (e.needsReload) showReloadNote();
      finish(turn, record.generated ? 'interrupted' : 'error');
    }
  } finally {
    busy = null;
    setBusy(false);
  }
  const state = record.state;
  if (checkable && record.generated?.trim()) {
    record.state = 'checking'; // the turn has ended only once every sentence is checked
    await checking;
    await check(record.generated.length);
  }
  record.state = state;
  show(turn);
  save();
}

function setBusy(on) {
  const form = $('query-form');
  form.querySelector('.chat-stop').hidden = !on;
  $('query-button').disabled = on || document.body.dataset.phase !== 'ready';
}

/** The in-page model's status line and download progress under the composer. */
export function mountWriterStatus(status, progress) {
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
  manifestStore.load()
    .then(async (m) => {
      chatManifest = m;
      if (chatManifest && currentSettings().transport === 'wllama' && await isStored(chatManifest.model)) {
        status.textContent = 'The in-browser model is saved in this browser; it loads with the first question.';
      }
    })
    .catch(() => {});
}
