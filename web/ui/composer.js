// The question box's keys: Enter sends, Shift+Enter is a new line, `/` anywhere focuses the box,
// and `#` followed by letters offers the documents whose names contain them: choosing one asks
// only that document (more #picks in one question add to it), and the #word leaves the text.
// While a question is typed, its vector is asked for ahead (`typeAhead`, debounced): once the
// typing pauses, the text so far is embedded, one request at a time, and a text changed meanwhile
// is sent when that one ends (the older vector stays in Python's cache, unused). Enter then often
// finds the question's vector ready.

import { $, h } from './dom.js';
import { currentFilters, matchDocuments, scopeTo } from './sources.js';

const TAG = /#([\p{L}\p{N}_./-]+)$/u;
const TYPE_AHEAD_MS = 250; // a pause in typing this long asks for the text's vector
const TYPE_AHEAD_MIN = 3; // characters before anything is asked

/** Debounced type-ahead: fn(text) for the latest text after a pause, never two at once. */
function typingAhead(fn) {
  let timer = null;
  let busy = false;
  let sent = '';
  let latest = '';
  const send = () => {
    if (busy || latest === sent || latest.length < TYPE_AHEAD_MIN) return;
    busy = true;
    sent = latest;
    Promise.resolve(fn(sent)).catch(() => {}).finally(() => {
      busy = false;
      send(); // the text changed while that one was embedded
    });
  };
  return (text) => {
    latest = text.split(/\s+/).filter(Boolean).join(' ');
    clearTimeout(timer);
    timer = setTimeout(send, TYPE_AHEAD_MS);
  };
}

export function wireComposer({ typeAhead = null } = {}) {
  const box = $('query');
  const form = $('query-form');
  const list = $('doc-suggestions');
  let options = [];
  let active = 0;
  let pickedSinceSend = false;

  const close = () => {
    list.hidden = true;
    options = [];
    box.setAttribute('aria-expanded', 'false');
    box.removeAttribute('aria-activedescendant');
  };
  const highlight = () => {
    [...list.children].forEach((li, i) => li.setAttribute('aria-selected', String(i === active)));
    box.setAttribute('aria-activedescendant', `doc-suggestion-${active}`);
  };
  const pick = (doc) => {
    const before = box.value.slice(0, box.selectionStart).replace(TAG, '');
    box.value = before + box.value.slice(box.selectionStart);
    box.setSelectionRange(before.length, before.length);
    const now = currentFilters().doc_ids;
    scopeTo(pickedSinceSend && now ? [...new Set([...now, doc.id])] : [doc.id]);
    pickedSinceSend = true;
    close();
    box.focus();
  };
  const suggest = () => {
    const match = TAG.exec(box.value.slice(0, box.selectionStart));
    options = match ? matchDocuments(match[1]) : [];
    if (!options.length) {
      close();
      return;
    }
    active = 0;
    list.replaceChildren(...options.map((doc, i) => {
      const li = h('li', { role: 'option', id: `doc-suggestion-${i}`, text: doc.name });
      li.addEventListener('mousedown', (e) => {
        e.preventDefault(); // keep the focus in the box
        pick(doc);
      });
      return li;
    }));
    list.hidden = false;
    box.setAttribute('aria-expanded', 'true');
    highlight();
  };

  box.setAttribute('role', 'combobox');
  box.setAttribute('aria-expanded', 'false');
  box.addEventListener('input', suggest);
  if (typeAhead) {
    const ahead = typingAhead(typeAhead);
    box.addEventListener('input', () => ahead(box.value.replace(/#[\p{L}\p{N}_./-]*/gu, ' ')));
  }
  box.addEventListener('blur', close);
  box.addEventListener('keydown', (e) => {
    if (options.length) {
      const step = { ArrowDown: 1, ArrowUp: -1 }[e.key];
      if (step) {
        e.preventDefault();
        active = (active + step + options.length) % options.length;
        highlight();
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        pick(options[active]);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        close();
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      pickedSinceSend = false;
      form.requestSubmit();
    }
  });
}
