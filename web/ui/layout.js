// The three panes: Sources · Conversation · Reader side by side on wide screens; below 900 px one
// at a time behind tabs (Sources / Chat / Reader), the conversation first. The Reader opens when a
// citation or a passage is chosen, and Back returns to where the person was.

import { $ } from './dom.js';

const PANES = { sources: 'sources-pane', chat: 'chat-root', reader: 'reader-pane' };
const narrow = window.matchMedia('(max-width: 899px)');
let returnFocus = null; // what opened the reader: focus goes back there on Back

/** Shows one pane (on a phone: selects its tab). */
export function showPane(name) {
  const panes = $('panes');
  panes.dataset.active = name;
  for (const tab of document.querySelectorAll('#pane-tabs [role="tab"]')) {
    const selected = tab.dataset.pane === name;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
}

/** Opens the Reader beside the conversation (or on its own tab), remembering what opened it. */
export function openReaderPane(opener = document.activeElement) {
  returnFocus = opener instanceof HTMLElement ? opener : null;
  $('panes').dataset.reader = 'open';
  $('reader-empty').hidden = true;
  showPane('reader');
  // Focus moves to the reader so a keyboard user lands on what they asked to read.
  const title = document.querySelector('#reader .reader-title');
  title.tabIndex = -1;
  title.focus({ preventScroll: false });
}

/** Closes the Reader (Back) and returns focus to the citation or card that opened it. */
export function closeReaderPane() {
  $('panes').dataset.reader = 'closed';
  $('reader-empty').hidden = false;
  showPane('chat');
  if (returnFocus?.isConnected) returnFocus.focus();
  returnFocus = null;
}

export function wireLayout() {
  const tabs = [...document.querySelectorAll('#pane-tabs [role="tab"]')];
  for (const tab of tabs) {
    tab.addEventListener('click', () => {
      if (tab.dataset.pane === 'reader') $('panes').dataset.reader = 'open';
      showPane(tab.dataset.pane);
    });
    tab.addEventListener('keydown', (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (!step) return;
      const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
      next.click();
      next.focus();
    });
  }
  showPane('chat');
  narrow.addEventListener?.('change', () => showPane($('panes').dataset.active));
}

export const isNarrow = () => narrow.matches;

export { PANES };
