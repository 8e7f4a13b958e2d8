// Index files: opening one (Open index file…, window.readingroom.importIndex, the bundled
// library) and saving the library as one (exportLibrary, downloadLibrary). See library.js's
// header for the automation API.

import { RemoteError } from '../rpc.js';
import { libraryReady, publicStatus, refreshDocuments, retrieval } from './core.js';
import { view } from './view.js';

const MB = (bytes) => (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0);

export function importMessage({ phase, bytes, total }) {
  if (phase === 'reading') return `Importing index… ${MB(bytes)}${total ? ` of ${MB(total)}` : ''} MB`;
  if (phase === 'checking') return 'Importing index… checking the file';
  return 'Importing index… opening it';
}

/** The worker's importIndex fields for a URL, Blob or bytes (see the comment at the top). */
function importFields(source) {
  if (typeof source === 'string' || source instanceof URL) {
    const url = new URL(source, location.href);
    if (url.origin !== location.origin) {
      throw new RemoteError({ type: 'bad_request', message: `importIndex only reads from this app's own origin, not ${url.origin}` });
    }
    return { url: url.href };
  }
  if (source instanceof Blob) return { blob: source };
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source) };
  if (ArrayBuffer.isView(source)) return { bytes: new Uint8Array(source.buffer, source.byteOffset, source.byteLength) };
  throw new RemoteError({ type: 'bad_request', message: 'importIndex takes a same-origin URL, a File/Blob, or an ArrayBuffer/Uint8Array' });
}

/** The worker's mergeBundle reply as importIndex's: the new status, or {error}. */
async function mergeAsBundle(fields, version) {
  const reply = await retrieval('mergeBundle', { ...fields, version: String(version) });
  return reply.error ? reply : reply.status;
}

export async function importIndex(source, { asBundle } = {}) {
  await libraryReady;
  const fields = importFields(source);
  view.showActivity('Importing index…');
  view.showImportProgress({ phase: 'reading', bytes: 0, total: null }, 'Importing index…');
  try {
    const out = await (asBundle === undefined ? retrieval('importIndex', fields) : mergeAsBundle(fields, asBundle))
      .finally(() => view.showImportProgress(null));
    if (out.error) {
      view.showActivity('');
      view.showNotice(out.error.message);
      return publicStatus(out);
    }
    view.showCounts(out);
    view.showMismatch(out.mismatch);
    await refreshDocuments();
    view.showActivity(`Imported an index of ${out.documents} document${out.documents === 1 ? '' : 's'}.`);
    return publicStatus(out);
  } catch (err) {
    view.showActivity('');
    view.showNotice(`The index could not be imported: ${err.message}`);
    throw err;
  }
}

/**
 * Open the index bundled with the site (build.py --index, or the demo corpus) as the library's
 * bundled set, once per bundle version: the library records the version it holds (Python's
 * bundle.py), so a person who deletes bundled documents keeps them deleted, and a site with a
 * new bundle replaces the old bundled documents while the person's own stay.
 */
export async function openBundle(bundle, status) {
  if (!bundle || status.bundle_version === bundle.sha256) return;
  view.showActivity(`Opening the bundled library (${(bundle.size / 1e6).toFixed(1)} MB)…`);
  try {
    const out = await mergeAsBundle({ url: new URL(bundle.path, location.href).href }, bundle.sha256)
      .finally(() => view.showImportProgress(null));
    if (out.error) throw out.error;
    view.showCounts(out);
    view.showMismatch(out.mismatch);
    await refreshDocuments();
    view.showActivity(`Opened the bundled library: ${out.documents} documents, ready to ask.`);
  } catch (err) {
    view.showActivity('');
    view.showNotice(`The bundled library could not be opened: ${err.message ?? err}`);
  }
}

/** The whole library as one SQLite file named with today's date (a File), consistent: taken between two writes. */
export async function exportLibrary() {
  await libraryReady;
  const bytes = await retrieval('exportDatabase');
  if (bytes?.error) throw new RemoteError(bytes.error);
  const day = new Date().toISOString().slice(0, 10);
  return new File([bytes], `reading-room-library-${day}.sqlite`, { type: 'application/vnd.sqlite3' });
}

/** Saves exportLibrary()'s file through the browser's download; returns {name, size}. */
export async function downloadLibrary() {
  const file = await exportLibrary();
  const url = URL.createObjectURL(file);
  const link = Object.assign(document.createElement('a'), { href: url, download: file.name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { name: file.name, size: file.size };
}
