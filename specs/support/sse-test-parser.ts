/**
 * A text SSE parser for specs: unlike the client transport's parser (transports/http/client/sse-parser.ts),
 * it reports every block with its `id` and `retry` as they appeared, so specs can check what the server
 * put on the wire (priming events, retry fields) rather than what a client would act on.
 */
/** One dispatched event. */
export interface SseEvent {
  /** The `id` field of this event's block, if it had one (the last event id is on the parser). */
  readonly id: string | undefined;
  /** The event type (`message` when the block named none). */
  readonly event: string;
  readonly data: string;
  /** A `retry` field that appeared in this event's block. */
  readonly retry: number | undefined;
}

/**
 * Incremental SSE parser. Feed it text as it arrives (chunks may split lines, even a CR LF pair); it returns the
 * events each chunk completes. Follows the WHATWG algorithm: a leading BOM is skipped, comments are ignored, a
 * block without data dispatches nothing (but its `id` and `retry` still take effect), an `id` containing NUL is
 * ignored, one space after the colon is dropped.
 */
export class SseParser {
  /** The last event id seen: what a reconnecting client sends as `Last-Event-ID`. */
  lastEventId = '';
  /** The latest reconnection delay the stream asked for. */
  retry: number | undefined;
  /** Comment lines seen (keep-alives). */
  comments = 0;
  private buffer = '';
  private started = false;
  private pendingCr = false;
  private data: string[] = [];
  private eventType = '';
  /** The id buffer of the algorithm: it outlives blocks and becomes `lastEventId` when a block ends. */
  private idBuffer = '';
  private blockId: string | undefined;
  private blockRetry: number | undefined;

  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A CR at the end of the previous chunk already ended a line; a LF starting this one belongs to it.
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (let index = 0; index < this.buffer.length; index++) {
      const code = this.buffer.charCodeAt(index);
      if (code !== 10 && code !== 13) continue;
      this.line(this.buffer.slice(start, index), events);
      if (code === 13) {
        if (index + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer.charCodeAt(index + 1) === 10) index++;
      }
      start = index + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** The stream ended: an unfinished block is discarded, as the algorithm requires. */
  end(): void {
    this.buffer = '';
    this.reset();
  }

  private line(line: string, events: SseEvent[]): void {
    if (line.length === 0) return this.dispatch(events);
    if (line.startsWith(':')) {
      this.comments++;
      return;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (name) {
      case 'data':
        this.data.push(value);
        return;
      case 'event':
        this.eventType = value;
        return;
      case 'id':
        if (!value.includes('\0')) {
          this.idBuffer = value;
          this.blockId = value;
        }
        return;
      case 'retry':
        if (/^\d+$/.test(value)) {
          this.retry = Number.parseInt(value, 10);
          this.blockRetry = this.retry;
        }
        return;
      default:
        return;
    }
  }

  private dispatch(events: SseEvent[]): void {
    this.lastEventId = this.idBuffer;
    if (this.data.length > 0) {
      events.push({ id: this.blockId, event: this.eventType === '' ? 'message' : this.eventType, data: this.data.join('\n'), retry: this.blockRetry });
    }
    this.reset();
  }

  private reset(): void {
    this.data = [];
    this.eventType = '';
    this.blockId = undefined;
    this.blockRetry = undefined;
  }
}
