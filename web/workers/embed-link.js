// The retrieval worker's line to the embedding worker (a MessagePort the page hands over): Python
// calls embed / embedBackground / countTokens through it (readingroom_host); the page replaces it
// when that worker is restarted, and says when it cannot serve, so no call is left hanging.

import { rpcClient } from './rpc.js';

/** Python values crossing into JS arrive as proxies unless Python converted them already. */
function jsList(value) {
  if (Array.isArray(value)) return value;
  if (value && typeof value.toJs === 'function') return value.toJs();
  return Array.from(value);
}

// The embedding worker's port. The page replaces it (reconnectEmbedder) when that worker dies and
// is started again; embed calls still waiting on the dead one are rejected then, never left hanging.
let embedClient = null;
let embedPort = null;
// Set while the page knows the embedder cannot serve: {offline, message}; message says why, after
// "The embedding model " (e.g. "could not be loaded (…)").
let embedUnavailable = null;

/** The error an embed call gets while the model cannot load: OfflineError when the browser is offline. */
function unavailableError({ offline, message }) {
  const err = new Error(offline
    ? 'The embedding model is not available offline: it was never saved on this device. Connect to the internet once to load it.'
    : `The embedding model ${message}. Searching by words still works.`);
  err.name = offline ? 'OfflineError' : 'EmbedderUnavailable';
  return err;
}

/** One call to the embedding worker ('embed', 'embedBackground', 'countTokens') over texts. */
export function embedCall(op, texts) {
  if (embedUnavailable) return Promise.reject(unavailableError(embedUnavailable));
  if (!embedClient) return Promise.reject(new Error('The embedding model is not connected yet.'));
  return embedClient(op, { texts: jsList(texts) });
}

/** A new port to the (restarted) embedder; calls waiting on the old one fail with a clear message. */
export function reconnectEmbedder({ port }) {
  embedUnavailable = null;
  usePort(port);
  return true;
}

/** The first port (from the page's start message); a later one replaces it (reconnectEmbedder). */
export function connectEmbedder(port) {
  if (!embedClient) usePort(port);
}

function usePort(port) {
  const old = embedClient;
  const oldPort = embedPort;
  embedPort = port;
  embedClient = rpcClient(port);
  if (old) {
    const err = new Error('The embedding model stopped while this was being indexed, and was restarted. '
      + 'Its passages are found by their words until they are embedded, on the next add or reload.');
    err.name = 'EmbedderStopped';
    old.failAll(err);
    oldPort?.close();
  }
}

/** The page ended the embedding worker ({offline, message}): calls waiting on it, and later ones, fail with why. */
export function embedderUnavailable({ offline, message }) {
  embedUnavailable = { offline: Boolean(offline), message: String(message ?? '') };
  embedClient?.failAll(unavailableError(embedUnavailable));
  return true;
}
