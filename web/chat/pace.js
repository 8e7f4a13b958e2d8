// How long a generated answer will take, and how much context each transport gets.
//
// The in-page model spends most of its wait reading the prompt (prefill): a few dozen tokens a
// second on a 2-core laptop. So its context budget is sized for the first token to come within
// TARGET_FIRST_TOKEN_MS once the model is loaded, and the page only starts it on its own when
// the expected wait meets that target; otherwise it offers a "Write an answer" button that
// says how long it will take. A server transport keeps the full budget and always starts.
//
// Rates: measured in this browser after each in-page answer (llama.cpp's own timings) and kept
// in localStorage per thread count; before the first measurement, DEFAULT_RATES, which are
// figures measured on a 2-core machine (see README "Chat" and bench/generation.py), rounded down.

export const TARGET_FIRST_TOKEN_MS = 5000;
export const SERVER_BUDGET = 1200; // retrieval budget (tokens of packed context) for a server

// Prefill and generation tokens/s of the in-page model (SmolLM2-135M Q8_0 in wllama) by thread
// count, before this browser has measured its own. Measured on the project's 2-core machine
// while it was shared (load average 6; bench/generation.py speed): 1 thread read the prompt at
// 19.8 tokens/s and wrote at 6.1. Two threads were slower there (the cores were oversubscribed),
// so until a quiet measurement exists they plan with the 1-thread figures; this browser's own
// measurements replace both as soon as it has answered once.
export const DEFAULT_RATES = Object.freeze({
  1: Object.freeze({ prefillTps: 20, generateTps: 6 }),
  2: Object.freeze({ prefillTps: 20, generateTps: 6 }),
});
export const OVERHEAD_MS = 200; // per request: tokenising, the chat template, handing over to the worker

// The in-page model's context budget (retrieval tokens), from the rates:
//   model tokens that fit = (TARGET - overhead - one generation step) * prefill rate
//                           - PROMPT_OVERHEAD_TOKENS (instructions, template, question)
//   budget = that * RETRIEVAL_PER_MODEL_TOKEN (retrieval counts with another tokenizer),
// never below MIN_BUDGET (one short passage: below that an answer has nothing to stand on;
// the page then offers the answer with its expected wait instead of starting it).
export const PROMPT_OVERHEAD_TOKENS = 100; // the instructions are 64 SmolLM2 tokens
export const RETRIEVAL_PER_MODEL_TOKEN = 1.15; // 1.17 measured on the bundled reference
export const MIN_BUDGET = 150;

// Characters per model token of prompt text (4.09 measured for SmolLM2 on the bundled
// reference; rounded down, so the estimate errs long).
export const CHARS_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 5; // <|im_start|>role\n ... <|im_end|>\n

const RATES_KEY = 'readingroom.chat.rates.v1';

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function storedRates() {
  try {
    return JSON.parse(storage()?.getItem(RATES_KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
}

const positive = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0;

/**
 * The rates to plan with for `threads`: this browser's measurement when there is one, else the
 * defaults. {prefillTps, generateTps, measured: bool}
 */
export function ratesFor(threads) {
  const base = DEFAULT_RATES[threads >= 2 ? 2 : 1];
  const seen = storedRates()[String(threads)];
  if (seen && positive(seen.prefillTps) && positive(seen.generateTps)) {
    return { prefillTps: seen.prefillTps, generateTps: seen.generateTps, measured: true };
  }
  return { ...base, measured: false };
}

/**
 * Records one in-page run's llama.cpp timings ({prompt_n, prompt_ms, predicted_n, predicted_ms}).
 * Short runs say little about the rate, so they count for less: the kept rate moves towards
 * the new one by a weight that grows with the tokens measured.
 */
export function recordRun(threads, timings) {
  if (!timings) return null;
  const all = storedRates();
  const old = all[String(threads)] ?? {};
  const next = { ...old };
  const blend = (prev, rate, n) => {
    if (!positive(rate)) return prev;
    if (!positive(prev)) return rate;
    const w = Math.min(0.5, n / 400);
    return prev * (1 - w) + rate * w;
  };
  if (timings.prompt_n >= 16 && timings.prompt_ms > 0) {
    next.prefillTps = blend(old.prefillTps, (timings.prompt_n * 1000) / timings.prompt_ms, timings.prompt_n);
  }
  if (timings.predicted_n >= 4 && timings.predicted_ms > 0) {
    next.generateTps = blend(old.generateTps, (timings.predicted_n * 1000) / timings.predicted_ms, timings.predicted_n * 4);
  }
  all[String(threads)] = next;
  try {
    storage()?.setItem(RATES_KEY, JSON.stringify(all));
  } catch {
    // storage full or off: the estimate keeps using the defaults
  }
  return next;
}

/** Forgets this browser's measured rates (the debug view and tests use it). */
export function forgetRates() {
  try {
    storage()?.removeItem(RATES_KEY);
  } catch {
    // nothing stored
  }
}

/** Model tokens a messages array will take, estimated from its characters. */
export function promptTokens(messages) {
  let chars = 0;
  for (const m of messages ?? []) chars += String(m?.content ?? '').length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * (messages?.length ?? 0);
}

/** Expected ms from handing `tokens` of prompt to the in-page model to its first token. */
export function estimateFirstTokenMs(tokens, { threads = 1, rates = ratesFor(threads) } = {}) {
  return Math.round(OVERHEAD_MS + (Math.max(0, tokens) * 1000) / rates.prefillTps + 1000 / rates.generateTps);
}

/** Expected ms for the whole answer: first token plus `maxTokens` more at the generation rate. */
export function estimateTotalMs(tokens, maxTokens, { threads = 1, rates = ratesFor(threads) } = {}) {
  return estimateFirstTokenMs(tokens, { threads, rates }) + Math.round((Math.max(0, maxTokens) * 1000) / rates.generateTps);
}

/** The in-page model's context budget (retrieval tokens) for `threads`, from the rates. */
export function inPageBudget(threads = 1, rates = ratesFor(threads)) {
  const readingMs = TARGET_FIRST_TOKEN_MS - OVERHEAD_MS - 1000 / rates.generateTps;
  const modelTokens = (readingMs * rates.prefillTps) / 1000 - PROMPT_OVERHEAD_TOKENS;
  return Math.max(MIN_BUDGET, Math.min(SERVER_BUDGET, Math.floor((modelTokens * RETRIEVAL_PER_MODEL_TOKEN) / 10) * 10));
}

/**
 * The retrieval budget to ask with: the user's own setting when they set one, else the
 * transport's default (a server and sources-only: SERVER_BUDGET; the in-page model: sized
 * for the first-token target at its thread count).
 */
export function contextBudget(transport, { threads = 1, budget = null } = {}) {
  if (Number.isInteger(budget) && budget > 0) return budget;
  return transport === 'wllama' ? inPageBudget(threads) : SERVER_BUDGET;
}

/**
 * Whether the page should start generating on its own: a configured server, sources only, or
 * the in-page model when it is already in this browser and its expected first token meets
 * the target. `engine`: {loaded, stored, threads, loadMs?}.
 */
export function shouldAutoStart(transport, tokens, engine = {}) {
  if (transport === 'none') return false; // no model: nothing to start
  if (transport !== 'wllama') return true;
  if (!engine.loaded && !engine.stored) return false; // a 145 MB download is the user's call
  const threads = engine.threads ?? 1;
  const loading = engine.loaded ? 0 : (engine.loadMs ?? 4000);
  return loading + estimateFirstTokenMs(tokens, { threads }) <= TARGET_FIRST_TOKEN_MS;
}

function roughSeconds(ms) {
  const s = ms / 1000;
  if (s < 1.5) return 'about a second';
  if (s < 60) return `about ${Math.round(s)} s`;
  const min = Math.round(s / 60);
  return `about ${min} min`;
}

/**
 * The sentence on the "Write an answer" button's side: how long until the first words, and
 * what else happens first. {firstTokenMs, downloadBytes?, loadMs?}
 */
export function expectedWaitText({ firstTokenMs, downloadBytes = 0, loadMs = 0 }) {
  const parts = [];
  if (downloadBytes > 0) parts.push(`downloads the model once (${Math.round(downloadBytes / 1e6)} MB)`);
  else if (loadMs > 0) parts.push('loads the model');
  const wait = roughSeconds((firstTokenMs ?? 0) + (downloadBytes > 0 ? 0 : loadMs));
  const first = `first words in ${wait}${downloadBytes > 0 ? ' after that' : ''}`;
  return parts.length ? `${parts.join(', ')}; ${first}` : `First words in ${wait}`;
}
