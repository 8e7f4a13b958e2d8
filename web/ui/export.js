// A conversation as Markdown: each question, the quick answer and the written answer with their
// [n], and under them the sources they cite resolved to document names, pages and headings.

import { sourcesOf, whereText } from './answer.js';
import { headingText } from './dom.js';
import { splitCitations } from '../chat/prompt.js';

/** The Markdown text of a conversation record (api/conversations.js). */
export function conversationMarkdown(conversation) {
  const lines = [`# ${conversation.title || 'Conversation'}`, '',
    `Exported from Reading Room on ${new Date().toISOString().slice(0, 10)}.`, ''];
  for (const turn of conversation.turns) {
    lines.push(`## ${turn.question}`, '');
    const answer = turn.answer;
    const searched = answer?.standalone_query;
    if (searched && searched !== turn.question) lines.push(`_Searched for: ${searched}_`, '');
    if (answer?.message && (answer.reason || !answer.quick?.length)) lines.push(answer.message, '');
    const quick = answer?.quick ?? [];
    if (quick.length) lines.push(`**From your documents:** ${quick.map((q) => `${q.text} [${q.n}]`).join(' ')}`, '');
    if (turn.generated) lines.push(`**Written answer:** ${turn.generated.trim()}`, '');
    if (turn.error) lines.push(`_Error: ${turn.error}_`, '');
    const sources = sourcesOf(answer);
    const cited = new Set([...quick.map((q) => q.n),
      ...splitCitations(turn.generated ?? '', sources.length).flatMap((p) => p.refs ?? [])]);
    const listed = [...cited].sort((a, b) => a - b).filter((n) => sources[n - 1]);
    if (listed.length) {
      lines.push('Sources:', '');
      for (const n of listed) {
        const src = sources[n - 1];
        const heading = headingText(src.heading_paths?.[0]);
        lines.push(`- [${n}] ${whereText(src)}${heading ? ` — ${heading}` : ''}`);
      }
      lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
