// The UI's side of api/view.js: the library's 'view' events call the function of that name in
// ui/notices.js or ui/sources.js, and its 'ingest' events drive the ingestion progress panel.
// Imported by app.js before api/library.js.

import { INGEST_STEPS, VIEW_NAMES, requestIngestCancel, viewEvents } from '../api/view.js';
import { IngestProgress } from './ingest.js';
import * as notices from './notices.js';
import * as sources from './sources.js';

const shown = { ...notices, ...sources };
for (const name of VIEW_NAMES) {
  if (typeof shown[name] !== 'function') throw new Error(`ui/bind.js: no UI function ${name}`);
}
viewEvents.addEventListener('view', ({ detail: { name, args } }) => shown[name](...args));

const progress = new IngestProgress(() => requestIngestCancel());
viewEvents.addEventListener('ingest', ({ detail: { name, args } }) => {
  if (INGEST_STEPS.includes(name)) progress[name](...args);
});
