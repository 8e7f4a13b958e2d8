// The remote library in the Sources pane: a form to add one (address and token), then a source
// row that says it is remote, with a checkbox that sends questions there instead of to this
// browser's library, and Remove. Which one answers is shown above the box too (data-scope-text).

import { allowedRemoteOrigin as allowedOrigin } from '../chat/csp.js';
import {
  clearRemote, loadRemote, remoteActive, remoteOrigin, remoteStatus, saveRemote, setRemoteActive,
} from '../api/remote.js';
import { $, h, plural } from './dom.js';

const listeners = new Set();

/** Whether questions and searches go to the remote library now. */
export const usingRemote = () => remoteActive(allowedOrigin);

export function onRemoteChange(fn) {
  listeners.add(fn);
}

function changed() {
  render();
  for (const fn of listeners) fn();
}

function addForm() {
  const url = h('input', { type: 'url', name: 'remote-url', placeholder: 'https://library.example.org', autocomplete: 'off', spellcheck: 'false' });
  const token = h('input', { type: 'password', name: 'remote-token', placeholder: 'access token', autocomplete: 'off' });
  const message = h('p', { class: 'muted remote-message', role: 'status' });
  const add = h('button', { type: 'submit', text: 'Add remote library' });
  const form = h('form', { class: 'remote-form' }, url, token, add, message);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    try {
      saveRemote({ url: url.value, token: token.value });
      changed();
    } catch (err) {
      message.textContent = err.message;
    }
  });
  return h('details', { class: 'remote-add' }, h('summary', { text: 'Add a remote library (a team’s Reading Room server)' }), form);
}

async function sourceRow(remote) {
  const origin = remoteOrigin(remote.url);
  const admitted = origin === allowedOrigin;
  const box = h('input', { type: 'checkbox', class: 'pick', id: 'remote-active', disabled: !admitted });
  box.checked = remote.active && admitted;
  box.addEventListener('change', () => {
    setRemoteActive(box.checked);
    changed();
  });
  const counts = h('span', { class: 'doc-meta remote-counts', text: admitted ? 'connecting…' : '' });
  const remove = h('button', { type: 'button', class: 'quiet', text: 'Remove' });
  remove.addEventListener('click', () => {
    clearRemote();
    changed();
  });
  const row = h('div', { class: 'doc-row remote-row', dataset: { remote: origin ?? '' } },
    h('label', {}, box, ' ', h('span', { class: 'doc-name', text: 'Team library' }), ' ',
      h('span', { class: 'badge remote-badge', text: `remote · ${origin}` })),
    counts, remove);
  if (!admitted) {
    counts.textContent = 'Reload the page to connect (the page admits a new server from its next load on).';
  } else {
    remoteStatus().then((s) => {
      counts.textContent = s.error ? s.error.message : `${plural(s.documents, 'document')}, ${plural(s.chunks, 'passage')}`;
    });
  }
  return row;
}

async function render() {
  const where = $('remote-library');
  if (!where) return;
  const remote = loadRemote();
  where.replaceChildren(h('h3', { text: 'Remote library' }), remote ? await sourceRow(remote) : addForm(),
    h('p', { class: 'scope', id: 'remote-scope', text: usingRemote() ? `Questions go to the remote library at ${allowedOrigin}` : '' }),
    h('p', { class: 'muted', text: 'Questions asked there carry only the question and your earlier questions: nothing of this browser’s library.' }));
}

export function wireRemote() {
  render();
}

/** For window.readingroom.remote: configure/clear from tests and scripts (then reload). */
export const remoteApi = {
  configure: ({ url, token, active = true }) => {
    const r = saveRemote({ url, token, active });
    changed();
    return r;
  },
  clear: () => {
    clearRemote();
    changed();
  },
  using: usingRemote,
  status: remoteStatus,
};
