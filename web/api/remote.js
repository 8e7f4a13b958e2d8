// A remote library: a team's `readingroom serve` (URL and bearer token), a source beside the
// local library. Its answers are Python's Answer.to_dict() and RetrievalResult.to_dict(), the
// same JSON the local worker gives, so they are shown the same way, marked `remote`.
//
// Nothing of the local library is ever sent to it: a request carries the question, the earlier
// *questions* of the conversation (never their answers, which quote local documents), and k and
// the context budget. Never document ids, names, passages or the local scope.
//
// The URL and token live in this browser's localStorage only. The page's Content-Security-
// Policy admits the remote origin from the next load on (chat/csp.js), as for a chat server.

const KEY = 'readingroom.remoteLibrary';
const storage = () => (typeof localStorage !== 'undefined' ? localStorage : null);

/** {url, token, active} or null. */
export function loadRemote() {
  try {
    const value = JSON.parse(storage()?.getItem(KEY) ?? 'null');
    return value && typeof value.url === 'string' && typeof value.token === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** The origin of a remote library's URL, or null when it is not an http(s) URL. */
export function remoteOrigin(url = loadRemote()?.url) {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** Keeps a remote library; a bad URL or an empty token is refused with a sentence. */
export function saveRemote({ url, token, active = true }) {
  const clean = String(url ?? '').trim().replace(/\/+$/, '');
  if (!remoteOrigin(clean)) throw new Error('The remote library needs an http:// or https:// address.');
  if (!String(token ?? '').trim()) throw new Error('The remote library needs its access token.');
  const value = { url: clean, token: String(token).trim(), active: Boolean(active) };
  storage()?.setItem(KEY, JSON.stringify(value));
  return value;
}

export function setRemoteActive(active) {
  const r = loadRemote();
  if (r) storage()?.setItem(KEY, JSON.stringify({ ...r, active: Boolean(active) }));
}

export function clearRemote() {
  storage()?.removeItem(KEY);
}

/** Whether questions go to the remote library now (configured, chosen, and admitted by the CSP). */
export function remoteActive(allowed) {
  const r = loadRemote();
  return Boolean(r?.active && allowed && remoteOrigin(r.url) === allowed);
}

function failure(type, message) {
  return { error: { type, message } };
}

async function call(method, path, body) {
  const r = loadRemote();
  if (!r) return failure('no_remote', 'No remote library is configured.');
  let response;
  try {
    response = await fetch(`${r.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${r.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (err) {
    return failure('offline', `The remote library at ${remoteOrigin(r.url)} cannot be reached (${err?.message ?? err}).`);
  }
  const data = await response.json().catch(() => null);
  if (response.status === 401) return failure('unauthorised', 'The remote library refused the token: check it in Sources.');
  if (!response.ok) {
    return failure(data?.error?.type ?? 'remote', data?.error?.message ?? `The remote library answered ${response.status}.`);
  }
  return { ...data, remote: { origin: remoteOrigin(r.url) } };
}

/** Only what may leave: earlier questions as strings, k and the context budgets. */
function outgoing({ history = [], k, model_budget: modelBudget, budget } = {}) {
  const questions = history.map((t) => (typeof t === 'string' ? t : t?.question)).filter((q) => typeof q === 'string');
  const options = {};
  if (Number.isInteger(k)) options.k = k;
  if (Number.isInteger(modelBudget)) options.model_budget = modelBudget;
  if (Number.isInteger(budget)) options.budget = budget;
  return { history: questions, options };
}

export async function remoteAsk(question, options = {}) {
  const { history, options: opts } = outgoing(options);
  return call('POST', '/v1/ask', { question: String(question ?? ''), history, options: opts });
}

export async function remoteQuery(text, options = {}) {
  const { options: opts } = outgoing(options);
  return call('POST', '/v1/search', { query: String(text ?? ''), options: opts });
}

export async function remoteStatus() {
  return call('GET', '/v1/status');
}
