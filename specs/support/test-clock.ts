/**
 * The specs' clock is the public one (`TestClock` of rxmcp/testing, core/test-clock.ts), re-exported here beside
 * the small scheduling helpers specs use to let microtask-driven deliveries (the memory transport,
 * promise handlers) run to completion, with bounded real waits.
 */
import assert from 'node:assert/strict';
import { tap } from 'rxjs';
import type { HandlerTable, RequestHandler } from '../../actors/handler-types.ts';
import type { KeepaliveOptions } from '../../actors/keepalive.ts';
import { TestClock } from '../../core/test-clock.ts';
import type { JsonObject, JsonRpcMessage } from '../../core/jsonrpc.ts';
import type { Limits } from '../../core/limits.ts';
import type { Transport } from '../../core/transport.ts';
import { connectSession } from '../../client/connect-session.ts';
import { createSessionAcceptor } from '../../server/session-acceptor.ts';
import type { McpSession } from '../../session/session-core.ts';
import { createMemoryPair, type MemoryTransport } from '../../transports/memory/index.ts';
import { type SchemaOracle, withSchemaOracle } from './schema-oracle.ts';

export { TestClock };

/** Lets every queued microtask and immediate run (a few rounds, for chains that hop through both). */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Waits (in real time, briefly) until `predicate` holds; fails after `maxMs`. For outcomes that depend on
 * another runtime's scheduler (Effect fibers), never for timeouts: those run on the {@link TestClock}.
 */
export async function waitFor(predicate: () => boolean, what: string, maxMs = 500): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${maxMs} ms waiting for ${what}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

// --- session helpers for the actor specs ------------------------------------------------------------------
// (Kept here, with the clock they run on, so the actor specs share one small harness of their own.)

/** What a session put on the wire, recorded in order. */
export interface WireRecord {
  readonly transport: Transport;
  readonly sent: JsonObject[];
  /** Messages handed to `send` after the transport was closed (by either end): there should be none. */
  readonly sentAfterClose: JsonObject[];
}

/** Wraps a transport and records every payload handed to `send` (batches are flattened). */
export function recordSends(inner: Transport): WireRecord {
  const sent: JsonObject[] = [];
  const sentAfterClose: JsonObject[] = [];
  let closed = false;
  const transport: Transport = {
    kind: inner.kind,
    incoming$: inner.incoming$.pipe(tap({ complete: () => (closed = true) })),
    negotiated: (revision) => inner.negotiated?.(revision),
    send(frame) {
      const items: readonly unknown[] = Array.isArray(frame.payload) ? frame.payload : [frame.payload];
      for (const item of items) (closed ? sentAfterClose : sent).push(item as JsonObject);
      return inner.send(frame);
    },
    close: (reason) => {
      closed = true;
      return inner.close(reason);
    },
  };
  return { transport, sent, sentAfterClose };
}

/** The project's transport for one session: memory endpoint, checked by the schema oracle, recorded. */
export function observed(endpoint: Transport): WireRecord & { readonly oracle: SchemaOracle } {
  const { transport: checked, oracle } = withSchemaOracle(endpoint);
  return { ...recordSends(checked), oracle };
}

export const messagesWith = (sent: readonly JsonObject[], method: string): JsonObject[] => sent.filter((message) => message['method'] === method);
export const paramsOf = (message: JsonObject | undefined): JsonObject => (message?.['params'] ?? {}) as JsonObject;
export const responsesTo = (sent: readonly JsonObject[], id: unknown): JsonObject[] =>
  sent.filter((message) => message['method'] === undefined && message['id'] === id);

export const serverInfo = { name: 'rxmcp-actor-spec-server', version: '0.0.0' };
export const clientInfo = { name: 'rxmcp-actor-spec-client', version: '0.0.0' };
export const toolResult = (text: string): JsonObject => ({ content: [{ type: 'text', text }] });
export const rootsResult = (tag: string): JsonObject => ({ roots: [{ uri: `file:///${tag}`, name: tag }] });

export interface PairOptions {
  readonly clock: TestClock;
  readonly serverHandlers?: Readonly<Record<string, RequestHandler>>;
  readonly clientHandlers?: Readonly<Record<string, RequestHandler>>;
  readonly limits?: Partial<Limits>;
  readonly clientKeepalive?: KeepaliveOptions;
  readonly serverKeepalive?: KeepaliveOptions;
}

export interface SessionPair {
  readonly client: McpSession;
  readonly server: McpSession;
  readonly clientSent: JsonObject[];
  readonly serverSent: JsonObject[];
  readonly clientSentAfterClose: JsonObject[];
  readonly serverSentAfterClose: JsonObject[];
  readonly clientEnd: MemoryTransport;
  readonly serverEnd: MemoryTransport;
  readonly oracles: readonly SchemaOracle[];
}

export function handlerTable(handlers: Readonly<Record<string, RequestHandler>> = {}): HandlerTable {
  return { requests: new Map(Object.entries(handlers)), notifications: new Map() };
}

/** A connected client (declares `roots`) and server (declares `tools`), both operating. */
export async function connectPair(options: PairOptions): Promise<SessionPair> {
  const { clock, limits } = options;
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSide = observed(serverEnd);
  const clientSide = observed(clientEnd);
  const acceptor = createSessionAcceptor({ serverInfo, capabilities: { tools: {} }, handlers: handlerTable(options.serverHandlers) });
  const server = acceptor.accept(serverSide.transport, {
    clock,
    ...(limits === undefined ? {} : { limits }),
    ...(options.serverKeepalive === undefined ? {} : { keepalive: options.serverKeepalive }),
  });
  const client = await connectSession(clientSide.transport, {
    clientInfo,
    capabilities: { roots: {} },
    handlers: handlerTable(options.clientHandlers),
    clock,
    ...(limits === undefined ? {} : { limits }),
    ...(options.clientKeepalive === undefined ? {} : { keepalive: options.clientKeepalive }),
  });
  await settle();
  assert.equal(server.state, 'operating');
  return {
    client, server, clientSent: clientSide.sent, serverSent: serverSide.sent, clientEnd, serverEnd,
    clientSentAfterClose: clientSide.sentAfterClose, serverSentAfterClose: serverSide.sentAfterClose,
    oracles: [clientSide.oracle, serverSide.oracle],
  };
}

/** The maps SessionCore keeps of requests in flight. */
/** The session's tables of requests in flight (only their sizes are looked at). */
export function mapsOf(session: McpSession): { outgoing: { readonly size: number }; incoming: { readonly size: number } } {
  return session as unknown as { outgoing: { readonly size: number }; incoming: { readonly size: number } };
}

export function assertIdle(session: McpSession, label = session.role): void {
  const { outgoing, incoming } = mapsOf(session);
  assert.equal(outgoing.size, 0, `${label}: no outgoing request is left in the map`);
  assert.equal(incoming.size, 0, `${label}: no incoming request is left in the map`);
}

/** Ends a test: maps empty, sessions closed, every timer cancelled, every sent message schema-valid. */
export async function teardown(clock: TestClock, sessions: readonly McpSession[], oracles: readonly SchemaOracle[]): Promise<void> {
  for (const session of sessions) if (session.state !== 'closed') assertIdle(session);
  for (const session of sessions) await session.close();
  await settle();
  for (const session of sessions) assert.equal(session.state, 'closed');
  assert.equal(clock.pending, 0, 'every timer was cancelled');
  for (const oracle of oracles) oracle.assertClean();
}

/** A scripted peer on a raw memory endpoint: records what it receives and sends what the test says. */
export interface RawPeer {
  readonly received: JsonObject[];
  send(message: JsonObject): void;
  close(): Promise<void>;
}

export interface RawPeerOptions {
  /** Answers `initialize` (a raw server; default true). */
  readonly answerInitialize?: boolean;
  /** Answers `ping` (default true; false swallows pings). */
  readonly answerPings?: boolean;
}

export function rawPeer(endpoint: MemoryTransport, options: RawPeerOptions = {}): RawPeer {
  const received: JsonObject[] = [];
  const send = (message: JsonObject): void => void endpoint.send({ payload: message as unknown as JsonRpcMessage });
  endpoint.incoming$.subscribe((frame) => {
    if (frame.type !== 'message') return;
    const message = frame.payload as JsonObject;
    received.push(message);
    const id = message['id'];
    if (message['method'] === 'initialize' && options.answerInitialize !== false) {
      send({ jsonrpc: '2.0', id, result: { protocolVersion: paramsOf(message)['protocolVersion'], capabilities: { tools: {} }, serverInfo } });
    } else if (message['method'] === 'ping' && options.answerPings !== false) {
      send({ jsonrpc: '2.0', id, result: {} });
    }
  });
  return { received, send, close: () => endpoint.close() };
}

/** A raw client: performs the handshake by hand, then behaves as {@link rawPeer}. */
export async function rawClient(endpoint: MemoryTransport, options: RawPeerOptions = {}): Promise<RawPeer> {
  const peer = rawPeer(endpoint, options);
  peer.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo } });
  await waitFor(() => peer.received.some((message) => message['id'] === 'init'), 'the initialize result');
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await settle();
  return peer;
}

/** A deterministic PRNG (mulberry32) for randomised specs with a fixed seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
