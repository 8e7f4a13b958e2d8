// Adding to the library from the page: files through "Add files" or dropped anywhere on the page,
// an index file through "Open index file…", and "Download library". Outcomes go to the Sources
// pane as text.

import { $, plural } from './dom.js';
import * as notices from './notices.js';
import { showActivity, showFileMessages } from './sources.js';

/** A failed write because storage is full gets the storage-full message; others their own. */
export function problemText(error) {
  return notices.storageFullMessage(error) ?? error?.message ?? String(error);
}

async function addFromUser(api, files) {
  if (!files?.length) return;
  showActivity(`Adding ${plural(files.length, 'file')}…`);
  try {
    const report = await api.addDocuments(Array.from(files));
    if (report.error) throw report.error;
    const messages = (report.rejected_files ?? []).map((r) => ({ text: r.message }));
    const outcomes = report.documents ?? [];
    let full = false;
    for (const o of outcomes) {
      // What a stored file left out (a capped sheet, a page with no text), in Python's words.
      for (const note of o.notes ?? []) messages.push({ text: note, kind: 'info' });
      if (o.status !== 'error') continue;
      if (o.error?.type === 'cancelled') {
        messages.push({ text: `Cancelled: ${o.name} was not added.`, kind: 'info' });
      } else if (notices.storageFullMessage(o.error) || (o.error?.type === 'storage' && (await notices.storageLooksFull()))) {
        full = true;
        messages.push({ text: `${o.name} was not added: storage is full.` });
      } else {
        messages.push({ text: o.error?.message ?? `${o.name} could not be added` });
      }
    }
    if (full) notices.showNotice(notices.storageFullMessage({ type: 'quota' }));
    showFileMessages(messages);
    const count = (status) => outcomes.filter((o) => o.status === status).length;
    const parts = [];
    if (count('added')) parts.push(`added ${count('added')}`);
    if (count('replaced')) parts.push(`updated ${count('replaced')}`);
    if (count('unchanged')) parts.push(`${count('unchanged')} unchanged`);
    const skipped = files.length - outcomes.length - (report.rejected_files?.length ?? 0);
    if (skipped > 0) parts.push(`${skipped} not started`);
    showActivity(parts.length ? `Documents: ${parts.join(', ')}.` : '');
  } catch (err) {
    showActivity('');
    const full = notices.storageFullMessage(err) ?? (err?.type === 'storage' && (await notices.storageLooksFull())
      ? notices.storageFullMessage({ type: 'quota' }) : null);
    if (full) notices.showNotice(full);
    else showFileMessages([{ text: err.message ?? String(err) }]);
  }
}

/** Files dropped on the drop zone, or anywhere on the page, are added. */
function wireDrop(api) {
  const zone = $('drop-zone');
  let depth = 0;
  const dragging = (on) => {
    zone.classList.toggle('dragging', on);
    document.body.classList.toggle('dragging', on);
  };
  window.addEventListener('dragenter', (e) => {
    e.preventDefault();
    depth += 1;
    dragging(true);
  });
  window.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (!depth) dragging(false);
  });
  // A file dropped outside a handler would make the browser navigate away to it.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    dragging(false);
    addFromUser(api, Array.from(e.dataTransfer?.files ?? []));
  });
}

export function wireAdding(api) {
  const input = $('file-input');
  input.addEventListener('change', () => {
    addFromUser(api, Array.from(input.files));
    input.value = '';
  });
  wireDrop(api);

  const indexInput = $('index-input');
  $('open-index').addEventListener('click', () => indexInput.click());
  indexInput.addEventListener('change', async () => {
    const [file] = indexInput.files;
    indexInput.value = '';
    if (!file) return;
    try {
      const out = await api.importIndex(file);
      if (!out.error) showActivity(`Opened ${file.name}: ${plural(out.documents, 'document')}, ready to ask.`);
    } catch {
      // importIndex has shown what went wrong
    }
  });

  $('download-library').addEventListener('click', async (e) => {
    const button = e.currentTarget;
    button.disabled = true;
    try {
      const { name, size } = await api.downloadLibrary();
      showActivity(`Saved ${name} (${(size / 1e6).toFixed(1)} MB). Open index file… restores it.`);
    } catch (err) {
      notices.showNotice(`The library could not be saved: ${problemText(err)}`);
    } finally {
      button.disabled = false;
    }
  });
}
