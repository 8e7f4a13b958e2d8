// Turn what the user hands us (files, or {name, text} / {name, pages} objects) into documents for
// Python. Only decoding and the file-type gate live here; everything about the text itself is
// Python's (HTML goes over raw: Python extracts its text and drops scripts and styles). PDFs are
// the one exception: pdf.js reads their text per page here, and Python chunks the pages.

const TYPES = { md: 'md', markdown: 'md', txt: 'txt', text: 'txt', html: 'html', htm: 'html', pdf: 'pdf' };
// Python's limit for raw files (ingest.MAX_FILE_BYTES): refuse before reading a huge PDF into memory.
const MAX_PDF_BYTES = 100 * 1024 * 1024;

function extension(name) {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

async function fromPdf(file, onProgress) {
  if (file.size > MAX_PDF_BYTES) {
    return { error: { type: 'too_large', message: `${file.name} is ${Math.round(file.size / 2 ** 20)} MB; the limit for files is 100 MB` } };
  }
  try {
    const { pdfPages } = await import('./pdf.js');
    const pages = await pdfPages(file.name, file, (done, total) => onProgress({ phase: 'pdf', name: file.name, done, total }));
    return { doc: { name: file.name, type: 'pdf', pages } };
  } catch (err) {
    return { error: { type: err?.type ?? 'not_pdf', message: err?.message ?? `${file.name} could not be read` } };
  }
}

async function fromFile(file, onProgress) {
  const type = TYPES[extension(file.name)];
  if (!type) return { error: { type: 'unsupported', message: `${file.name} is not a .md, .txt, .html or .pdf file` } };
  if (file.size === 0) return { error: { type: 'empty_document', message: `${file.name} is empty` } };
  if (type === 'pdf') return fromPdf(file, onProgress);
  const bytes = await file.arrayBuffer();
  try {
    // fatal: refuse to guess; a wrong decode would index mojibake silently.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { doc: { name: file.name, text, type } };
  } catch {
    return { error: { type: 'not_text', message: `${file.name} is not UTF-8 text` } };
  }
}

function fromObject(item) {
  const name = String(item?.name ?? 'untitled.txt');
  const extra = item?.meta ? { meta: item.meta } : {};
  if (Array.isArray(item?.pages)) {
    return { doc: { name, type: item.type ?? 'pdf', pages: item.pages.map(String), ...extra } };
  }
  if (typeof item?.text !== 'string') {
    return { error: { type: 'bad_input', message: `${name}: text must be a string` } };
  }
  // No type given: Python infers it from the name (and refuses types it cannot read).
  return { doc: { name, text: item.text, ...(item.type ? { type: item.type } : {}), ...extra } };
}

/**
 * Returns {docs: [{name, text | pages, type}], rejected: [{name, type, message}]}.
 * onProgress({phase: 'pdf', name, done, total}) reports pages read from PDFs.
 */
export async function readDocuments(input, onProgress = () => {}) {
  const items = Array.from(input ?? []);
  const docs = [];
  const rejected = [];
  for (const item of items) {
    const isFile = typeof Blob !== 'undefined' && item instanceof Blob;
    const { doc, error } = isFile ? await fromFile(item, onProgress) : fromObject(item);
    if (doc) docs.push(doc);
    else rejected.push({ name: item?.name ?? '', ...error });
  }
  return { docs, rejected };
}
