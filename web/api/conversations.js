// Conversations kept in this browser (IndexedDB, so they survive reloads and work offline), apart
// from the library's database: deleting or replacing documents never loses a conversation.
//
// A conversation: {id, title, created, updated, turns: [turn]}; a turn is what the page needs to
// show it again and to pass it on as history: {question, mode, answer (Python's Answer, without
// its evidence), generated, check, state}.

const DB = 'readingroom-conversations';
const STORE = 'conversations';

let opened = null;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function open() {
  opened ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'id' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  return opened;
}

async function store(mode) {
  return (await open()).transaction(STORE, mode).objectStore(STORE);
}

/** Every conversation, the latest first. */
export async function listConversations() {
  const all = await request((await store('readonly')).getAll());
  return all.sort((a, b) => b.updated - a.updated);
}

export async function saveConversation(conversation) {
  await request((await store('readwrite')).put({ ...conversation, updated: Date.now() }));
}

export async function deleteConversation(id) {
  await request((await store('readwrite')).delete(id));
}

export function newConversation() {
  const now = Date.now();
  return { id: `c${now.toString(36)}${Math.random().toString(36).slice(2, 7)}`, title: '', created: now, updated: now, turns: [] };
}

/** What a turn keeps of Python's Answer: everything but the candidates' evidence (large). */
export function keptAnswer(answer) {
  if (!answer) return null;
  const { evidence, ...rest } = answer;
  return rest;
}

/** What a written answer said that the check found supported (all of it when it was not checked). */
function supportedText(t) {
  if (!t.generated || !t.checkable) return t.generated || '';
  return (t.check?.sentences ?? []).filter((s) => s.supported).map((s) => t.generated.slice(s.start, s.end)).join(' ');
}

/** The conversation's earlier turns as ask()'s `history`. */
export function historyOf(conversation) {
  return conversation.turns.filter((t) => t.mode === 'ask').map((t) => ({
    question: t.question,
    answer: supportedText(t) || (t.answer?.quick ?? []).map((q) => q.text).join(' ') || null,
    standalone_query: t.answer?.standalone_query ?? null,
  }));
}
