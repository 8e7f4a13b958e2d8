// Turn what the user hands us (files, or {name, text} / {name, pages} objects) into documents for
// Python. Only decoding and the file-type gate live here; everything about the text itself is
// Python's (HTML goes over raw: Python extracts its text and drops scripts and styles; Office,
// OpenDocument, EPUB and RTF files go over as their bytes, and Python's extract package reads them
// exactly as the CLI does). PDFs are the one exception: pdf.js reads their text per page and their
// outline here, and Python cleans and chunks the pages.

// The extension -> type table of Python's extract.FORMATS (tests/browser checks they agree).
const TEXT = { md: 'md', markdown: 'md', txt: 'txt', text: 'txt', html: 'html', htm: 'html', xhtml: 'html', xht: 'html', csv: 'csv', tsv: 'tsv' };
for (const ext of ['py', 'js', 'ts', 'java', 'go', 'rs', 'c', 'h', 'cpp', 'json', 'yaml', 'toml', 'rst', 'org', 'tex']) TEXT[ext] = ext;
TEXT.yml = 'yaml';
const BINARY = {
  docx: 'docx', docm: 'docx', pptx: 'pptx', pptm: 'pptx', xlsx: 'xlsx', xlsm: 'xlsx', ods: 'ods',
  odt: 'odt', odp: 'odp', epub: 'epub', rtf: 'rtf',
  // templates: the same packages under another extension
  dotx: 'docx', dotm: 'docx', xltx: 'xlsx', xltm: 'xlsx', potx: 'pptx', potm: 'pptx', ott: 'odt', ots: 'ods', otp: 'odp',
};
const PICTURES = { png: 'png', jpg: 'jpg', jpeg: 'jpg', tif: 'tiff', tiff: 'tiff' };
export const TYPES = { ...TEXT, ...BINARY, ...PICTURES, pdf: 'pdf' };
const READS = 'Markdown, text, HTML, PDF, Word, PowerPoint, Excel, OpenDocument, EPUB, RTF, CSV/TSV, source files and pictures';
// Python's extract.OLDER: formats another program can save as one we read (tests/badinput checks both say it).
export const OLDER = {
  doc: ['a Word 97–2003 document', 'docx'], dot: ['a Word 97–2003 template', 'docx'],
  xls: ['an Excel 97–2003 workbook', 'xlsx'], xlt: ['an Excel 97–2003 template', 'xlsx'],
  xlsb: ['an Excel binary workbook', 'xlsx'],
  ppt: ['a PowerPoint 97–2003 presentation', 'pptx'], pps: ['a PowerPoint 97–2003 slide show', 'pptx'],
  pot: ['a PowerPoint 97–2003 template', 'pptx'],
  pages: ['an Apple Pages document', 'docx'], numbers: ['an Apple Numbers spreadsheet', 'xlsx'],
  key: ['an Apple Keynote presentation', 'pptx'],
};

/** Why a file of this extension is not read (Python's extract.why_unread). */
function whyUnread(ext) {
  if (OLDER[ext]) {
    const [what, save] = OLDER[ext];
    return `${what} (.${ext}), which Reading Room does not read: save it as .${save} (or PDF) in the program that made it`;
  }
  return `${ext ? `.${ext} files` : 'files without an extension'} are not read (Reading Room reads ${READS})`;
}
// Python's limit for raw files (ingest.MAX_FILE_BYTES): refuse before reading a huge file into memory.
const MAX_FILE_BYTES = 100 * 1024 * 1024;

let cancelled = false; // set by cancelReading(): OCR stops before its next page

/** Stops reading (OCR) the files of the addDocuments in flight; the file being read is not added. */
export function cancelReading() {
  cancelled = true;
}

function stopIfCancelled(name) {
  if (cancelled) throw Object.assign(new Error(`adding ${name} was cancelled; nothing of it was stored`), { type: 'cancelled' });
}

function tooLarge(file) {
  return { error: { type: 'too_large', message: `${file.name} is ${Math.round(file.size / 2 ** 20)} MB; the limit for files is 100 MB` } };
}

/** Bytes as base64 (JSON carries them to the worker), in slices so no argument list overflows. */
function base64(bytes) {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

function extension(name) {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** A picture's words, read by OCR in the page; Python makes the document and refuses an empty one. */
async function fromPicture(file, type, onProgress) {
  if (file.size > MAX_FILE_BYTES) return tooLarge(file);
  try {
    const { recognize } = await import('./ocr.js');
    stopIfCancelled(file.name);
    onProgress({ phase: 'ocr', name: file.name, done: 0, total: 1 });
    const text = await recognize(file);
    onProgress({ phase: 'ocr', name: file.name, done: 1, total: 1 });
    return { doc: { name: file.name, type, ocr_pages: [text] } };
  } catch (err) {
    return { error: { type: err?.type ?? 'ocr_failed', message: err?.type ? err.message : `${file.name}: the picture could not be read (${err?.message ?? err})` } };
  }
}

/** A scanned page (no text layer) rendered at 300 dpi and read by OCR. */
async function ocrPage(name, page, number, total, onProgress) {
  const { recognize } = await import('./ocr.js');
  stopIfCancelled(name);
  onProgress({ phase: 'ocr', name, done: number - 1, total });
  const viewport = page.getViewport({ scale: 300 / 72 });
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(viewport.width);
  canvas.height = Math.ceil(viewport.height);
  await page.render({ canvasContext: canvas.getContext('2d'), viewport }).promise;
  const text = await recognize(canvas);
  canvas.width = canvas.height = 0;
  return text;
}

async function fromPdf(file, onProgress) {
  if (file.size > MAX_FILE_BYTES) return tooLarge(file);
  try {
    const { pdfPages } = await import('./pdf.js');
    const { pages, outline, scanned, unreadable, fonts } = await pdfPages(file.name, file,
      (done, total) => onProgress({ phase: 'pdf', name: file.name, done, total }),
      (page, n, total) => ocrPage(file.name, page, n, total, onProgress));
    // fonts only matter without an outline (headings by font size): not sent otherwise.
    return { doc: { name: file.name, type: 'pdf', pages, outline, scanned, unreadable, ...(outline.length ? {} : { fonts }) } };
  } catch (err) {
    return { error: { type: err?.type ?? 'not_pdf', message: err?.message ?? `${file.name} could not be read` } };
  }
}

async function fromFile(file, onProgress) {
  const ext = extension(file.name);
  const type = TYPES[ext];
  if (!type) {
    return { error: { type: 'unsupported', message: `${file.name}: ${whyUnread(ext)}` } };
  }
  if (file.size === 0) return { error: { type: 'empty_document', message: `${file.name} is empty` } };
  if (type === 'pdf') return fromPdf(file, onProgress);
  if (PICTURES[ext]) return fromPicture(file, type, onProgress);
  if (BINARY[ext]) {
    if (file.size > MAX_FILE_BYTES) return tooLarge(file);
    return { doc: { name: file.name, type, data_b64: base64(new Uint8Array(await file.arrayBuffer())) } };
  }
  const bytes = await file.arrayBuffer();
  try {
    // fatal: never guess here; UTF-8 is read in place, and anything else (UTF-16, Windows-1252)
    // goes to Python as bytes, which decodes it as the command line does (extract/text.py).
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { doc: { name: file.name, text, type } };
  } catch {
    if (file.size > MAX_FILE_BYTES) return tooLarge(file);
    return { doc: { name: file.name, type, data_b64: base64(new Uint8Array(bytes)) } };
  }
}

function fromObject(item) {
  const name = String(item?.name ?? 'untitled.txt');
  const extra = item?.meta ? { meta: item.meta } : {};
  if (Array.isArray(item?.pages)) {
    const outline = Array.isArray(item.outline) ? { outline: item.outline } : {};
    return { doc: { name, type: item.type ?? 'pdf', pages: item.pages.map(String), ...outline, ...extra } };
  }
  if (typeof item?.text !== 'string') {
    return { error: { type: 'bad_input', message: `${name}: text must be a string` } };
  }
  // No type given: Python infers it from the name (and refuses types it cannot read).
  return { doc: { name, text: item.text, ...(item.type ? { type: item.type } : {}), ...extra } };
}

/**
 * Returns {docs: [{name, text | pages (+ outline) | data_b64, type}], rejected: [{name, type, message}]}.
 * onProgress({phase: 'pdf' | 'ocr', name, done, total}) reports pages read from PDFs and by OCR.
 */
export async function readDocuments(input, onProgress = () => {}) {
  cancelled = false;
  const items = Array.from(input ?? []);
  const docs = [];
  const rejected = [];
  for (const item of items) {
    const isFile = typeof Blob !== 'undefined' && item instanceof Blob;
    const { doc, error } = isFile ? await fromFile(item, onProgress) : fromObject(item);
    if (doc) docs.push(doc);
    else rejected.push({ name: item?.name ?? '', ...error });
  }
  if (cancelled) {
    // Cancel while reading: nothing read goes on to be stored.
    for (const doc of docs.splice(0)) {
      rejected.push({ name: doc.name, type: 'cancelled', message: `adding ${doc.name} was cancelled; nothing of it was stored` });
    }
  }
  return { docs, rejected };
}
