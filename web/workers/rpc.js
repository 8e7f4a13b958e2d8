// Request/response over postMessage, shared by the page and both workers.
//
// Requests are {id, op, ...fields}; replies are {id, ok: true, result} or
// {id, ok: false, error: {type, message}}. Anything else that arrives (progress events,
// {type: 'progress', ...}) goes to the onEvent callback.

/** An error that crossed a worker boundary; `type` is the machine-readable kind. */
export class RemoteError extends Error {
  constructor({ type = 'error', message = 'unknown error' } = {}) {
    super(message);
    this.name = 'RemoteError';
    this.type = type;
  }
}

/** Wraps a result so the reply transfers (rather than copies) the given buffers. */
export class Transfer {
  constructor(value, list) {
    this.value = value;
    this.list = list;
  }
}

/** Plain-object form of any thrown value, safe to post. */
export function errorInfo(err) {
  if (err && typeof err === 'object') {
    return { type: String(err.type ?? err.name ?? 'error'), message: String(err.message ?? err) };
  }
  return { type: 'error', message: String(err) };
}

/**
 * Returns call(op, fields, transfer) -> Promise of the other side's result.
 * call.failAll(error) rejects every call still waiting (the other side died or was replaced: its
 * replies will never come) and makes later calls reject at once with the same error.
 */
export function rpcClient(target, onEvent = () => {}) {
  let nextId = 1;
  const pending = new Map();
  target.addEventListener('message', (event) => {
    const msg = event.data;
    const waiter = msg && pending.get(msg.id);
    if (!waiter || msg.ok === undefined) {
      onEvent(msg);
      return;
    }
    pending.delete(msg.id);
    if (msg.ok) waiter.resolve(msg.result);
    else waiter.reject(new RemoteError(msg.error));
  });
  target.start?.(); // a MessagePort only delivers to addEventListener after start()
  let failed = null;
  function call(op, fields = {}, transfer = []) {
    if (failed) return Promise.reject(failed);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      target.postMessage({ ...fields, id, op }, transfer);
    });
  }
  call.failAll = (error) => {
    failed = error;
    const waiting = [...pending.values()];
    pending.clear();
    for (const waiter of waiting) waiter.reject(error);
  };
  call.pending = () => pending.size;
  return call;
}

/** Answers requests arriving on `target` with handlers[op](message). */
export function rpcServe(target, handlers) {
  target.addEventListener('message', async (event) => {
    const msg = event.data;
    if (!msg || msg.id === undefined || msg.op === undefined) return;
    const handler = handlers[msg.op];
    try {
      if (!handler) throw new RemoteError({ type: 'bad_request', message: `unknown op ${msg.op}` });
      const out = await handler(msg);
      if (out instanceof Transfer) target.postMessage({ id: msg.id, ok: true, result: out.value }, out.list);
      else target.postMessage({ id: msg.id, ok: true, result: out });
    } catch (err) {
      target.postMessage({ id: msg.id, ok: false, error: errorInfo(err) });
    }
  });
  target.start?.();
}
