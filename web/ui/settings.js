// The chat settings (which model writes answers, its server, temperature, budget, k) and the
// light/dark toggle. Chat settings live in this browser's localStorage (chat/settings.js); the API
// key only ever in its own password field and the Authorization header.

import { allowedOrigin } from '../chat/csp.js';
import {
  DEFAULTS, endpointOrigin, loadApiKey, loadSettings, saveApiKey, saveSettings,
} from '../chat/settings.js';
import { contextBudget } from '../chat/pace.js';
import { engineInfo } from '../chat/wllama-transport.js';
import { $, h } from './dom.js';

const TRANSPORT_LABELS = {
  none: 'No model: the quick answer from your documents',
  openai: 'OpenAI-compatible server (llama-server, Ollama, vLLM, OpenAI…)',
  wllama: 'In this browser: SmolLM2-135M (experimental; downloads 145 MB; most of what it writes is not in your documents)',
};

let settings = loadSettings();
export const currentSettings = () => settings;

function field(label, input, hint) {
  return h('label', { class: 'chat-field' },
    h('span', { class: 'chat-field-label', text: label }), input,
    hint ? h('span', { class: 'chat-hint', text: hint }) : null);
}

/** Builds the settings form into `where`; onChange() after every change. */
export function mountSettings(where, onChange = () => {}) {
  const transportSelect = h('select', { name: 'transport' },
    Object.entries(TRANSPORT_LABELS).map(([value, text]) => h('option', { value, text })));
  const baseUrl = h('input', { name: 'baseUrl', type: 'url', placeholder: 'http://127.0.0.1:8080/v1', autocomplete: 'off', spellcheck: 'false' });
  const model = h('input', { name: 'model', type: 'text', placeholder: 'model name (optional for llama-server)', autocomplete: 'off', spellcheck: 'false' });
  const apiKey = h('input', { name: 'apiKey', type: 'password', autocomplete: 'off', placeholder: 'optional' });
  const temperature = h('input', { name: 'temperature', type: 'number', min: 0, max: 2, step: 0.1 });
  const maxTokens = h('input', { name: 'maxTokens', type: 'number', min: 1, max: 8192, step: 1 });
  const budget = h('input', { name: 'budget', type: 'number', min: 50, max: 32000, step: 50 });
  const k = h('input', { name: 'k', type: 'number', min: 1, max: 50, step: 1, placeholder: 'automatic' });
  const fitBudget = h('input', { name: 'fitBudget', type: 'number', min: 500, max: 1_000_000, step: 500 });
  const grounded = h('input', { type: 'checkbox', name: 'grounded' });
  const serverFields = h('fieldset', { class: 'chat-server' },
    h('legend', { text: 'Server' }),
    field('Base URL', baseUrl, 'Requests go to <base URL>/chat/completions.'),
    field('Model', model),
    field('API key', apiKey, 'Kept in this browser only (localStorage); sent only to this server.'),
    field('Model context (tokens)', fitBudget, `Summaries: a document that fits is sent whole, a longer one as its section summaries. Default ${DEFAULTS.fitBudget}.`));
  const form = h('form', { class: 'chat-settings-form' },
    field('Model', transportSelect),
    serverFields,
    h('fieldset', {},
      h('legend', { text: 'Answer' }),
      field('Temperature', temperature),
      field('Max tokens', maxTokens)),
    h('fieldset', {},
      h('legend', { text: 'Retrieval' }),
      field('Context budget (tokens)', budget, 'Empty: chosen for the model (smaller in this browser, so answers start within seconds).'),
      field('Passages (k)', k, 'Empty: as many as the answer draws on by default.')));
  const box = h('details', { class: 'chat-settings' }, h('summary', { text: 'Answer settings' }), form);
  where.append(box);
  // Beside the box, not in the settings: whether questions go to the documents at all.
  document.querySelector('#chat-root .composer-foot').prepend(
    h('label', { class: 'chat-grounded toggle', title: 'Off: plain chat with the model, without your documents' },
      grounded, ' Use my documents'));

  const fill = () => {
    transportSelect.value = settings.transport;
    baseUrl.value = settings.baseUrl;
    model.value = settings.model;
    apiKey.value = loadApiKey();
    temperature.value = String(settings.temperature);
    maxTokens.value = String(settings.maxTokens);
    budget.value = settings.budget === null ? '' : String(settings.budget);
    budget.placeholder = `automatic: ${contextBudget(settings.transport, { threads: engineInfo().threads })}`;
    k.value = settings.k === null ? '' : String(settings.k);
    fitBudget.value = String(settings.fitBudget);
    grounded.checked = settings.grounded;
    serverFields.hidden = settings.transport !== 'openai';
    showEngine();
    showReloadNote();
  };
  const save = () => {
    settings = saveSettings({
      transport: transportSelect.value,
      baseUrl: baseUrl.value,
      model: model.value,
      temperature: temperature.value,
      maxTokens: maxTokens.value,
      budget: budget.value,
      k: k.value,
      fitBudget: fitBudget.value,
      grounded: grounded.checked,
    });
    saveApiKey(apiKey.value);
    fill();
    onChange();
  };
  form.addEventListener('change', save);
  grounded.addEventListener('change', save);
  form.addEventListener('submit', (e) => e.preventDefault());
  fill();
}

/** True when the configured server is not one this page may connect to before a reload. */
export function serverNeedsReload() {
  const origin = endpointOrigin(settings.baseUrl);
  return settings.transport === 'openai' && Boolean(origin) && origin !== location.origin && origin !== allowedOrigin;
}

export function showReloadNote() {
  const note = document.querySelector('#chat-root .chat-reload');
  const blocked = serverNeedsReload();
  note.hidden = !blocked;
  note.replaceChildren();
  if (blocked) {
    note.append(
      `For your privacy this page only connects to servers it was loaded with. Reload it to connect to ${endpointOrigin(settings.baseUrl)}. `,
      h('button', { type: 'button', text: 'Reload now', onclick: () => location.reload() }));
  }
}

function showEngine() {
  const where = settings.transport === 'openai'
    ? (endpointOrigin(settings.baseUrl) ?? 'no server set')
    : { wllama: 'in this browser', none: 'no model' }[settings.transport];
  document.querySelector('#chat-root .chat-engine').textContent = `Model: ${where}`;
}

// --- light and dark ---------------------------------------------------------------------------

const THEME_KEY = 'readingroom.theme.v1';

/** The header's toggle: follows prefers-color-scheme until pressed, then remembers the choice. */
export function wireTheme() {
  const button = $('theme-toggle');
  const system = window.matchMedia('(prefers-color-scheme: dark)');
  const stored = () => {
    try {
      return localStorage.getItem(THEME_KEY);
    } catch {
      return null;
    }
  };
  const apply = () => {
    const choice = stored();
    if (choice) document.documentElement.dataset.theme = choice;
    else delete document.documentElement.dataset.theme;
    const dark = choice ? choice === 'dark' : system.matches;
    button.setAttribute('aria-pressed', String(dark));
    button.textContent = 'Dark';
    button.title = dark ? 'Switch to the light theme' : 'Switch to the dark theme';
  };
  button.addEventListener('click', () => {
    const dark = button.getAttribute('aria-pressed') === 'true';
    try {
      localStorage.setItem(THEME_KEY, dark ? 'light' : 'dark');
    } catch {
      document.documentElement.dataset.theme = dark ? 'light' : 'dark';
    }
    apply();
  });
  system.addEventListener?.('change', apply);
  apply();
}
