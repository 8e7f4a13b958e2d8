// How a generated answer's [n] citations map back to the source cards (presentation only: what
// the model is sent is Python's `answer.messages`, from Library.ask).

/**
 * The sources the context cites, in citation order: entry n-1 is what [n] points at.
 *
 * packed.included[n-1] holds the chunk ids of the span behind [n]. It is matched against
 * results by chunk ids, because results[n-1] is not always that span: a span too big for the
 * budget is skipped and the ones after it move up a number. Falls back to results[n-1] for
 * replies without `packed`.
 */
export function citedSources(result) {
  const results = result?.results ?? [];
  const included = result?.packed?.included;
  if (!Array.isArray(included)) return results.slice(0, result?.stats?.counts?.packed ?? results.length);
  const key = (ids) => (ids ?? []).join(',');
  const byIds = new Map(results.map((r) => [key(r.chunk_ids), r]));
  const trimmed = new Set(result.packed.trimmed ?? []);
  return included.map((ids, i) => {
    const r = byIds.get(key(ids)) ?? results[i];
    return r ? { ...r, trimmed: trimmed.has(i) || Boolean(r.trimmed) } : null;
  }).filter(Boolean);
}

const CITATION = /\[(\d+(?:\s*[,;]\s*\d+)*)\]/g;

/**
 * Splits answer text into plain pieces and citations: [{text}] and [{text, refs: [n, ...]}].
 * `valid` is the set of passage numbers that exist (Python's check_answer says which), or a
 * count meaning 1..count; "[7]" with 3 sources, "[99]" or an unclosed "[2" stay text.
 */
export function splitCitations(text, valid) {
  const exists = typeof valid === 'number' ? (n) => n >= 1 && n <= valid : (n) => valid?.has?.(n) ?? false;
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(CITATION)) {
    const refs = m[1].split(/[,;]/).map((s) => Number(s.trim()));
    if (!refs.every((n) => Number.isInteger(n) && exists(n))) continue;
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    parts.push({ text: m[0], refs });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}
