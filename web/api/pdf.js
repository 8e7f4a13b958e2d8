// Text per page out of a PDF, with pdf.js (npm pdfjs-dist, served from vendor/pdfjs/ on this
// origin). Loaded only when a PDF is added. Python gets the pages as they are and does all the
// chunking; this file only asks pdf.js for each page's text items and joins them into lines.

const here = (path) => new URL(path, import.meta.url).href;

let pdfjs = null; // the module, once imported
let port = null; // one pdf.js worker for every PDF of this page

async function load() {
  if (!pdfjs) {
    pdfjs = await import('../vendor/pdfjs/pdf.min.mjs');
    port = new Worker(here('../vendor/pdfjs/pdf.worker.min.mjs'), { type: 'module', name: 'readingroom-pdf' });
    pdfjs.GlobalWorkerOptions.workerPort = port;
  }
  return pdfjs;
}

/**
 * A page's text: pdf.js items in reading order, with its end-of-line marks as newlines; and
 * its runs as [text, font height] (neighbours of one height merged), from which Python takes
 * headings by font size when the PDF has no outline (extract/pdffonts.py).
 */
function pageText(content) {
  let text = '';
  const runs = [];
  for (const item of content.items) {
    if (typeof item.str !== 'string') continue; // marked-content markers carry no text
    const piece = item.str + (item.hasEOL ? '\n' : '');
    text += piece;
    const size = Math.round(Math.hypot(item.transform[2], item.transform[3]) * 100) / 100;
    const height = Number.isFinite(size) ? size : 0; // a damaged page's NaN would reach Python as null
    const last = runs[runs.length - 1];
    if (last && (last[1] === height || !item.str.trim())) last[0] += piece;
    else runs.push([piece, height]);
  }
  return { text, runs };
}

/** An Error whose `type` the page shows as a per-file message. */
function problem(type, message) {
  return Object.assign(new Error(message), { type });
}

/** The bookmark outline as [level, title, 1-based page] rows, in order; [] when there is none. */
async function outlineOf(doc) {
  const out = [];
  const walk = async (items, level) => {
    for (const item of items ?? []) {
      try {
        const dest = typeof item.dest === 'string' ? await doc.getDestination(item.dest) : item.dest;
        const ref = Array.isArray(dest) ? dest[0] : null;
        const index = typeof ref === 'number' ? ref : ref ? await doc.getPageIndex(ref) : null;
        if (index !== null && index >= 0) out.push([level, String(item.title ?? '').trim(), index + 1]);
      } catch {
        // a broken bookmark is skipped, as pypdf's side does
      }
      await walk(item.items, level + 1);
    }
  };
  try {
    await walk(await doc.getOutline(), 1);
  } catch {
    return [];
  }
  return out;
}

/**
 * Returns {pages: [text of page 1, ...], outline: [[level, title, page], ...], scanned: [page numbers],
 * unreadable: [page numbers pdf.js could not read], fonts: [[[text, font height], ...] per page]}
 * for a PDF File/Blob. A page without text goes to ocrPage(page, n, total) (-> its text), if given.
 * onPage(done, total) reports progress. Throws an Error with `type` 'encrypted' or 'not_pdf'.
 */
export async function pdfPages(name, file, onPage = () => {}, ocrPage = null) {
  const lib = await load();
  const data = new Uint8Array(await file.arrayBuffer());
  // isEvalSupported: false keeps pdf.js from probing new Function(), which the page's CSP forbids.
  const task = lib.getDocument({ data, isEvalSupported: false, useSystemFonts: false, stopAtErrors: false });
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => {});
    if (err?.name === 'PasswordException') {
      throw problem('encrypted', `${name} is protected by a password; remove the password and add it again`);
    }
    throw problem('not_pdf', `${name} is not a readable PDF (${err?.message ?? err})`);
  }
  try {
    const pages = [];
    const fonts = [];
    const scanned = [];
    const unreadable = [];
    for (let n = 1; n <= doc.numPages; n += 1) {
      let page;
      let read;
      try {
        page = await doc.getPage(n);
        read = pageText(await page.getTextContent());
      } catch (err) {
        // One damaged page is not the file: it is left out, and the document's notes say so.
        console.warn(`Reading Room: ${name} page ${n} could not be read:`, err?.message ?? err);
        page?.cleanup();
        unreadable.push(n);
        pages.push('');
        fonts.push([]);
        onPage(n, doc.numPages);
        continue;
      }
      let { text } = read;
      fonts.push(read.runs);
      if (!text.trim() && ocrPage) {
        text = await ocrPage(page, n, doc.numPages); // a scan: its picture read by OCR
        scanned.push(n);
      }
      pages.push(text);
      page.cleanup();
      onPage(n, doc.numPages);
    }
    if (unreadable.length && unreadable.length === doc.numPages) {
      throw problem('not_pdf', `${name} is not a readable PDF (none of its pages could be read)`);
    }
    return { pages, outline: await outlineOf(doc), scanned, unreadable, fonts };
  } finally {
    await doc.destroy().catch(() => {});
  }
}
