// The question box's keys: Enter sends, Shift+Enter is a new line, `/` anywhere focuses the box,
// and `#` followed by letters offers the documents whose names contain them: choosing one asks
// only that document (more #picks in one question add to it), and the #word leaves the text.

import { $, h } from './dom.js';
import { currentFilters, matchDocuments, scopeTo } from './sources.js';

const TAG = /#([\p{L}\p{N}_./-]+)$/u;

export function wireComposer() {
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
