// The ingestion progress in the Sources pane: files done of total, the current file's passages,
// passages per second and the time left, with Cancel.

import { $, plural } from './dom.js';

/**
 * Progress over every addDocuments call in flight: files done/total, the current file's
 * passages done/total, passages embedded per second and an estimate of the time left. Fed with
 * the worker's {event: 'chunks' | 'document'} events and the page's own PDF-reading events.
 */
export class IngestProgress {
  constructor(onCancel) {
    this.panel = $('ingest');
    this.panel.querySelector('#ingest-cancel').addEventListener('click', () => {
      this.cancelling = true;
      this.render();
      onCancel();
    });
    this.reset();
  }

  reset() {
    this.batches = 0;
    this.files = 0; // total over the batches in flight
    this.filesDone = 0;
    this.current = null; // {name, done, total}
    this.embedded = 0; // passages embedded since the first batch started
    this.docKey = null;
    this.docBase = 0; // `embedded` when the current document started
    this.chunkedFiles = 0; // files whose passages were all embedded, for the estimate
    this.chunkedPassages = 0;
    this.firstChunkAt = null;
    this.readingNow = null; // {name, done, total} while pdf.js reads a PDF
    this.cancelling = false;
  }

  begin(files) {
    if (this.batches === 0) this.reset();
    this.batches += 1;
    this.files += files;
    this.panel.hidden = false;
    this.render();
  }

  /** Page-side events: {phase: 'pdf' | 'ocr', name, done, total}. */
  onReading(event) {
    this.readingNow = event.done < event.total ? event : null;
    this.render();
  }

  event(e) {
    if (e.event === 'chunks') {
      const key = `${e.name}\u0000${e.document}`;
      if (key !== this.docKey) {
        this.docKey = key;
        this.docBase = this.embedded;
      }
      this.firstChunkAt ??= performance.now() - 1; // the first batch's time is not measured
      this.embedded = this.docBase + e.done;
      this.current = { name: e.name, done: e.done, total: e.total };
      if (e.done === e.total) {
        this.chunkedFiles += 1;
        this.chunkedPassages += e.total;
      }
    } else if (e.event === 'document') {
      this.filesDone += 1;
      if (this.current?.name === e.name) this.current = null;
    }
    this.render();
  }

  /** One addDocuments call ended; `attempted` files of `files` got an outcome from Python. */
  end(files, attempted = files) {
    this.batches = Math.max(0, this.batches - 1);
    // A cancelled batch stops early: the files after the cancelled one were never started.
    this.files -= files - attempted;
    this.filesDone = Math.min(this.filesDone, this.files);
    if (this.batches === 0) this.panel.hidden = true;
    else this.render();
  }

  get rate() {
    if (this.firstChunkAt === null || this.embedded === 0) return null;
    const seconds = (performance.now() - this.firstChunkAt) / 1000;
    return seconds > 0.5 ? this.embedded / seconds : null;
  }

  /** Seconds left: the current file's passages, plus later files at the average so far. */
  get secondsLeft() {
    const rate = this.rate;
    if (!rate || !this.current) return null;
    let left = this.current.total - this.current.done;
    const later = this.files - this.filesDone - 1;
    if (later > 0 && this.chunkedFiles) left += later * (this.chunkedPassages / this.chunkedFiles);
    return left / rate;
  }

  render() {
    const q = (s) => this.panel.querySelector(s);
    const files = q('#ingest-files');
    files.max = Math.max(1, this.files);
    files.value = this.filesDone;
    q('#ingest-files-text').textContent = `${this.filesDone} of ${plural(this.files, 'file')}`;
    const chunks = q('#ingest-chunks');
    const cur = this.current;
    chunks.max = Math.max(1, cur?.total ?? 1);
    chunks.value = cur?.done ?? 0;
    const read = this.readingNow;
    q('#ingest-chunks-text').textContent = cur
      ? `${cur.done} of ${plural(cur.total, 'passage')} in ${cur.name}`
      : read?.phase === 'ocr' ? `Reading text in ${read.name} (OCR): page ${read.done + 1} of ${read.total}`
        : read ? `Reading ${read.name}: page ${read.done} of ${read.total}` : 'Preparing…';
    const rate = this.rate;
    const left = this.secondsLeft;
    const speed = rate ? `${rate.toFixed(1)} passages/s` : '';
    const eta = left !== null ? `about ${formatSeconds(left)} left` : '';
    q('#ingest-rate').textContent = [speed, eta].filter(Boolean).join(' · ');
    const cancel = q('#ingest-cancel');
    cancel.disabled = this.cancelling;
    cancel.textContent = this.cancelling ? 'Cancelling…' : 'Cancel';
  }
}

function formatSeconds(s) {
  if (s < 1) return 'a second';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
