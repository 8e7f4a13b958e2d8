// Chat settings, kept in this browser's localStorage only.
//
// The API key lives under its own key so that nothing which shows or exports the settings
// (the debug view, a future "export settings") can carry it along by accident. It is never
// logged, never put in the DOM except in its own password field, and only ever sent as the
// Authorization header to the endpoint the user configured.

const SETTINGS_KEY = 'readingroom.chat.settings.v1';
const API_KEY_KEY = 'readingroom.chat.apiKey.v1';

export const TRANSPORTS = ['wllama', 'openai', 'none'];

export const DEFAULTS = Object.freeze({
  // none (the quick answer and its sources) | openai (a server) | wllama (in this browser). Not the
  // in-page model by default: too few of its sentences are supported by the sources (README, Chat).
  transport: 'none',
  baseUrl: '',         // e.g. http://127.0.0.1:8080/v1
  model: '',           // sent as `model`; llama-server ignores it, OpenAI needs it
  temperature: 0.2,
  maxTokens: 256,
  budget: null,        // options.budget for retrieval; null: each transport's own (pace.js contextBudget)
  k: 10,               // options.k for an answer's retrieval (ask.py ASK_RETRIEVAL: the same when not sent)
  fitBudget: 8000,     // the server model's context (tokens): a document that fits is summarised from its whole text
  grounded: true,      // false: plain chat, no retrieval
});

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: settings last for this page only
  }
}

const num = (value, fallback, { min, max, integer = false }) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) return fallback;
  return integer ? Math.round(n) : n;
};

/** Coerces anything read from storage or a form into valid settings (bad fields fall back). */
export function normalise(raw = {}) {
  const s = { ...DEFAULTS };
  if (TRANSPORTS.includes(raw.transport)) s.transport = raw.transport;
  if (typeof raw.baseUrl === 'string') s.baseUrl = raw.baseUrl.trim();
  if (typeof raw.model === 'string') s.model = raw.model.trim();
  s.temperature = num(raw.temperature, DEFAULTS.temperature, { min: 0, max: 2 });
  s.maxTokens = num(raw.maxTokens, DEFAULTS.maxTokens, { min: 1, max: 8192, integer: true });
  s.budget = raw.budget === null || raw.budget === undefined || raw.budget === ''
    ? null : num(raw.budget, DEFAULTS.budget, { min: 50, max: 32000, integer: true });
  s.k = num(raw.k, DEFAULTS.k, { min: 1, max: 50, integer: true });
  s.fitBudget = num(raw.fitBudget, DEFAULTS.fitBudget, { min: 500, max: 1_000_000, integer: true });
  if (typeof raw.grounded === 'boolean') s.grounded = raw.grounded;
  return s;
}

export function loadSettings() {
  let raw = {};
  try {
    raw = JSON.parse(storage()?.getItem(SETTINGS_KEY) ?? '{}') ?? {};
  } catch {
    raw = {};
  }
  return normalise(raw);
}

export function saveSettings(settings) {
  const clean = normalise(settings);
  try {
    storage()?.setItem(SETTINGS_KEY, JSON.stringify(clean));
  } catch {
    // quota or disabled storage: the settings still apply to this page
  }
  return clean;
}

export function loadApiKey() {
  try {
    return storage()?.getItem(API_KEY_KEY) ?? '';
  } catch {
    return '';
  }
}

export function saveApiKey(key) {
  try {
    if (key) storage()?.setItem(API_KEY_KEY, key);
    else storage()?.removeItem(API_KEY_KEY);
  } catch {
    // ignore: the key then lasts for this page only
  }
}

/**
 * The origin a base URL points at, or null when it is not a usable http(s) URL.
 * Only this serialised origin ever goes into a CSP source list.
 */
export function endpointOrigin(baseUrl) {
  if (!baseUrl) return null;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password) return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** The chat completions URL for a base URL: `.../v1` gets `/chat/completions` appended. */
export function completionsUrl(baseUrl) {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/chat/completions') ? path : `${path}/chat/completions`;
  return url.href;
}
