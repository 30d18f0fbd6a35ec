/**
 * Shared helpers for session specs: session pairs over the memory transport, hand-written raw peers, a
 * wire log that records what a session wrote (and when its transport closed), and bounded waits.
 *
 * Every transport a project session uses is wrapped with the schema oracle here, so a spec only has to call
 * `assertClean()` (on the pair or the raw harness) at the end.
 */
import { AssertionError } from 'node:assert';
import { jsonCodec } from '../../core/codecs/json.ts';
import type { JsonObject, RequestId, WirePayload } from '../../core/jsonrpc.ts';
import type { OutboundFrame, Transport } from '../../core/transport.ts';
import type { HandlerTable, NotificationHandler, RequestHandler } from '../../actors/handler-types.ts';
import { type ClientConfig, connectSession } from '../../client/connect-session.ts';
import { type ServerConfig, createSessionAcceptor } from '../../server/session-acceptor.ts';
import type { McpSession, SessionRuntimeOptions } from '../../session/session-core.ts';
import type { LifecycleState } from '../../machines/session-lifecycle.ts';
import { createMemoryPair, type MemoryPairOptions, type MemoryTransport } from '../../transports/memory/index.ts';
import { type OracleOptions, type SchemaOracle, withSchemaOracle } from './schema-oracle.ts';

export type JsonRecord = Readonly<Record<string, unknown>>;

/**
 * Default bound for every wait in the session specs (each waits for something that must happen). Over NATS
 * (the feature suite rerun on a real nats-server) a message crosses a network and another process's scheduler,
 * which a loaded machine can slow past half a second; the bound is generous there, as it only limits failures.
 */
export const WAIT_MS = process.env['RXMCP_SPEC_MEDIUM'] === 'nats' ? 5000 : 500;

export const clientInfo = Object.freeze({ name: 'spec-client', version: '0.0.0' });
export const serverInfo = Object.freeze({ name: 'spec-server', version: '0.0.0' });

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Builds a handler table from plain records. */
export function handlers(
  requests: Readonly<Record<string, RequestHandler>> = {},
  notifications: Readonly<Record<string, NotificationHandler>> = {},
): HandlerTable {
  return { requests: new Map(Object.entries(requests)), notifications: new Map(Object.entries(notifications)) };
}

/** Resolves after `ms` (keep it small: only to let a bounded amount of traffic flow). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Rejects with an AssertionError when `promise` has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number = WAIT_MS, what = 'the operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AssertionError({ message: `${what} did not settle within ${ms} ms` })), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it holds; fails with `what` after `ms`. */
export async function eventually(check: () => boolean, ms: number = WAIT_MS, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new AssertionError({ message: `${what} did not hold within ${ms} ms` });
    await delay(2);
  }
}

/** A promise with its settle functions exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

// --- wire log -----------------------------------------------------------------------------------------------

export type WireEvent =
  | { readonly type: 'send'; readonly payload: WirePayload }
  | { readonly type: 'transport-close' }
  | { readonly type: 'state'; readonly state: LifecycleState };

/** What one session wrote to its transport, interleaved with its transport closing and its state changes. */
export interface WireLog {
  readonly events: readonly WireEvent[];
  readonly sent: readonly WirePayload[];
  /** Payloads handed to the transport after it was closed or after the session reported 'closed'. */
  sentAfterClose(): readonly WirePayload[];
  /** Records the session's state$ into the log (call once the session exists). */
  track(session: McpSession): void;
}

/** Wraps `inner` to log every frame sent and the close call; delegates everything. */
export function spyTransport(inner: Transport): { transport: Transport; log: WireLog } {
  const events: WireEvent[] = [];
  const log: WireLog = {
    events,
    get sent() {
      return events.flatMap((event) => (event.type === 'send' ? [event.payload] : []));
    },
    sentAfterClose() {
      const end = events.findIndex((event) => event.type === 'transport-close' || (event.type === 'state' && event.state === 'closed'));
      if (end < 0) return [];
      return events.slice(end).flatMap((event) => (event.type === 'send' ? [event.payload] : []));
    },
    track(session) {
      session.state$.subscribe((state) => events.push({ type: 'state', state }));
    },
  };
  const transport: Transport = {
    get kind() {
      return inner.kind;
    },
    incoming$: inner.incoming$,
    negotiated: (revision) => inner.negotiated?.(revision),
    send(frame: OutboundFrame) {
      events.push({ type: 'send', payload: frame.payload });
      return inner.send(frame);
    },
    close(reason) {
      events.push({ type: 'transport-close' });
      return inner.close(reason);
    },
  };
  return { transport, log };
}

/** The session side of a transport: logged, then checked by the oracle (oracle outermost). */
function instrument(inner: Transport, oracleOptions: OracleOptions = {}): { transport: Transport; oracle: SchemaOracle; log: WireLog } {
  const spied = spyTransport(inner);
  const { transport, oracle } = withSchemaOracle(spied.transport, oracleOptions);
  return { transport, oracle, log: spied.log };
}

// --- session pairs ------------------------------------------------------------------------------------------

export interface PairOptions {
  readonly server?: Partial<ServerConfig>;
  readonly client?: Partial<Omit<ClientConfig, 'clientInfo'>>;
  readonly serverRuntime?: SessionRuntimeOptions;
  readonly memory?: MemoryPairOptions;
}

export interface SessionPair extends AsyncDisposable {
  readonly client: McpSession;
  readonly server: McpSession;
  readonly clientOracle: SchemaOracle;
  readonly serverOracle: SchemaOracle;
  readonly clientWire: WireLog;
  readonly serverWire: WireLog;
  assertClean(): void;
  close(): Promise<void>;
}

/** A memory pair with both ends checked by the oracle: a server session accepted, a client connected. */
export async function createPair(options: PairOptions = {}): Promise<SessionPair> {
  const [clientEnd, serverEnd] = createMemoryPair(options.memory);
  const serverSide = instrument(serverEnd);
  const clientSide = instrument(clientEnd);
  const acceptor = createSessionAcceptor({ serverInfo, capabilities: {}, ...options.server });
  const server = acceptor.accept(serverSide.transport, options.serverRuntime);
  serverSide.log.track(server);
  const client = await within(connectSession(clientSide.transport, { clientInfo, capabilities: {}, ...options.client }), WAIT_MS, 'connectSession');
  clientSide.log.track(client);
  const close = async (): Promise<void> => {
    await Promise.all([client.close(), server.close()]);
  };
  return {
    client,
    server,
    clientOracle: clientSide.oracle,
    serverOracle: serverSide.oracle,
    clientWire: clientSide.log,
    serverWire: serverSide.log,
    assertClean() {
      clientSide.oracle.assertClean();
      serverSide.oracle.assertClean();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

// --- raw peers ----------------------------------------------------------------------------------------------

export interface WireErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A response as a raw peer receives it. */
export interface WireResponse {
  readonly id?: unknown;
  readonly result?: JsonRecord;
  readonly error?: WireErrorObject;
}

export function isResponse(value: unknown): value is JsonRecord & WireResponse {
  return isRecord(value) && !('method' in value) && ('result' in value || 'error' in value);
}

export function isResponseTo(id: RequestId): (value: unknown) => boolean {
  return (value) => isResponse(value) && value['id'] === id;
}

/** An error response that carries no id (the offending message's id could not be read). */
export function isIdlessError(value: unknown): boolean {
  return isResponse(value) && !('id' in value) && 'error' in value;
}

export function isRequestFor(method: string): (value: unknown) => boolean {
  return (value) => isRecord(value) && value['method'] === method && 'id' in value;
}

/** A hand-written peer on the far end of a memory pair: sends anything, collects what the session sends. */
export interface RawPeer extends AsyncDisposable {
  readonly transport: MemoryTransport;
  readonly received: readonly unknown[];
  /** Resolves when the session's side closed the pair (the peer's inbound stream completed). */
  readonly closed: Promise<void>;
  readonly isClosed: boolean;
  /** Sends a value as is: with a codec it is JSON-encoded (any JSON value, even a non-object). */
  send(value: unknown): void;
  /** Sends raw bytes (needs a codec pair). */
  sendBytes(bytes: Uint8Array | string): void;
  request(id: RequestId, method: string, params?: JsonObject): void;
  notify(method: string, params?: JsonObject): void;
  respond(id: RequestId, result: JsonObject): void;
  /** The first message not yet taken that matches; waits at most `timeoutMs`. */
  nextMessage(predicate: (message: unknown) => boolean, timeoutMs?: number): Promise<unknown>;
  /** Sends a request and waits for its response. */
  call(id: RequestId, method: string, params?: JsonObject, timeoutMs?: number): Promise<WireResponse>;
  /** Waits `ms` and fails when a matching message arrived after the call (or was already waiting untaken). */
  expectNone(predicate: (message: unknown) => boolean, ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface RawPeerOptions {
  /** Carry every frame as JSON bytes (needed for `sendBytes`). */
  readonly bytes?: boolean;
  readonly maxMessageBytes?: number;
}

function createRawPeer(transport: MemoryTransport, usesCodec: boolean): RawPeer {
  const received: unknown[] = [];
  const taken = new Set<number>();
  const waiters = new Set<{ predicate: (message: unknown) => boolean; resolve: (message: unknown) => void }>();
  const done = deferred();
  let isClosed = false;
  const offer = (index: number): void => {
    for (const waiter of waiters) {
      if (taken.has(index) || !waiter.predicate(received[index])) continue;
      taken.add(index);
      waiters.delete(waiter);
      waiter.resolve(received[index]);
      return;
    }
  };
  transport.incoming$.subscribe({
    next: (frame) => {
      received.push(frame.type === 'message' ? frame.payload : { unexpectedFrame: frame.type });
      offer(received.length - 1);
    },
    complete: () => {
      isClosed = true;
      done.resolve();
    },
    error: () => {
      isClosed = true;
      done.resolve();
    },
  });
  const send = (value: unknown): void => {
    if (usesCodec) transport.sendBytes(Buffer.from(JSON.stringify(value), 'utf8'));
    else void transport.send({ payload: value as WirePayload });
  };
  const peer: RawPeer = {
    transport,
    received,
    closed: done.promise,
    get isClosed() {
      return isClosed;
    },
    send,
    sendBytes(bytes) {
      transport.sendBytes(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
    },
    request(id, method, params) {
      send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    },
    notify(method, params) {
      send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    },
    respond(id, result) {
      send({ jsonrpc: '2.0', id, result });
    },
    nextMessage(predicate, timeoutMs = WAIT_MS) {
      const index = received.findIndex((message, at) => !taken.has(at) && predicate(message));
      if (index >= 0) {
        taken.add(index);
        return Promise.resolve(received[index]);
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (message: unknown) => {
            clearTimeout(timer);
            resolve(message);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new AssertionError({ message: `no matching message within ${timeoutMs} ms; received: ${JSON.stringify(received)}` }));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async call(id, method, params, timeoutMs = WAIT_MS) {
      peer.request(id, method, params);
      return (await peer.nextMessage(isResponseTo(id), timeoutMs)) as WireResponse;
    },
    async expectNone(predicate, ms) {
      const from = received.length;
      await delay(ms);
      const hits = received.filter((message, at) => (at >= from || !taken.has(at)) && predicate(message));
      if (hits.length > 0) throw new AssertionError({ message: `unexpected message(s): ${JSON.stringify(hits)}` });
    },
    close: () => transport.close(),
    [Symbol.asyncDispose]: () => transport.close(),
  };
  return peer;
}

function rawPair(options: RawPeerOptions): { sessionEnd: MemoryTransport; peerEnd: MemoryTransport } {
  const memory: MemoryPairOptions = options.bytes === true || options.maxMessageBytes !== undefined
    ? { codec: jsonCodec, ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes }) }
    : {};
  const [sessionEnd, peerEnd] = createMemoryPair(memory);
  return { sessionEnd, peerEnd };
}

export interface RawClientHarness extends AsyncDisposable {
  /** The project's server session. */
  readonly session: McpSession;
  /** The hand-written client. */
  readonly peer: RawPeer;
  readonly oracle: SchemaOracle;
  readonly wire: WireLog;
  /** Sends `initialize` (and, unless told otherwise, `notifications/initialized`); returns the response. */
  initialize(protocolVersion?: string, options?: { readonly capabilities?: JsonObject; readonly sendInitialized?: boolean }): Promise<WireResponse>;
  close(): Promise<void>;
}

export interface RawClientOptions extends RawPeerOptions {
  readonly server?: Partial<ServerConfig>;
  readonly runtime?: SessionRuntimeOptions;
}

let initializeIds = 0;

/** A project server session driven by a hand-written client. */
export function rawClient(options: RawClientOptions = {}): RawClientHarness {
  const { sessionEnd, peerEnd } = rawPair(options);
  const side = instrument(sessionEnd);
  const acceptor = createSessionAcceptor({ serverInfo, capabilities: {}, ...options.server });
  const session = acceptor.accept(side.transport, options.runtime);
  side.log.track(session);
  const peer = createRawPeer(peerEnd, options.bytes === true || options.maxMessageBytes !== undefined);
  const close = async (): Promise<void> => {
    await session.close();
  };
  return {
    session,
    peer,
    oracle: side.oracle,
    wire: side.log,
    async initialize(protocolVersion = '2025-11-25', init = {}) {
      const id = `init-${++initializeIds}`;
      const response = await peer.call(id, 'initialize', { protocolVersion, capabilities: init.capabilities ?? {}, clientInfo });
      if (init.sendInitialized !== false) peer.notify('notifications/initialized');
      return response;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

export interface RawServerHarness extends AsyncDisposable {
  /** The project's client handshake, under way. */
  readonly connecting: Promise<McpSession>;
  /** The hand-written server. */
  readonly peer: RawPeer;
  readonly oracle: SchemaOracle;
  readonly wire: WireLog;
  /** Waits for the client's initialize request and returns it. */
  initializeRequest(): Promise<JsonRecord>;
  /** Answers the initialize request with `result` (merged over a valid default for 2025-11-25). */
  answerInitialize(result?: JsonObject): Promise<void>;
  close(): Promise<void>;
}

export interface RawServerOptions extends RawPeerOptions {
  readonly client?: Partial<Omit<ClientConfig, 'clientInfo'>>;
}

/** A project client session connecting to a hand-written server. */
export function rawServer(options: RawServerOptions = {}): RawServerHarness {
  const { sessionEnd, peerEnd } = rawPair(options);
  const side = instrument(sessionEnd);
  const peer = createRawPeer(peerEnd, options.bytes === true || options.maxMessageBytes !== undefined);
  const connecting = connectSession(side.transport, { clientInfo, capabilities: {}, ...options.client });
  // Observed by the specs; never let a failed handshake surface as an unhandled rejection.
  connecting.then((session) => side.log.track(session), () => undefined);
  let initialize: Promise<JsonRecord> | undefined;
  const initializeRequest = (): Promise<JsonRecord> => (initialize ??= peer.nextMessage(isRequestFor('initialize')) as Promise<JsonRecord>);
  const close = async (): Promise<void> => {
    await peer.close();
    await connecting.then((session) => session.close(), () => undefined);
  };
  return {
    connecting,
    peer,
    oracle: side.oracle,
    wire: side.log,
    initializeRequest,
    async answerInitialize(result = {}) {
      const request = await initializeRequest();
      const id = request['id'] as RequestId;
      peer.respond(id, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo, ...result });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
