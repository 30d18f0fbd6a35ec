/**
 * Server-Sent Events framing (WHATWG HTML §9.2 "Server-sent events"), for both sides of the MCP HTTP transports:
 * the encoder servers write with, and an incremental parser clients read with. Neither knows about MCP.
 */

export interface SseEventInit {
  /** The event id; becomes the client's `Last-Event-ID`. Must not contain CR, LF or NUL. */
  readonly id?: string;
  /** The event type; absent means `message`. */
  readonly event?: string;
  /** The payload; may span lines (each becomes a `data:` line). An empty string is an event with empty data. */
  readonly data: string;
  /** Tells the client how long to wait before reconnecting, in milliseconds. */
  readonly retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

function field(name: string, value: string): string {
  if (!isOneLine(value) || value.includes('\0')) throw new RangeError(`an SSE ${name} must not contain line breaks or NUL`);
  return `${name}: ${value}\n`;
}

/** Whether `text` is one line (JSON text always is: JSON escapes its line breaks). */
function isOneLine(text: string): boolean {
  return text.indexOf('\n') < 0 && text.indexOf('\r') < 0;
}

/** One event block, ending with the blank line that dispatches it. */
export function encodeSseEvent(init: SseEventInit): string {
  const data = init.data;
  // The common event (a JSON message, maybe with an id): one data line, no splitting.
  if (init.retry === undefined && init.event === undefined && data.length > 0 && isOneLine(data)) {
    return init.id === undefined ? `data: ${data}\n\n` : `${field('id', init.id)}data: ${data}\n\n`;
  }
  let block = '';
  if (init.retry !== undefined) block += `retry: ${Math.max(0, Math.floor(init.retry))}\n`;
  if (init.id !== undefined) block += field('id', init.id);
  if (init.event !== undefined) block += field('event', init.event);
  // One line (a priming event's empty data too) needs no split.
  if (isOneLine(data)) block += data.length === 0 ? 'data:\n' : `data: ${data}\n`;
  else for (const line of data.split(LINE_BREAK)) block += line.length === 0 ? 'data:\n' : `data: ${line}\n`;
  return `${block}\n`;
}

/** A `retry:` field on its own: sets the reconnection delay without dispatching an event. */
export function encodeSseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}

/** A comment line (ignored by every client): keeps idle connections and proxies from timing out. */
export function encodeSseComment(text = ''): string {
  return `:${text.length === 0 ? '' : ` ${text.replace(/[\r\n]+/g, ' ')}`}\n\n`;
}
