/**
 * A tiny raw HTTP + SSE client for the HTTP transport specs: plain node:http requests (one connection each, so a
 * test can drop exactly one), responses read as JSON or as a live event stream parsed incrementally.
 *
 * `RawMcp` adds the session bookkeeping a real client does (Mcp-Session-Id, MCP-Protocol-Version), and checks
 * every JSON-RPC message the server sends, from JSON bodies and SSE data alike, with the schema oracle.
 */
import { AssertionError } from 'node:assert';
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { RequestId } from '../../core/jsonrpc.ts';
import { type SseEvent, SseParser } from './sse-test-parser.ts';
import { type RequestRecord, validateMessage } from './schema-oracle.ts';

export const ACCEPT_BOTH = 'application/json, text/event-stream';
const WAIT_MS = 2000;

export interface RawRequest {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Aborting drops the connection (before or during the response). */
  readonly signal?: AbortSignal;
}

/** A complete (non-stream) response. */
export interface RawReply {
  readonly kind: 'body';
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON (undefined when empty or not JSON). */
  readonly json: unknown;
}

/** A `text/event-stream` response, read as it arrives. */
export class SseReply {
  readonly kind = 'sse';
  readonly events: SseEvent[] = [];
  readonly parser = new SseParser();
  /** Settles when the server ended the stream (`ended`) or the connection broke (`closed`). */
  readonly done: Promise<'ended' | 'closed'>;
  private cursor = 0;
  private wake: (() => void) | undefined;
  private finished = false;

  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly destroy: () => void,
    private readonly body: NodeJS.ReadableStream,
    private readonly observe: (event: SseEvent) => void,
  ) {
    const decoder = new StringDecoder('utf8');
    this.done = new Promise((resolve) => {
      body.on('data', (chunk: Buffer) => this.take(this.parser.push(decoder.write(chunk))));
      body.on('end', () => this.finish(resolve, 'ended'));
      body.on('error', () => this.finish(resolve, 'closed'));
      body.on('close', () => this.finish(resolve, 'closed'));
    });
  }

  get ended(): boolean {
    return this.finished;
  }

  /** The next event not yet taken that satisfies `match` (events before it are skipped). */
  async next(match: (event: SseEvent) => boolean = () => true, ms = WAIT_MS): Promise<SseEvent> {
    const deadline = Date.now() + ms;
    for (;;) {
      while (this.cursor < this.events.length) {
        const event = this.events[this.cursor++] as SseEvent;
        if (match(event)) return event;
      }
      if (this.finished) throw new AssertionError({ message: `the stream ended without the expected event; got ${JSON.stringify(this.events)}` });
      const left = deadline - Date.now();
      if (left <= 0) throw new AssertionError({ message: `no expected event within ${ms} ms; got ${JSON.stringify(this.events)}` });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Data of every `message` event so far, parsed. */
  messages(): unknown[] {
    return this.events.filter((event) => event.event === 'message' && event.data.length > 0).map((event) => JSON.parse(event.data) as unknown);
  }

  /** Stops reading (the server's writes back up), as a slow client does; `resume` reads on. */
  pause(): void {
    this.body.pause();
  }

  resume(): void {
    this.body.resume();
  }

  /** Drops the connection, as a client that goes away does. */
  close(): void {
    this.destroy();
  }

  private take(events: SseEvent[]): void {
    if (events.length === 0) return;
    for (const event of events) this.observe(event);
    this.events.push(...events);
    this.wake?.();
  }

  private finish(resolve: (how: 'ended' | 'closed') => void, how: 'ended' | 'closed'): void {
    if (this.finished) return;
    this.finished = true;
    this.parser.end();
    this.wake?.();
    resolve(how);
  }
}

export type Reply = RawReply | SseReply;

/**
 * One HTTP request on its own connection. Event streams resolve as soon as their headers arrive; `observe` sees
 * each of their events as it is parsed.
 */
export function rawRequest(url: string, init: RawRequest = {}, observe: (event: SseEvent) => void = () => undefined): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers, agent: false, ...(init.signal === undefined ? {} : { signal: init.signal }) }, (res) => {
      const status = res.statusCode ?? 0;
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        resolve(new SseReply(status, res.headers, () => req.destroy(), res, observe));
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text.length > 0 ? (JSON.parse(text) as unknown) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ kind: 'body', status, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

export function asBody(reply: Reply): RawReply {
  if (reply.kind !== 'body') throw new AssertionError({ message: `expected a plain body, got an event stream (status ${reply.status})` });
  return reply;
}

export function asStream(reply: Reply): SseReply {
  if (reply.kind !== 'sse') throw new AssertionError({ message: `expected an event stream, got ${reply.status} ${reply.text}` });
  return reply;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A raw MCP client: session headers, request ids, and the schema oracle on everything the server says. */
export class RawMcp {
  sessionId: string | undefined;
  /** The negotiated revision (also what MCP-Protocol-Version carries); preset it for stateless endpoints. */
  revision: string | undefined;
  readonly violations: string[] = [];
  private readonly sent = new Map<RequestId, RequestRecord>();
  private nextId = 0;

  constructor(readonly url: string, readonly options: { readonly headers?: Readonly<Record<string, string>>; readonly revision?: string } = {}) {
    this.revision = options.revision;
  }

  id(): number {
    return ++this.nextId;
  }

  /** initialize + notifications/initialized; returns the initialize result. */
  async initialize(protocolVersion = '2025-11-25', capabilities: Record<string, unknown> = { elicitation: {} }): Promise<Record<string, unknown>> {
    const reply = await this.post({ jsonrpc: '2.0', id: this.id(), method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '0' } } });
    const response = await this.responseOf(reply);
    if (!isRecord(response) || !isRecord(response['result'])) throw new AssertionError({ message: `initialize failed: ${JSON.stringify(response)}` });
    const sessionId = reply.headers['mcp-session-id'];
    this.sessionId = typeof sessionId === 'string' ? sessionId : undefined;
    this.revision = String(response['result']['protocolVersion']);
    const ack = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (ack.status !== 202) throw new AssertionError({ message: `notifications/initialized got ${ack.status}` });
    return response['result'];
  }

  /** The headers a client sends on every request after initialize. */
  sessionHeaders(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    return {
      ...(this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId }),
      ...(this.revision === undefined ? {} : { 'mcp-protocol-version': this.revision }),
      ...this.options.headers,
      ...extra,
    };
  }

  /** POSTs one message (or batch); requests are remembered so their responses can be checked. */
  async post(message: unknown, headers: Readonly<Record<string, string>> = {}): Promise<Reply> {
    for (const item of Array.isArray(message) ? message : [message]) {
      if (isRecord(item) && typeof item['method'] === 'string' && (typeof item['id'] === 'number' || typeof item['id'] === 'string')) {
        this.sent.set(item['id'], { method: item['method'], params: item['params'] });
      }
    }
    const reply = await rawRequest(
      this.url,
      { method: 'POST', headers: this.sessionHeaders({ 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }), body: JSON.stringify(message) },
      this.checkEvent,
    );
    if (reply.kind === 'body' && reply.json !== undefined) this.check(reply.json);
    return reply;
  }

  /** Sends a request and reads its answer: from the JSON body, or from the stream until the response comes. */
  async call(method: string, params?: Record<string, unknown>, headers: Readonly<Record<string, string>> = {}): Promise<{ reply: Reply; response: Record<string, unknown> }> {
    const reply = await this.post({ jsonrpc: '2.0', id: this.id(), method, ...(params === undefined ? {} : { params }) }, headers);
    const response = await this.responseOf(reply);
    if (!isRecord(response)) throw new AssertionError({ message: `no response object: ${JSON.stringify(response)}` });
    return { reply, response };
  }

  /** The response a reply carries (waiting on a stream for the first response event). */
  async responseOf(reply: Reply): Promise<unknown> {
    if (reply.kind === 'body') return reply.json;
    const event = await reply.next(isResponse);
    return JSON.parse(event.data) as unknown;
  }

  /** Validates an event's data when it is a message (priming events carry none). */
  readonly checkEvent = (event: SseEvent): void => {
    if (event.event === 'message' && event.data.length > 0) this.check(JSON.parse(event.data) as unknown);
  };

  /** Checks a message the server sent against the schema of the revision in use. */
  check(message: unknown): void {
    const errors = validateMessage(this.revision ?? '2025-11-25', message, { requestFor: (id) => this.sent.get(id), role: 'server' });
    if (errors.length > 0) this.violations.push(`${JSON.stringify(message)}: ${errors.join('; ')}`);
  }

  get(headers: Readonly<Record<string, string>> = {}): Promise<Reply> {
    return rawRequest(this.url, { method: 'GET', headers: this.sessionHeaders({ accept: 'text/event-stream', ...headers }) }, this.checkEvent);
  }

  delete(): Promise<Reply> {
    return rawRequest(this.url, { method: 'DELETE', headers: this.sessionHeaders() });
  }

  assertClean(): void {
    if (this.violations.length > 0) throw new AssertionError({ message: `schema violations:\n${this.violations.join('\n')}` });
  }
}

function isResponse(event: SseEvent): boolean {
  if (event.event !== 'message' || event.data.length === 0) return false;
  const message = JSON.parse(event.data) as unknown;
  return Array.isArray(message) || (isRecord(message) && !('method' in message));
}
