// Reading text in pictures in the page: tesseract.js (npm tesseract.js 7.0.0, its wasm core from
// tesseract.js-core 7.0.0 and the English "best_int" model from @tesseract.js-data/eng 1.0.0),
// served from this origin under vendor/ocr/. Nothing of it loads before the first picture or
// scanned page: then each file is fetched once, checked against the sha256 build.py pinned in
// build-manifest.json, and kept in Cache Storage ("ocr-assets"), which the service worker serves
// it from offline. A file that fails its check stops OCR with a typed error; nothing unchecked
// is ever run. Only words come back: Python builds the document (extract/ocr.py).

const CACHE_NAME = 'ocr-assets';
const here = (path) => new URL(path, import.meta.url).href;
const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

let ready = null; // Promise of the tesseract.js worker

/** An Error whose `type` the page shows as a per-file message. */
export function problem(type, message) {
  return Object.assign(new Error(message), { type });
}

async function checked(entry) {
  const url = here(`../${entry.path}`);
  const cache = 'caches' in self ? await caches.open(CACHE_NAME).catch(() => null) : null;
  let response = await cache?.match(url);
  if (!response) {
    try {
      response = await fetch(url, { cache: 'no-store' });
    } catch {
      throw problem('offline', 'reading text in pictures needs its files once; this browser is offline and has not got them yet');
    }
    if (!response.ok) throw problem('offline', `the OCR file ${entry.path} could not be downloaded (HTTP ${response.status})`);
  }
  const bytes = await response.arrayBuffer();
  if (!crypto?.subtle) throw problem('ocr_model', 'this page cannot check the OCR files (not a secure context), so it does not run them');
  const actual = hex(await crypto.subtle.digest('SHA-256', bytes));
  if (actual !== entry.sha256) {
    await cache?.delete(url);
    const what = entry.path.endsWith('.traineddata.gz') ? 'OCR language file' : 'OCR file';
    throw problem('ocr_model', `the ${what} ${entry.path.split('/').pop()} fails its check (sha256 ${actual.slice(0, 12)}…, expected ${entry.sha256.slice(0, 12)}…); reload the page to download it again`);
  }
  await cache?.put(url, new Response(bytes, { headers: { 'Content-Type': response.headers.get('Content-Type') ?? 'application/octet-stream' } })).catch(() => {});
  return url;
}

async function start() {
  const manifest = await (await fetch(here('../build-manifest.json'))).json();
  const files = manifest.ocr ?? {};
  if (!files.module || !files.worker || !files.core || !files.lang) throw problem('ocr_unavailable', 'this build of the page has no OCR files');
  const [moduleUrl, workerUrl, coreUrl, langUrl] = await Promise.all(
    [files.module, files.worker, files.core, files.lang].map(checked));
  const { default: Tesseract } = await import(moduleUrl);
  return Tesseract.createWorker('eng', Tesseract.OEM.LSTM_ONLY, {
    workerPath: workerUrl, corePath: coreUrl, langPath: langUrl.slice(0, langUrl.lastIndexOf('/')),
    workerBlobURL: false, cacheMethod: 'none', gzip: true,
  });
}

/** The text tesseract reads in `image` (a Blob, canvas or ImageData). */
export async function recognize(image) {
  ready ??= start();
  let worker;
  try {
    worker = await ready;
  } catch (err) {
    ready = null; // the next picture tries again (back online, or the file fixed)
    throw err;
  }
  const { data } = await worker.recognize(image);
  return data?.text ?? '';
}
