// One tab at a time. The database lives behind a Web Lock (sqlite-host.js). A tab waiting on it
// can ask the tab holding it to let go: that tab closes its database, ends its workers (which
// releases the lock) and says so, with a button to take the library back.

import { RemoteError } from '../rpc.js';
import { showState, state, worker } from './core.js';
import { embedding, stopHeartbeat } from './embedder.js';
import { view } from './view.js';

const tabs = typeof BroadcastChannel === 'function' ? new BroadcastChannel('readingroom-tabs') : null;

export function askToTakeOver() {
  if (!tabs) return;
  view.showBanner('tab-lock', 'Asking the other tab to let go of the library…');
  tabs.postMessage({ type: 'take-over' });
}

tabs?.addEventListener('message', (event) => {
  if (event.data?.type === 'take-over' && !['locked', 'elsewhere'].includes(state.state)) releaseToOtherTab();
});

async function releaseToOtherTab() {
  state.state = 'elsewhere';
  stopHeartbeat();
  const gone = new RemoteError({ type: 'elsewhere', message: 'Reading Room is open in another tab.' });
  if (worker.rpc) {
    // Python never holds a transaction open across an await, so closing now leaves nothing half-written.
    await worker.rpc('close').catch(() => {});
    state.retrievalWorker.terminate(); // releases the OPFS handles and the Web Lock
    worker.rpc.failAll(gone);
  }
  embedding.worker?.terminate();
  embedding.call?.failAll(gone);
  view.setPhase('elsewhere');
  showState();
  view.showNotice('');
  view.showBanner('embedder-problem', '');
  view.showBanner('tab-lock', 'Reading Room is open in another tab. Only one tab at a time can use your library.',
    [{ label: 'Use it here', onClick: () => location.reload() }]);
}
