// The chat side of window.readingroom, for the page and for automation (tests, bench answers):
//
//   readingroom.chat.status()                 -> chatStatus() below
//   readingroom.chat.budget(transport?)       -> retrieval budget (tokens) for that transport
//   readingroom.chat.plan(messages, transport?) -> {promptTokens, firstTokenMs, autoStart, waitText}
//   readingroom.chat.load(transport?)         -> loads the in-page model (no-op for others)
//   readingroom.chat.generate(messages, {transport?, maxTokens?, temperature?, signal?})
//        -> {text, firstTokenMs, totalMs, promptTokens, threads, prefillTps, generateTps}
//
// `messages` is always Python's `answer.messages` (Library.ask); nothing here builds a prompt.
// `transport` defaults to the one chosen in the chat settings.

import { chatManifest } from './manifest.js';
import {
  contextBudget, estimateFirstTokenMs, expectedWaitText, promptTokens, ratesFor, shouldAutoStart,
} from './pace.js';
import { loadApiKey, loadSettings } from './settings.js';
import { contextOnlyTransport, openAITransport } from './transports.js';
import { engineInfo, loadEngine, wllamaTransport } from './wllama-transport.js';
import { isStored } from './model-store.js';
import { allowedOrigin } from './csp.js';

/** Builds the transport object for a name, from the stored settings. */
export function makeTransport(name, settings, manifest, overrides = {}) {
  const temperature = overrides.temperature ?? settings.temperature;
  const maxTokens = overrides.maxTokens ?? settings.maxTokens;
  if (name === 'openai') {
    return openAITransport({
      baseUrl: settings.baseUrl, model: settings.model, apiKey: loadApiKey(),
      temperature, maxTokens, allowedOrigin,
    });
  }
  if (name === 'none') return contextOnlyTransport();
  return wllamaTransport({ chat: manifest, temperature, maxTokens });
}

/** Whether the in-page model file is already in this browser (no download before answering). */
async function modelStored(manifest) {
  return manifest ? isStored(manifest.model).catch(() => false) : false;
}

/** status().chat: {transport, threads, engine, loaded, model, budget, rates} */
export function chatStatus() {
  const settings = loadSettings();
  const engine = engineInfo();
  const rates = ratesFor(engine.threads);
  return {
    transport: settings.transport,
    threads: engine.threads,
    engine: engine.phase,
    loaded: engine.loaded,
    model: chatManifest.current?.model?.name ?? null,
    budget: contextBudget(settings.transport, { threads: engine.threads, budget: settings.budget }),
    rates: { prefillTps: Math.round(rates.prefillTps * 10) / 10, generateTps: Math.round(rates.generateTps * 10) / 10, measured: rates.measured },
  };
}

/**
 * The plan for one answer: how many prompt tokens, the expected first-token wait, whether to
 * start on its own, and the sentence for the "Write an answer" button.
 */
export async function plan(messages, transport = loadSettings().transport) {
  const tokens = promptTokens(messages);
  if (transport === 'none') { // no model: the quick answer and its sources are the answer
    return { transport, promptTokens: tokens, firstTokenMs: null, autoStart: false, waitText: '' };
  }
  if (transport !== 'wllama') {
    return { transport, promptTokens: tokens, firstTokenMs: null, autoStart: true, waitText: '' };
  }
  const manifest = await chatManifest.load();
  const engine = engineInfo();
  const stored = engine.loaded || await modelStored(manifest);
  const firstTokenMs = estimateFirstTokenMs(tokens, { threads: engine.threads });
  const loadMs = engine.loaded ? 0 : (engine.loadMs ?? 4000);
  return {
    transport,
    promptTokens: tokens,
    firstTokenMs,
    autoStart: shouldAutoStart(transport, tokens, { ...engine, stored }),
    waitText: expectedWaitText({
      firstTokenMs,
      loadMs,
      downloadBytes: stored ? 0 : (manifest?.model?.size ?? 0),
    }),
  };
}

async function generate(messages, options = {}) {
  const settings = loadSettings();
  const name = options.transport ?? settings.transport;
  const manifest = await chatManifest.load();
  const transport = makeTransport(name, settings, manifest, options);
  let timings = null;
  let text = '';
  let first = null;
  const t0 = performance.now();
  for await (const piece of transport.stream({
    messages, context: options.context ?? null, signal: options.signal, onTimings: (t) => { timings = t; },
  })) {
    if (first === null) first = performance.now() - t0;
    text += piece;
  }
  const perSecond = (n, ms) => (n > 0 && ms > 0 ? (n * 1000) / ms : null);
  return {
    text,
    firstTokenMs: first,
    totalMs: performance.now() - t0,
    promptTokens: timings?.prompt_n ?? promptTokens(messages),
    threads: name === 'wllama' ? engineInfo().threads : null,
    prefillTps: perSecond(timings?.prompt_n, timings?.prompt_ms),
    generateTps: perSecond(timings?.predicted_n, timings?.predicted_ms),
  };
}

/** The object installed as window.readingroom.chat. */
export function chatApi() {
  return {
    status: chatStatus,
    budget(transport) {
      const settings = loadSettings();
      return contextBudget(transport ?? settings.transport, { threads: engineInfo().threads, budget: settings.budget });
    },
    plan,
    async load(transport = loadSettings().transport) {
      if (transport === 'wllama') await loadEngine(await chatManifest.load());
      return chatStatus();
    },
    generate,
  };
}
