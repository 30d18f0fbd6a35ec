/**
 * An incremental Server-Sent Events parser (the WHATWG "event stream interpretation"), for the bytes of one
 * HTTP response.
 *
 * Lines end with CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are one line
 * break). Fields: `data` (lines joined with LF), `event`, `id` (ignored when it contains NUL; it persists
 * across events, as the spec's "last event ID"), `retry` (ASCII digits only). Lines starting with `:` are
 * comments. A blank line dispatches the event. An event whose data is empty (a priming event: an id, maybe a
 * retry, `data:` with nothing) updates `lastEventId` and is not dispatched.
 *
 * The buffer is bounded: an event (or a line) longer than `maxEventBytes` is reported once with a
 * `FrameTooLarge` error and skipped up to the next blank line, so a hostile stream cannot grow memory.
 */
import { LocalError } from '../../../core/errors.ts';

export interface SseEvent {
  /** The `event` field, or "message" when there was none. */
  readonly type: string;
  readonly data: string;
  /** The last event id in force when this event was dispatched. */
  readonly id: string | undefined;
}

export interface SseSink {
  event(event: SseEvent): void;
  /** An event that was too large; it is dropped. */
  oversized(error: LocalError): void;
}

/**
 * Decodes the chunks that end on an ASCII byte: such a chunk cuts no character, so it decodes alone to what a
 * stream decoder would give (which would hold nothing over), and one decoder serves every stream.
 */
const wholeChunks = new TextDecoder('utf-8', { ignoreBOM: true });

export class SseParser {
  /** The stream's last event id (starts with the id a resumed stream continues from). */
  lastEventId: string | undefined;
  /** The reconnection time the server asked for with `retry:`, in milliseconds. */
  retryMs: number | undefined;
  /**
   * Made once a chunk ends inside a character (its last byte is not ASCII), and used from then on. ignoreBOM: the
   * BOM is stripped below, as the SSE rules say, not by the decoder.
   */
  private decoder: InstanceType<typeof TextDecoder> | undefined;
  private pending = '';
  private skipLeadingLf = false;
  private atStart = true;
  /** The event's data lines so far, joined with LF (one line, the usual case, is kept as it came). */
  private data = '';
  private dataLines = 0;
  private dataLength = 0;
  private eventType = '';
  private pendingId: string | undefined;
  private discarding = false;

  constructor(
    private readonly sink: SseSink,
    private readonly maxEventBytes: number,
    resumeFrom?: string,
  ) {
    this.lastEventId = resumeFrom;
    this.pendingId = resumeFrom;
  }

  push(chunk: Uint8Array | string): void {
    let text = typeof chunk === 'string' ? chunk : this.decode(chunk);
    if (this.atStart && text.length > 0) {
      this.atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.scan(text);
  }

  /** The stream ended. An event without its closing blank line is discarded, as the spec says. */
  end(): void {
    const rest = this.decoder?.decode() ?? '';
    if (rest.length > 0) this.scan(rest);
    this.pending = '';
    this.resetEvent();
  }

  private decode(chunk: Uint8Array): string {
    if (this.decoder === undefined) {
      const length = chunk.byteLength;
      if (length === 0 || (chunk[length - 1] as number) < 0x80) return wholeChunks.decode(chunk);
      this.decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    }
    return this.decoder.decode(chunk, { stream: true });
  }

  private scan(text: string): void {
    let start = 0;
    if (this.skipLeadingLf && text.length > 0) {
      if (text.charCodeAt(0) === 0x0a) start = 1;
      this.skipLeadingLf = false;
    }
    // The next LF and the next CR, each searched for once per line it passes (not char by char).
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (lf >= 0 || cr >= 0) {
      let i = cr < 0 || (lf >= 0 && lf < cr) ? lf : cr;
      const line = this.pending.length === 0 ? text.slice(start, i) : this.pending + text.slice(start, i);
      this.pending = '';
      if (i === cr) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 0x0a) i++;
        } else {
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
      if (lf >= 0 && lf < start) lf = text.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
      this.line(line);
    }
    if (start < text.length) {
      this.pending += text.slice(start);
      if (this.pending.length + this.dataLength > this.maxEventBytes) this.overflow();
    }
  }

  private line(line: string): void {
    if (line.length === 0) return this.dispatch();
    if (this.discarding || line.charCodeAt(0) === 0x3a /* ':' */) return;
    const colon = line.indexOf(':');
    // The value after the colon and one optional space, cut once; the field is known by its length and start.
    let at = colon < 0 ? line.length : colon + 1;
    if (line.charCodeAt(at) === 0x20) at++;
    const value = at >= line.length ? '' : line.slice(at);
    const field = colon < 0 ? line : line.slice(0, colon);
    switch (field) {
      case 'data':
        this.data = this.dataLines++ === 0 ? value : `${this.data}\n${value}`;
        this.dataLength += value.length + 1;
        if (this.dataLength > this.maxEventBytes) this.overflow();
        return;
      case 'event':
        this.eventType = value;
        return;
      case 'id':
        if (!value.includes('\u0000')) this.pendingId = value;
        return;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.retryMs = Number(value);
        return;
      default:
        return; // unknown fields are ignored
    }
  }

  private dispatch(): void {
    // The id takes effect at the blank line, whether or not the event carries data (priming events).
    this.lastEventId = this.pendingId === '' ? undefined : this.pendingId;
    if (this.discarding) {
      this.discarding = false;
      this.resetEvent();
      return;
    }
    const data = this.data;
    const type = this.eventType === '' ? 'message' : this.eventType;
    this.resetEvent();
    if (data.length > 0) this.sink.event({ type, data, id: this.lastEventId });
  }

  private overflow(): void {
    if (!this.discarding) {
      this.sink.oversized(new LocalError('FrameTooLarge', `an SSE event exceeds the frame limit of ${this.maxEventBytes} bytes`));
    }
    this.discarding = true;
    this.pending = '';
    this.data = '';
    this.dataLines = 0;
    this.dataLength = 0;
  }

  private resetEvent(): void {
    this.data = '';
    this.dataLines = 0;
    this.dataLength = 0;
    this.eventType = '';
  }
}
