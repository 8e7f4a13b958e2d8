// Chat settings, kept in this browser's localStorage only.
//
// The API key lives under its own key so that nothing which shows or exports the settings
// (the debug view, a future "export settings") can carry it along by accident. It is never
// logged, never put in the DOM except in its own password field, and only ever sent as the
// Authorization header to the endpoint the user configured.

const SETTINGS_KEY = 'readingroom.chat.settings.v2';
// Settings saved before v2 always carried `k` (the page's old default, 8); v2 keeps `k` only
// when a person sets it, so those are read once without it (see loadSettings).
const SETTINGS_KEY_V1 = 'readingroom.chat.settings.v1';
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
  k: null,             // options.k for an answer's retrieval; null: not sent, Python's own (ask.py ASK_RETRIEVAL)
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

/** An integer a person may leave empty: null when empty or not a valid value. */
const optional = (value, range) => (value === null || value === undefined || value === ''
  ? null : num(value, null, { ...range, integer: true }));

/** Coerces anything read from storage or a form into valid settings (bad fields fall back). */
export function normalise(raw = {}) {
  const s = { ...DEFAULTS };
  if (TRANSPORTS.includes(raw.transport)) s.transport = raw.transport;
  if (typeof raw.baseUrl === 'string') s.baseUrl = raw.baseUrl.trim();
  if (typeof raw.model === 'string') s.model = raw.model.trim();
  s.temperature = num(raw.temperature, DEFAULTS.temperature, { min: 0, max: 2 });
  s.maxTokens = num(raw.maxTokens, DEFAULTS.maxTokens, { min: 1, max: 8192, integer: true });
  s.budget = optional(raw.budget, { min: 50, max: 32000 });
  s.k = optional(raw.k, { min: 1, max: 50 });
  s.fitBudget = num(raw.fitBudget, DEFAULTS.fitBudget, { min: 500, max: 1_000_000, integer: true });
  if (typeof raw.grounded === 'boolean') s.grounded = raw.grounded;
  return s;
}

function stored(key) {
  try {
    const text = storage()?.getItem(key);
    return text === null || text === undefined ? null : (JSON.parse(text) ?? {});
  } catch {
    return {};
  }
}

export function loadSettings() {
  const raw = stored(SETTINGS_KEY);
  if (raw !== null) return normalise(raw);
  const old = stored(SETTINGS_KEY_V1);
  if (old === null) return normalise({});
  const { k, ...rest } = old; // never set by the person alone: see SETTINGS_KEY
  return normalise(rest);
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
