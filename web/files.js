// Turn what the user hands us (files, or {name, text} objects) into documents for Python.
// Only decoding and the file-type gate live here; everything about the text itself is Python's.

const TYPES = { md: 'md', markdown: 'md', txt: 'txt', text: 'txt' };

function extension(name) {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

async function fromFile(file) {
  const type = TYPES[extension(file.name)];
  if (!type) return { error: { type: 'unsupported', message: `${file.name} is not a .md or .txt file` } };
  if (file.size === 0) return { error: { type: 'empty_document', message: `${file.name} is empty` } };
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
  if (typeof item?.text !== 'string') {
    return { error: { type: 'bad_input', message: `${name}: text must be a string` } };
  }
  // No type given: Python infers it from the name (and refuses types it cannot read).
  return { doc: item.type ? { name, text: item.text, type: item.type } : { name, text: item.text } };
}

/** Returns {docs: [{name, text, type}], rejected: [{name, type, message}]}. */
export async function readDocuments(input) {
  const items = Array.from(input ?? []);
  const docs = [];
  const rejected = [];
  for (const item of items) {
    const isFile = typeof Blob !== 'undefined' && item instanceof Blob;
    const { doc, error } = isFile ? await fromFile(item) : fromObject(item);
    if (doc) docs.push(doc);
    else rejected.push({ name: item?.name ?? '', ...error });
  }
  return { docs, rejected };
}
