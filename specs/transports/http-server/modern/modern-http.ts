/**
 * Helpers for the modern-era (2026-07-28) Streamable HTTP server specs: the shared demo server (fixtures.ts)
 * with a few more tools, served on 127.0.0.1, and a raw modern HTTP client that builds the per-request envelope
 * and the standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), lets a spec override or drop any
 * header (names matched case-insensitively, so an override never doubles a header), and checks every JSON-RPC
 * message the server sends (JSON bodies and SSE data alike) against the 2026-07-28 schema.
 */
import { AssertionError } from 'node:assert';
import type { JsonObject, RequestId } from '../../../../core/jsonrpc.ts';
import { deferred } from '../../../support/harness.ts';
import { ACCEPT_BOTH, type Reply, type SseReply, rawRequest } from '../../../support/http-raw-client.ts';
import type { SseEvent } from '../../../support/sse-test-parser.ts';
import { type EnvelopeOptions, META, MODERN, withEnvelope } from '../../../support/modern-envelope.ts';
import { type RequestRecord, validateMessage } from '../../../support/schema-oracle.ts';
import { type Served, demoServer, serve } from '../fixtures.ts';

export { META, envelope } from '../../../support/modern-envelope.ts';

const NAME_FIELD: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

export type Json = Record<string, unknown>;

export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ModernServed extends Served {
  /** Signals of the `watch` tool's runs, in call order. */
  readonly watched: AbortSignal[];
  /** Resolves (with the key) each time a `watch` run starts. */
  watchStarted(): Promise<void>;
}

/**
 * The fixtures demo server (echo, progress, log, ask, wait, flood, memo://a) plus: `region` (an argument
 * mirrored as `Mcp-Param-Region`, and an integer one as `Mcp-Param-Count`), `watch` (records its signal and runs
 * until aborted), prompts `greet` and `grüße`, and a template `memo://items/{id}`.
 */
export async function serveModern(options: Parameters<typeof serve>[0] = {}): Promise<ModernServed> {
  const demo = demoServer();
  const server = demo.server;
  server.tool(
    {
      name: 'region',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, count: { type: 'integer', 'x-mcp-header': 'Count' }, note: { type: 'string' } },
      },
    },
    (args: Json) => `region ${String(args['region'])} count ${String(args['count'])}`,
  );
  const watched: AbortSignal[] = [];
  let started = deferred();
  server.tool({ name: 'watch' }, (_args, ctx) => {
    watched.push(ctx.signal);
    ctx.log('info', 'watching');
    const done = new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted')));
    started.resolve();
    return done;
  });
  server.prompt({ name: 'greet' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
  server.prompt({ name: 'grüße' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hallo' } }] }));
  server.resourceTemplate({ uriTemplate: 'memo://items/{id}', name: 'item' }, (uri) => `item ${uri}`);
  const served = await serve(options, demo);
  return Object.assign(served, {
    watched,
    watchStarted: async () => {
      await started.promise;
      started = deferred();
    },
  });
}

export interface PostOptions extends EnvelopeOptions {
  /** Header overrides; `undefined` drops a header. Names match the defaults case-insensitively. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly id?: RequestId;
  /** Params sent exactly as given (no envelope added). */
  readonly rawParams?: unknown;
  readonly signal?: AbortSignal;
}

/** A raw modern client: one POST per request, each on its own connection. */
export class ModernHttp {
  readonly violations: string[] = [];
  private readonly sent = new Map<RequestId, RequestRecord>();
  private nextId = 0;

  constructor(readonly url: string) {}

  id(): number {
    return ++this.nextId;
  }

  /** The standard headers a correct client sends for this message. */
  standardHeaders(method: string, params: unknown): Record<string, string> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, 'Mcp-Method': method };
    const meta = isJson(params) && isJson(params['_meta']) ? params['_meta'] : undefined;
    const version = meta?.[META.protocolVersion];
    if (typeof version === 'string') headers['MCP-Protocol-Version'] = version;
    const field = NAME_FIELD[method];
    const name = field !== undefined && isJson(params) ? params[field] : undefined;
    if (typeof name === 'string') headers['Mcp-Name'] = name;
    return headers;
  }

  /** POSTs a request (or, with `id: null`-free `notify`, a notification) with the envelope and standard headers. */
  post(method: string, params: JsonObject = {}, options: PostOptions = {}): Promise<Reply> {
    const body = options.rawParams !== undefined ? options.rawParams : withEnvelope(params, options);
    const id = options.id ?? this.id();
    const message = { jsonrpc: '2.0', id, method, ...(body === undefined ? {} : { params: body }) };
    return this.send(message, merge(this.standardHeaders(method, body), options.headers ?? {}), options.signal);
  }

  /** POSTs a request and reads its response (from the body, or from the stream). */
  async call(method: string, params: JsonObject = {}, options: PostOptions = {}): Promise<{ reply: Reply; response: Json }> {
    const reply = await this.post(method, params, options);
    return { reply, response: await responseOf(reply) };
  }

  /** POSTs any body with exactly these headers (plus Content-Type and Accept unless given). */
  send(message: unknown, headers: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<Reply> {
    if (isJson(message) && typeof message['method'] === 'string' && (typeof message['id'] === 'string' || typeof message['id'] === 'number')) {
      this.sent.set(message['id'], { method: message['method'], params: message['params'] });
    }
    const all = merge({ 'Content-Type': 'application/json', Accept: ACCEPT_BOTH }, headers);
    return rawRequest(this.url, { method: 'POST', headers: all, body: JSON.stringify(message), ...(signal === undefined ? {} : { signal }) }, this.checkEvent).then((reply) => {
      if (reply.kind === 'body' && reply.json !== undefined) this.check(reply.json);
      return reply;
    });
  }

  readonly checkEvent = (event: SseEvent): void => {
    if (event.event === 'message' && event.data.length > 0) this.check(JSON.parse(event.data) as unknown);
  };

  check(message: unknown): void {
    const errors = validateMessage(MODERN, message, { requestFor: (id) => this.sent.get(id), role: 'server' });
    if (errors.length > 0) this.violations.push(`${JSON.stringify(message)}: ${errors.join('; ')}`);
  }

  assertClean(): void {
    if (this.violations.length > 0) throw new AssertionError({ message: `schema violations:\n${this.violations.join('\n')}` });
  }
}

/** Merges header maps by lowercase name; later values win, `undefined` removes. The override's spelling is kept. */
export function merge(base: Readonly<Record<string, string>>, overrides: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const byLower = new Map<string, [string, string]>();
  for (const [name, value] of Object.entries(base)) byLower.set(name.toLowerCase(), [name, value]);
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) byLower.delete(name.toLowerCase());
    else byLower.set(name.toLowerCase(), [name, value]);
  }
  return Object.fromEntries(byLower.values());
}

/** The first JSON-RPC response a reply carries. */
export async function responseOf(reply: Reply): Promise<Json> {
  if (reply.kind === 'body') {
    if (!isJson(reply.json)) throw new AssertionError({ message: `no JSON body (status ${reply.status}): ${reply.text}` });
    return reply.json;
  }
  const event = await reply.next((candidate) => {
    if (candidate.event !== 'message' || candidate.data.length === 0) return false;
    const parsed = JSON.parse(candidate.data) as unknown;
    return isJson(parsed) && !('method' in parsed);
  });
  return JSON.parse(event.data) as Json;
}

/** The parsed JSON-RPC messages of a stream so far. */
export function streamMessages(stream: SseReply): Json[] {
  return stream.messages().filter(isJson);
}

/** Checks a plain-body error reply: HTTP status, JSON-RPC code, and the echoed id. */
export function assertErrorReply(reply: Reply, status: number, code: number, id?: RequestId): Json {
  if (reply.kind !== 'body') throw new AssertionError({ message: `expected a ${status} body, got an event stream (status ${reply.status})` });
  if (reply.status !== status) throw new AssertionError({ message: `expected HTTP ${status}, got ${reply.status}: ${reply.text}` });
  if (!String(reply.headers['content-type']).startsWith('application/json')) throw new AssertionError({ message: `expected JSON, got ${String(reply.headers['content-type'])}` });
  const body = reply.json;
  if (!isJson(body) || !isJson(body['error'])) throw new AssertionError({ message: `expected a JSON-RPC error body, got ${reply.text}` });
  if (body['error']['code'] !== code) throw new AssertionError({ message: `expected JSON-RPC error ${code}, got ${JSON.stringify(body['error'])}` });
  if (id !== undefined && body['id'] !== id) throw new AssertionError({ message: `expected the error to echo id ${JSON.stringify(id)}, got ${JSON.stringify(body['id'])}` });
  return body['error'];
}

/** `=?base64?…?=` of a UTF-8 string. */
export function base64Header(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** A short modern exchange over a real socket, for a `before()` hook (module loading and validator compilation). */
export async function warmUp(): Promise<void> {
  await using served = await serveModern();
  const client = new ModernHttp(served.url);
  await client.call('tools/list');
  await client.call('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'warm' } });
  await client.post('no/such-method');
}
