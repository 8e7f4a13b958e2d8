// Small DOM helpers shared by the UI parts. Text is only ever set with textContent or text nodes:
// nothing from a document, a file name or a model becomes HTML.

export const $ = (id) => document.getElementById(id);

/** el('p', 'class', 'text'): an element with an optional class and text. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/**
 * h('button', {class, text, dataset, onclick, 'aria-label': …}, ...children): props that are
 * properties of the element (onclick, hidden, checked…) are set as such, others as attributes.
 * Children are nodes or strings (strings become text nodes); null/undefined/false are skipped.
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = String(value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key in node && typeof value !== 'string') node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

export function formatBytes(bytes) {
  const n = Number(bytes) || 0;
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export const plural = (n, word, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

export const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;

/** "a › b › c" for a heading path. */
export const headingText = (path) => (path ?? []).join(' › ');

/** Where in its file a passage is, after the file's name: Python's `place` without the name
 * ("slide 7 (notes)", "sheet Q3 · rows 2–40", "page 4 · 2.3 Costs"); '' when it says no more. */
export function placeTail(src) {
  const base = String(src?.doc_name ?? '').split(/[\\/]/).pop();
  const place = String(src?.place ?? '');
  return place.startsWith(`${base} · `) ? place.slice(base.length + 3) : '';
}


const PIPE = /(?<!\\)\|/;

/** A pipe-table line's cells ("| a | b |" and "a | b" alike), trimmed, an escaped "\|" read as
 * "|"; an empty cell between two pipes stays a cell. */
export function tableCells(line) {
  const parts = line.trim().split(PIPE);
  if (parts.length > 1 && !parts[0].trim()) parts.shift();
  if (parts.length > 1 && !parts.at(-1).trim()) parts.pop();
  return parts.map((c) => c.trim().replaceAll('\\|', '|'));
}
