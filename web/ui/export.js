// A conversation as Markdown: each question, the quick answer and the written answer with their
// [n], and under them the sources they cite resolved to document names, pages and headings.

import { sourcesOf, tableOf, whereText } from './answer.js';
import { headingText, tableCells } from './dom.js';
import { splitCitations } from '../chat/prompt.js';

/** A pipe-table line's cell count ("| a | b |" and "a | b" both 2). */
const cellCount = (line) => tableCells(line).length;

/** A table line with one more cell at its end, after any cells it lacks to reach ``columns``. */
function withCell(line, columns, cell) {
  const body = line.trim().replace(/\s*(?<!\\)\|\s*$/, '').replace(/^(?!\|)/, '| ');
  return `${body}${' |'.repeat(Math.max(0, columns - cellCount(line)))} | ${cell} |`;
}

/** The quick answer's lines: its sentences in one paragraph each run; a table's rows as a Markdown
 * table under their header row (once for consecutive rows of one table), with a Source column for
 * each row's [n], since text after a row's last cell is not part of the table. */
function quickMarkdown(quick) {
  const out = ['**From your documents:**', ''];
  let prose = [];
  let table = null;
  let columns = 0;
  const flush = () => { if (prose.length) out.push(prose.join(' '), ''); prose = []; };
  for (const q of quick) {
    const head = tableOf(q);
    if (head !== table && table) out.push('');
    if (!head) {
      table = null;
      prose.push(`${q.text} [${q.n}]`);
      continue;
    }
    flush();
    if (head !== table) {
      columns = cellCount(q.header);
      out.push(withCell(q.header, columns, 'Source'), `|${' --- |'.repeat(columns + 1)}`);
    }
    table = head;
    out.push(withCell(q.text, columns, `[${q.n}]`));
  }
  flush();
  if (table) out.push('');
  return out;
}

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
    if (quick.length) lines.push(...quickMarkdown(quick));
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
