// A server-sent-events reader: bytes in, {event, data} out.
//
// Follows the HTML spec's parsing rules where they matter for chat servers: lines end with
// \r\n, \n or \r (a \r\n split across two network chunks counts once); `data:` lines of one
// event are joined with \n; one optional space after the colon is dropped; lines starting with
// ':' are comments; a blank line dispatches the event. An event still open when the stream
// ends is dispatched too (some servers never send the final blank line).

export async function* readEvents(stream, signal) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data = [];
  let event = '';
  let skipLF = false; // the last chunk ended in \r: a leading \n in the next one belongs to it

  function* takeLines(final) {
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c === '\n' && skipLF && i === start) {
        skipLF = false;
        start = i + 1;
        continue;
      }
      skipLF = false;
      if (c === '\r' || c === '\n') {
        yield buffer.slice(start, i);
        if (c === '\r') {
          if (i + 1 < buffer.length) {
            if (buffer[i + 1] === '\n') i += 1;
          } else {
            skipLF = true;
          }
        }
        start = i + 1;
      }
    }
    buffer = buffer.slice(start);
    if (final && buffer) {
      yield buffer;
      buffer = '';
    }
  }

  function* handle(line) {
    if (line === '') {
      if (data.length) yield { event: event || 'message', data: data.join('\n') };
      data = [];
      event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }

  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new DOMException('Aborted', 'AbortError');
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (const line of takeLines(false)) yield* handle(line);
    }
    buffer += decoder.decode();
    for (const line of takeLines(true)) yield* handle(line);
    yield* handle('');
  } finally {
    reader.cancel().catch(() => {});
  }
}
