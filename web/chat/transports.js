// Chat transports. Each one is
//
//   { name, label, request(messages), stream({messages, context, signal}) -> AsyncIterable<string> }
//
// `request` returns the request body as sent (minus credentials) for the debug view; `context`
// is the packed retrieval context (only the no-model transport uses it).
// `stream` yields pieces of the answer as they arrive. It throws a ChatError when something
// goes wrong; `kind` says what:
//   unreachable   no HTTP answer at all (server down, refused, blocked by the page's CSP)
//   http          a non-2xx answer; `status` and `body` carry what the server said
//   server        the server reported an error inside a 2xx answer or in the stream
//   interrupted   the stream stopped before the answer was complete
//   aborted       the user pressed Stop
//   model         the in-browser model could not be loaded or run
// Pieces already yielded stay valid: the panel keeps them and marks the answer.

import { completionsUrl, endpointOrigin } from './settings.js';
import { readEvents } from './sse.js';

const BODY_LIMIT = 2000; // characters of an error body shown to the user

export class ChatError extends Error {
  constructor(kind, message, extra = {}) {
    super(message);
    this.name = 'ChatError';
    this.kind = kind;
    Object.assign(this, extra);
  }
}

export const isAbort = (err) => err?.name === 'AbortError' || err?.kind === 'aborted';

function aborted() {
  return new ChatError('aborted', 'Stopped.');
}

/** The error message a JSON error body carries ({error: {message}} or {error: "..."}), if any. */
export function errorMessage(body) {
  const e = body?.error ?? (body?.object === 'error' ? body : undefined);
  if (e === undefined || e === null) return null;
  if (typeof e === 'string') return e;
  return String(e.message ?? e.type ?? JSON.stringify(e));
}

function clip(text) {
  return text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}…` : text;
}

/**
 * OpenAI-compatible /v1/chat/completions with stream: true (llama-server, vLLM, Ollama,
 * LM Studio, OpenAI itself...).
 *
 * config: {baseUrl, model, apiKey, temperature, maxTokens, allowedOrigin}
 * `allowedOrigin` is the origin the page's CSP lets us reach (see csp.js); a different one
 * means the user changed the URL and must reload first.
 */
export function openAITransport(config) {
  const { baseUrl, model, apiKey, temperature, maxTokens, allowedOrigin } = config;
  return {
    name: 'openai',
    label: 'OpenAI-compatible server',
    request(messages) {
      // What goes over the wire, minus the Authorization header (the debug view shows this).
      const body = { messages, stream: true, temperature, max_tokens: maxTokens };
      if (model) body.model = model;
      return body;
    },
    async *stream({ messages, signal }) {
      if (!baseUrl) throw new ChatError('unreachable', 'No server URL is set. Open Settings and enter one, e.g. http://127.0.0.1:8080/v1.');
      let url;
      try {
        url = completionsUrl(baseUrl);
      } catch {
        throw new ChatError('unreachable', `"${baseUrl}" is not a URL.`);
      }
      const origin = endpointOrigin(baseUrl);
      if (!origin) throw new ChatError('unreachable', `"${baseUrl}" is not an http(s) URL.`);
      if (origin !== location.origin && origin !== allowedOrigin) {
        throw new ChatError('unreachable',
          `This page may only connect to ${allowedOrigin ?? 'its own origin'} until it is reloaded. ` +
          `Reload the page to use ${origin}.`, { needsReload: true });
      }
      const headers = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
      if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
      let response;
      try {
        response = await fetch(url, {
          method: 'POST', headers, body: JSON.stringify(this.request(messages)), signal,
          credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer',
        });
      } catch (err) {
        if (signal?.aborted || isAbort(err)) throw aborted();
        throw new ChatError('unreachable', `Could not reach ${url} (${err.message || err}). Is the server running, and does it allow requests from this page (CORS)?`, { url });
      }
      if (!response.ok) {
        let text = '';
        try {
          text = await response.text();
        } catch {
          // body unreadable: status alone
        }
        let detail = text.trim();
        try {
          detail = errorMessage(JSON.parse(text)) ?? detail;
        } catch {
          // not JSON: show the text
        }
        throw new ChatError('http',
          `The server answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}` +
          `${detail ? `: ${clip(detail)}` : ''}`,
          { status: response.status, body: clip(text) });
      }
      const type = response.headers.get('Content-Type') ?? '';
      if (!type.includes('text/event-stream')) {
        // A server that ignored stream: true, or an error object with a 2xx status.
        const text = await response.text().catch(() => '');
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          throw new ChatError('server', `The server sent ${type || 'an answer'} that is not a chat completion: ${clip(text)}`, { body: clip(text) });
        }
        const problem = errorMessage(json);
        if (problem) throw new ChatError('server', `The server reported an error: ${clip(problem)}`, { body: clip(text) });
        const content = json?.choices?.[0]?.message?.content;
        if (typeof content !== 'string') throw new ChatError('server', `The server's answer has no message: ${clip(text)}`, { body: clip(text) });
        yield content;
        return;
      }
      let finished = false;
      try {
        for await (const { data } of readEvents(response.body, signal)) {
          if (data.trim() === '[DONE]') {
            finished = true;
            break;
          }
          let chunk;
          try {
            chunk = JSON.parse(data);
          } catch {
            throw new ChatError('server', `The server sent something that is not JSON in the stream: ${clip(data)}`);
          }
          const problem = errorMessage(chunk);
          if (problem) throw new ChatError('server', `The server reported an error: ${clip(problem)}`, { body: clip(data) });
          const choice = chunk?.choices?.[0];
          const piece = choice?.delta?.content ?? choice?.text;
          if (typeof piece === 'string' && piece) yield piece;
          if (choice?.finish_reason) finished = true;
        }
      } catch (err) {
        if (err instanceof ChatError) throw err;
        if (signal?.aborted || isAbort(err)) throw aborted();
        throw new ChatError('interrupted', `The connection broke off before the answer was complete (${err.message || err}).`);
      }
      if (!finished) {
        if (signal?.aborted) throw aborted();
        throw new ChatError('interrupted', 'The server closed the connection before the answer was complete.');
      }
    },
  };
}

/** No model: the answer is the packed context itself, i.e. the sources. */
export function contextOnlyTransport() {
  return {
    name: 'none',
    label: 'No model (sources only)',
    request() {
      return null;
    },
    async *stream({ context }) {
      if (context === null || context === undefined) {
        throw new ChatError('model', 'Plain chat needs a model: choose one under Settings, or turn "Answer from my documents" back on.');
      }
      yield context;
    },
  };
}
