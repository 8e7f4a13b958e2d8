// The embedding worker: started, watched, restarted. api/library.js binds it to the library's
// state and the retrieval worker with bindEmbedder.
//
// One embedding worker serves the page and (over its own MessageChannel) the retrieval worker.
// If it dies (an error event, or it stops answering the heartbeat; a terminated worker sends no
// event at all), the page terminates it, starts a new one once by itself and hands the retrieval
// worker the new port: embed calls waiting on the dead one reject there, so an ingest reports
// the document it was on instead of hanging. A second death shows a Restart button instead.

import { RemoteError, rpcClient } from '../rpc.js';
import { EMBEDDER_NAME, adopt, embedderWorker } from './early.js';
import { refetchModelFiles } from './offline.js';
import { view } from './view.js';

let host = null; // {state, retrieval(op, args, transfer), manifest(), onProgress}

export function bindEmbedder(library) {
  host = library;
}

const HEARTBEAT_MS = 2000;
const DEAD_AFTER_MS = 20000; // a ping unanswered this long: dead (one batch takes a few seconds)
export const embedding = { worker: null, call: null, generation: 0, deaths: 0, restarts: 0, heartbeat: null };

let early = embedderWorker; // started by the page's first script (early.js); restarts start their own

export function spawnEmbedder() {
  const generation = ++embedding.generation;
  const worker = early ?? new Worker('embed-worker.js', { type: 'module', name: EMBEDDER_NAME });
  early = null;
  const call = rpcClient(worker, host.onProgress);
  worker.addEventListener('error', (event) => {
    event.preventDefault?.();
    embedderDied(generation, event.message || 'script error');
  });
  adopt(worker);
  const channel = new MessageChannel();
  const started = call('connect', { port: channel.port1 }, [channel.port1]).then(() => call('start'));
  started.catch(() => {}); // handled by whoever awaits it
  Object.assign(embedding, { worker, call });
  return { port: channel.port2, started, generation };
}

export function stopHeartbeat() {
  clearInterval(embedding.heartbeat);
  embedding.heartbeat = null;
}

/** Pings the embedder every HEARTBEAT_MS; a ping unanswered for DEAD_AFTER_MS means it is dead. */
function startHeartbeat(generation) {
  stopHeartbeat();
  let since = 0;
  embedding.heartbeat = setInterval(() => {
    if (since && performance.now() - since > DEAD_AFTER_MS) {
      embedderDied(generation, 'it stopped answering');
      return;
    }
    if (since) return;
    since = performance.now();
    embedding.call('start').then((info) => {
      since = 0;
      if (host.state.embedder && generation === embedding.generation) host.state.embedder = info; // workers may change
    }, () => {});
  }, HEARTBEAT_MS);
}

function embedderDied(generation, why) {
  if (generation !== embedding.generation || host.state.state === 'elsewhere') return; // an old worker
  stopHeartbeat();
  embedding.worker.terminate();
  embedding.generation += 1; // nothing of the dead worker counts any more
  const message = `The embedding model stopped (${why}).`;
  embedding.call.failAll(new RemoteError({ type: 'embed_failed', message }));
  embedding.deaths += 1;
  host.state.embedder = null;
  host.state.embedderError = { type: 'embed_failed', message };
  console.warn('Reading Room:', message);
  if (embedding.deaths === 1) {
    restartEmbedder(); // once by itself
  } else {
    // The retrieval worker's calls on the dead port fail now, and later ones at once (words only).
    host.retrieval('embedderUnavailable', { offline: false, message: `stopped (${why})` }).catch(() => {});
    view.showBanner('embedder-problem', `${message} Searching by words still works; searching by meaning ` +
      'and adding documents need it.', [{ label: 'Restart the model', onClick: restartEmbedder }]);
  }
}

/** A new embedding worker; the retrieval worker switches to it at once. */
async function restartEmbedder() {
  stopHeartbeat();
  if (embedding.worker && host.state.embedder) { // a restart asked of a live one
    embedding.worker.terminate();
    embedding.call.failAll(new RemoteError({ type: 'embed_failed', message: 'The embedding model was restarted.' }));
  }
  const { port, started, generation } = spawnEmbedder();
  view.showBanner('embedder-problem', 'The embedding model stopped; restarting it…');
  await host.retrieval('reconnectEmbedder', { port }, [port]);
  let info;
  try {
    info = await started;
  } catch (err) {
    if (generation === embedding.generation) embedderFailedToLoad(err);
    return;
  }
  if (generation !== embedding.generation) return;
  embedding.restarts += 1;
  embedderReady(info, generation);
  view.showBanner('embedder-problem', '');
}

export function embedderReady(info, generation) {
  host.state.embedder = info;
  host.state.embedderError = null;
  view.setStep('model', 'done', `${info.model}, ${(info.loadMs / 1000).toFixed(1)} s`);
  startHeartbeat(generation);
  if (answerHelperWanted) startAnswerHelper(); // a restarted embedder, after the page was ready
}

let answerHelperWanted = false;

/**
 * The embedder's second model session, so a quick answer's sentences are embedded on both cores
 * (embed-worker.js addHelpers): asked for once the page is ready and no question is in flight
 * (start.js), never during its start-up.
 */
export function startAnswerHelper() {
  answerHelperWanted = true;
  embedding.call?.('answerHelper').catch(() => {});
}

/**
 * The model did not load (a damaged saved copy, or offline before it was ever saved). The app
 * stays usable for searching by words; the banner says what to do.
 */
export function embedderFailedToLoad(err) {
  stopHeartbeat();
  embedding.worker.terminate();
  embedding.generation += 1;
  const offline = navigator.onLine === false;
  const why = err?.message ?? String(err);
  host.state.embedder = null;
  host.state.embedderError = { type: offline ? 'offline' : 'embed_failed', message: why };
  embedding.call.failAll(new RemoteError({ type: host.state.embedderError.type, message: `The embedding model could not be loaded (${why}).` }));
  view.setStep('model', 'error', offline ? 'not available offline' : 'could not load');
  host.retrieval('embedderUnavailable', { offline, message: `could not be loaded (${why})` }).catch(() => {});
  view.showBanner('embedder-problem', offline
    ? 'The embedding model is not saved on this device and the browser is offline. Searching by words ' +
      'still works; connect to the internet, then download the model.'
    : `The embedding model could not be loaded (${why}). Its saved copy may be damaged. Searching by ` +
      'words still works; download the model again to search by meaning and add documents.',
  [{ label: 'Re-download model', onClick: redownloadModel }]);
}

/** Drops the saved model files, fetches them again from this site, and restarts the embedder. */
async function redownloadModel() {
  view.showBanner('embedder-problem', 'Downloading the model again…');
  try {
    await refetchModelFiles(host.manifest(), (done, total) => {
      view.showBanner('embedder-problem', `Downloading the model again… ${done} of ${total} files`);
    });
  } catch (err) {
    embedderFailedToLoad(new Error(`the download failed: ${err.message ?? err}`));
    return;
  }
  embedding.deaths = 0;
  await restartEmbedder();
}

