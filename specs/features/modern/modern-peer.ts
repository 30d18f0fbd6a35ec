/**
 * Helpers for the modern-era (2026-07-28) server specs over the spec medium (memory, or NATS: see
 * specs/support/nats-medium.ts): a real `createServer(...)`, and hand-written modern clients in front of it.
 * Each client connection is one link whose server end is logged and wrapped by the schema oracle (checked
 * against 2026-07-28 by default, since a modern connection has no handshake the oracle could learn the revision
 * from), so `assertClean()` fails on anything the server sent that the 2026-07-28 schema does not allow
 * (including requests, which a modern server never sends). Over NATS a connection may have several server
 * sides (a lane per process and lifetime, a legacy session after `initialize`); each is checked.
 *
 * The client side is raw on purpose: the specs send envelopes the project's own client would never produce.
 */
import { AssertionError } from 'node:assert';
import type { JsonObject, RequestId } from '../../../core/jsonrpc.ts';
import { type McpServer, type ServerOptions, createServer } from '../../../server/create-server.ts';
import type { McpSession } from '../../../session/session-core.ts';
import type { Transport } from '../../../core/transport.ts';
import { WAIT_MS, type WireLog, type WireResponse, delay, isRecord, isResponseTo, spyTransport } from '../../support/harness.ts';
import { type SpecAcceptor, SpecMedium } from '../../support/nats-medium.ts';
import { type EnvelopeOptions, MODERN, withEnvelope } from '../../support/modern-envelope.ts';
import { type SchemaOracle, withSchemaOracle } from '../../support/schema-oracle.ts';

export { WAIT_MS, delay, isRecord, type WireResponse };
export { CLIENT_INFO, type EnvelopeOptions, META, MODERN, envelope } from '../../support/modern-envelope.ts';
/** The medium's settle (memory: microtasks and immediates; NATS: until the traffic comes to rest). */
export { medium, settle } from '../../support/nats-medium.ts';

/**
 * Why a spec cannot hold over NATS (used as `{ skip: medium === 'nats' && OVER_NATS.… }`): the binding's own
 * documented rules (docs/nats-binding.md) decide these cases before any session sees the message.
 */
export const OVER_NATS = {
  /** No connection carries an era: the subject does. */
  eraBySubject:
    'over NATS the era is chosen per message by the binding, not by a connection\'s first request: a request without a session goes to a modern lane, and initialize on the call subject always opens a new legacy session (docs/nats-binding.md)',
  /** A legacy-only server: the binding itself refuses sessionless requests. */
  legacyOnlyRefusedByBinding:
    'over NATS the binding itself refuses a sessionless request to a legacy-only server (-32600 "send initialize first", docs/nats-binding.md): no session exists to be awaiting initialize',
} as const;

/** Every client capability a modern request can declare for input requests. */
export const ALL_INPUT_CAPABILITIES: JsonObject = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };

export type Message = Readonly<Record<string, unknown>>;

/** A hand-written modern client on one connection. */
export interface ModernPeer {
  /** The server's session for this connection (over NATS: the newest one, once a request arrived). */
  readonly session: McpSession;
  readonly oracle: SchemaOracle;
  readonly wire: WireLog;
  /** Every message the server sent on this connection, in order. */
  readonly received: readonly unknown[];
  readonly transport: Transport;
  /** Sends any JSON value as is. */
  send(message: unknown): void;
  /** A fresh request id. */
  nextId(): string;
  /** Sends a request with a modern envelope and waits for its response. */
  request(method: string, params?: JsonObject, options?: EnvelopeOptions): Promise<WireResponse>;
  /** Sends a request with a modern envelope; returns its id and the (lazily awaited) response. */
  start(method: string, params?: JsonObject, options?: EnvelopeOptions): { readonly id: string; readonly response: Promise<WireResponse> };
  /** Sends a request exactly as given (params untouched) and waits for the response. */
  raw(method: string, params?: unknown, id?: RequestId): Promise<WireResponse>;
  notify(method: string, params?: JsonObject): void;
  /** The first message not yet taken that matches (waits at most `ms`). */
  next(predicate: (message: Message) => boolean, ms?: number): Promise<Message>;
  /** Messages received so far that match. */
  all(predicate: (message: Message) => boolean): Message[];
  /** Waits `ms`, then fails if a matching message arrived meanwhile. */
  expectNone(predicate: (message: Message) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export interface ModernHarness extends AsyncDisposable {
  readonly server: McpServer;
  /** A new modern client connection (oracle revision: 2026-07-28 unless `oracleRevision` says otherwise). */
  connect(options?: { readonly oracleRevision?: string | null }): ModernPeer;
  /** Checks the oracle of every connection made so far. */
  assertClean(): void;
  close(): Promise<void>;
}

let ids = 0;

export function isMessage(value: unknown): value is Message {
  return isRecord(value);
}

/** One server side of a peer's connection. */
interface PeerSide {
  readonly session: McpSession;
  readonly oracle: SchemaOracle;
  readonly wire: WireLog;
}

/** Accepts server sides for `server`: logged, and checked by the oracle against the revision their peer asked for. */
function peerAcceptor(server: McpServer): SpecAcceptor<PeerSide, string | null> {
  return {
    eras: server.eras,
    changes: server.changes,
    accept(serverEnd, acceptOptions, oracleRevision) {
      const spied = spyTransport(serverEnd);
      // null: learn the revision (a legacy session's handshake).
      const { transport, oracle } = withSchemaOracle(spied.transport, { role: 'server', revision: () => oracleRevision() ?? undefined });
      const session = server.accept(transport, acceptOptions);
      spied.log.track(session);
      return { session, oracle, wire: spied.log };
    },
  };
}

/** Opens a new connection to `server` through `links` and puts a hand-written client in front of it. */
function connectPeer(links: SpecMedium, acceptor: SpecAcceptor<PeerSide, string | null>, oracleRevision: string | null): { peer: ModernPeer; sides: readonly PeerSide[] } {
  const link = links.link(acceptor, { tag: oracleRevision, ...(oracleRevision === null ? {} : { revision: oracleRevision }) });
  const clientEnd = link.transport;
  const received: unknown[] = [];
  const taken = new Set<number>();
  const waiters = new Set<{ predicate: (message: Message) => boolean; resolve: (message: Message) => void }>();
  clientEnd.incoming$.subscribe((frame) => {
    if (frame.type !== 'message') return;
    received.push(frame.payload);
    const index = received.length - 1;
    for (const waiter of waiters) {
      if (!isMessage(frame.payload) || !waiter.predicate(frame.payload)) continue;
      taken.add(index);
      waiters.delete(waiter);
      waiter.resolve(frame.payload);
      return;
    }
  });
  const send = (message: unknown): void => {
    void clientEnd.send({ payload: message as never });
  };
  const next = (predicate: (message: Message) => boolean, ms = WAIT_MS): Promise<Message> => {
    const index = received.findIndex((message, at) => !taken.has(at) && isMessage(message) && predicate(message));
    if (index >= 0) {
      taken.add(index);
      return Promise.resolve(received[index] as Message);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (message: Message) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new AssertionError({ message: `no matching message within ${ms} ms; received: ${JSON.stringify(received)}` }));
      }, ms);
      waiters.add(waiter);
    });
  };
  const nextId = (): string => `m-${++ids}`;
  const start = (method: string, params: JsonObject = {}, options: EnvelopeOptions = {}): { id: string; response: Promise<WireResponse> } => {
    const id = nextId();
    const response = next(isResponseTo(id)) as Promise<WireResponse>;
    // Never let an unobserved response promise become an unhandled rejection.
    response.catch(() => undefined);
    send({ jsonrpc: '2.0', id, method, params: withEnvelope(params, options) });
    return { id, response };
  };
  const peer: ModernPeer = {
    get session() {
      return link.side().session;
    },
    get oracle() {
      return link.side().oracle;
    },
    get wire() {
      return link.side().wire;
    },
    received,
    transport: clientEnd,
    send,
    nextId,
    request: (method, params, options) => start(method, params, options).response,
    start,
    raw(method, params, id = nextId()) {
      const response = next(isResponseTo(id)) as Promise<WireResponse>;
      send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
      return response;
    },
    notify(method, params) {
      send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    },
    next,
    all: (predicate) => received.filter((message): message is Message => isMessage(message) && predicate(message)),
    async expectNone(predicate, ms = 30) {
      const from = received.length;
      await delay(ms);
      const hits = received.slice(from).filter((message) => isMessage(message) && predicate(message));
      if (hits.length > 0) throw new AssertionError({ message: `unexpected message(s): ${JSON.stringify(hits)}` });
    },
    close: () => clientEnd.close(),
  };
  return { peer, sides: link.sides };
}

/** A server built with `createServer(options)`; register on `harness.server`, then connect modern clients. */
export function modernServer(options: Partial<ServerOptions> = {}): ModernHarness {
  const server = createServer({ name: 'modern-spec-server', version: '1.2.3', ...options });
  const links = new SpecMedium();
  const acceptor = peerAcceptor(server);
  const peers: Array<{ readonly peer: ModernPeer; readonly sides: readonly PeerSide[] }> = [];
  const close = async (): Promise<void> => {
    await Promise.all(peers.map(({ peer }) => peer.close()));
    await server.close();
    await links.close();
    links.assertReceivedClean();
  };
  return {
    server,
    connect(connectOptions = {}) {
      const made = connectPeer(links, acceptor, connectOptions.oracleRevision === undefined ? MODERN : connectOptions.oracleRevision);
      peers.push(made);
      return made.peer;
    },
    assertClean() {
      if (peers.length === 0) throw new AssertionError({ message: 'no connection was made, so nothing was checked' });
      for (const { sides } of peers) {
        if (sides.length === 0) throw new AssertionError({ message: 'nothing reached the server on a connection, so nothing was checked' });
        for (const side of sides) side.oracle.assertClean();
      }
      links.assertReceivedClean();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

// --- predicates and readers -----------------------------------------------------------------------------------

export const isNotification = (method: string) => (message: Message): boolean => message['method'] === method && !('id' in message);
export const answers = (id: RequestId) => (message: Message): boolean => message['id'] === id && !('method' in message);

/** The result of a response, failing when it is an error. */
export function resultOf(response: WireResponse): Record<string, unknown> {
  if (response.result === undefined) throw new AssertionError({ message: `expected a result, got ${JSON.stringify(response)}` });
  return response.result as Record<string, unknown>;
}

/** The error of a response, failing when it is a result or when its code is not `code`. */
export function errorOf(response: WireResponse, code: number): { code: number; message: string; data?: unknown } {
  if (response.error === undefined) throw new AssertionError({ message: `expected error ${code}, got ${JSON.stringify(response)}` });
  if (response.error.code !== code) throw new AssertionError({ message: `expected error ${code}, got ${JSON.stringify(response.error)}` });
  return response.error;
}

/** The text of a tools/call result. */
export function toolText(response: WireResponse): string {
  const content = resultOf(response)['content'];
  if (!Array.isArray(content)) throw new AssertionError({ message: `not a tool result: ${JSON.stringify(response)}` });
  return content.map((block) => (isRecord(block) && typeof block['text'] === 'string' ? block['text'] : '')).join('');
}

/** The `_meta` of a result or notification params. */
export function metaOf(value: unknown): Record<string, unknown> {
  const meta = isRecord(value) ? value['_meta'] : undefined;
  if (!isRecord(meta)) throw new AssertionError({ message: `no _meta in ${JSON.stringify(value)}` });
  return meta as Record<string, unknown>;
}

/**
 * One short exchange of every common shape, for a `before()` hook: the oracle compiles its validators lazily and
 * module loading is slow the first time, so without it the first test of a file pays for both.
 */
export async function warmUp(): Promise<void> {
  await using harness = modernServer();
  harness.server.tool({ name: 'warm' }, async (_args, ctx) => (await ctx.roots()).length.toString());
  harness.server.resource({ uri: 'memo://warm', name: 'warm' }, () => 'warm');
  harness.server.prompt({ name: 'warm' }, () => ({ messages: [] }));
  const peer = harness.connect();
  for (const method of ['server/discover', 'tools/list', 'resources/list', 'prompts/list', 'no/such-method']) await peer.request(method);
  await peer.request('resources/read', { uri: 'memo://warm' });
  await peer.request('prompts/get', { name: 'warm' });
  const asked = await peer.request('tools/call', { name: 'warm', arguments: {} }, { capabilities: ALL_INPUT_CAPABILITIES });
  await peer.request('tools/call', { name: 'warm', arguments: {}, requestState: String(asked.result?.['requestState']), inputResponses: { 'roots-1': { roots: [] } } }, { capabilities: ALL_INPUT_CAPABILITIES });
  peer.start('subscriptions/listen', { notifications: { toolsListChanged: true } });
  await peer.next((message) => message['method'] === 'notifications/subscriptions/acknowledged');
}
