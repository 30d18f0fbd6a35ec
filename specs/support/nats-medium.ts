/**
 * The medium the feature specs' connections run on: the memory transport (the default), or NATS when the
 * environment says so:
 *
 *   RXMCP_SPEC_MEDIUM=nats RXMCP_SPEC_NATS_URL=nats://127.0.0.1:4222 npx tsx --test specs/features/...
 *
 * A harness opens one {@link SpecMedium} per server it builds and asks it for links (`medium.link(acceptor)`):
 * a client end plus the server side(s) accepted for it.
 * - memory: one `createMemoryPair()`; the server side is accepted at once, exactly as the harnesses always did.
 * - nats: the acceptor is served with `serveNats` (one serving per acceptor, on a NATS connection of its own,
 *   under a name of its own) and every link is a `createNatsClientTransport` on a NATS connection of its own. The
 *   binding calls the acceptor for every legacy session and every modern lane; the harness instruments that
 *   transport (spy + schema oracle) as it instruments a memory end. A server side belongs to the link whose
 *   reply inbox carried its first request (every link has an inbox prefix of its own).
 * Either way a harness's code is the same; only timing differs (NATS delivers over TCP), so specs wait with
 * {@link settle} (which lets NATS traffic reach quiescence) and the clocks of {@link specClock}.
 *
 * Over NATS, every error response a link receives is also checked against the schema (the binding itself
 * answers some requests, before any session sees them, and those answers pass no server-side oracle).
 */
import { AssertionError } from 'node:assert';
import { after } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { type Observable, defer, from, switchMap } from 'rxjs';
import type { ChangeFeedPort } from '../../core/server-change.ts';
import type { InboundFrame, OutboundFrame, SessionAcceptorPort, Transport } from '../../core/transport.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { type NatsServing, createNatsClientTransport, serveNats } from '../../transports/nats/index.ts';
import { DEFAULT_REVISION, formatViolations, type OracleViolation, validateMessage } from './schema-oracle.ts';
import { TestClock, settle as settleMemory } from './test-clock.ts';

export type Medium = 'memory' | 'nats';

function chosen(): { readonly medium: Medium; readonly url: string | undefined } {
  const asked = process.env['RXMCP_SPEC_MEDIUM'];
  if (asked === undefined || asked === '' || asked === 'memory') return { medium: 'memory', url: undefined };
  if (asked !== 'nats') throw new Error(`RXMCP_SPEC_MEDIUM must be "memory" or "nats", not ${JSON.stringify(asked)}`);
  const url = process.env['RXMCP_SPEC_NATS_URL'];
  if (url === undefined || url === '') throw new Error('RXMCP_SPEC_MEDIUM=nats needs RXMCP_SPEC_NATS_URL (nats://host:port)');
  return { medium: 'nats', url };
}

const choice = chosen();
/** The medium of this run. */
export const medium: Medium = choice.medium;

/** How often a serving sends keepalives on requests in flight over NATS (small, so they happen in specs). */
const NATS_KEEPALIVE_MS = 100;
/** One KV bucket for the legacy session records of every spec serving (session ids are random). */
const SESSION_BUCKET = 'rxmcp_spec_sessions';
/** Rounds of flushes `settle` tries before it gives up waiting for quiescence. */
const MAX_SETTLE_ROUNDS = 100;

/** What a server side must offer the binding (McpSession fits). */
export interface AcceptedSession {
  readonly state: string;
  close(): Promise<void>;
}

export type AcceptOptions = Parameters<SessionAcceptorPort['accept']>[1];

/**
 * How a harness accepts one server side on a transport (instrumenting it first). `tag` is what the link it
 * belongs to was opened with (undefined until the side's first message named its link, over NATS).
 */
export interface SpecAcceptor<S extends { readonly session: AcceptedSession }, T = undefined> {
  readonly eras?: SessionAcceptorPort['eras'];
  readonly changes?: ChangeFeedPort;
  accept(transport: Transport, options: AcceptOptions, tag: () => T | undefined): S;
}

export interface SpecLink<S> {
  /** The client end. Over NATS, frames sent before its connection is up wait for it, in order. */
  readonly transport: Transport;
  /** The client end once it is connected (memory: at once). */
  readonly ready: Promise<Transport>;
  /** The server sides accepted for this link so far, oldest first (over NATS, a new lane may follow a closed one). */
  readonly sides: readonly S[];
  /** The first server side (over NATS: once the link's first message reached it). */
  readonly first: Promise<S>;
  /** The newest server side; throws when none was accepted yet. */
  side(): S;
}

export interface LinkOptions<T> {
  readonly tag?: T;
  /** The revision the error responses this link receives are checked against (default 2025-11-25). */
  readonly revision?: string;
}

const liveConnections = new Set<NatsConnection>();
const openMedia = new Set<SpecMedium>();
let names = 0;

if (medium === 'nats') {
  // A test that failed before its harness closed leaves connections open: they must not keep the file's
  // process alive.
  after(async () => {
    await Promise.all(Array.from(openMedia, (open) => open.close()));
  });
}

async function openConnection(): Promise<NatsConnection> {
  const connection = await connect({ servers: choice.url as string, reconnect: false, name: `rxmcp-spec-${process.pid}` });
  liveConnections.add(connection);
  void connection.closed().then(() => liveConnections.delete(connection));
  return connection;
}

function traffic(): number {
  let total = 0;
  for (const connection of liveConnections) {
    const stats = connection.stats();
    total += stats.inMsgs + stats.outMsgs;
  }
  return total;
}

async function flushAll(): Promise<void> {
  const open = Array.from(liveConnections).filter((connection) => !connection.isClosed());
  await Promise.all(open.map((connection) => connection.flush().catch(() => undefined)));
}

/**
 * Lets deliveries run to completion. Memory: the microtasks and immediates of test-clock's `settle`. NATS: that,
 * then rounds of flushing every open connection twice (the first round trip puts everything published so far
 * through the NATS server, the second proves it reached its subscribers, whose callbacks run as it is read)
 * until a round moves no message at all.
 */
export async function settle(): Promise<void> {
  await settleMemory();
  if (medium !== 'nats' || liveConnections.size === 0) return;
  let before = traffic();
  for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
    await flushAll();
    await flushAll();
    await settleMemory();
    const now = traffic();
    if (now === before) return;
    before = now;
  }
  throw new AssertionError({ message: `NATS traffic did not come to rest within ${MAX_SETTLE_ROUNDS} flush rounds` });
}

/**
 * A {@link TestClock} whose `advanceAsync` lets the medium settle between timers (over NATS a timer's effect
 * crosses the network). The same clock as always over memory.
 */
export function specClock(): TestClock {
  return medium === 'nats' ? new MediumClock() : new TestClock();
}

class MediumClock extends TestClock {
  override async advanceAsync(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`advanceAsync needs a non-negative duration, got ${ms}`);
    const target = this.now() + ms;
    await settle();
    for (let due = this.nextDue; due !== undefined && due <= target; due = this.nextDue) {
      this.advance(Math.max(0, due - this.now()));
      await settle();
    }
    this.advance(target - this.now());
    await settle();
  }
}

/** The error responses in a received frame that the schema of `revision` does not allow. */
function receivedViolations(frame: InboundFrame, revision: string): OracleViolation[] {
  if (frame.type !== 'message') return [];
  const violations: OracleViolation[] = [];
  for (const message of Array.isArray(frame.payload) ? (frame.payload as unknown[]) : [frame.payload]) {
    if (typeof message !== 'object' || message === null || !('error' in message) || 'method' in message) continue;
    const errors = validateMessage(revision, message);
    if (errors.length > 0) violations.push({ revision, direction: 'out', message, errors: errors.join('\n') });
  }
  return violations;
}

/** A transport whose sends wait (in order) until `ready` gives the real one. */
function deferredTransport(ready: Promise<Transport>): Transport {
  let real: Transport | undefined;
  const queued: Array<{ frame: OutboundFrame; resolve: (sent: void | Promise<void>) => void }> = [];
  void ready.then(
    (transport) => {
      real = transport;
      for (const { frame, resolve } of queued.splice(0)) resolve(transport.send(frame));
    },
    () => undefined,
  );
  const later = <V>(pick: (transport: Transport) => Observable<V>): Observable<V> => defer(() => (real === undefined ? from(ready).pipe(switchMap(pick)) : pick(real)));
  return {
    kind: 'nats',
    incoming$: later((transport) => transport.incoming$),
    send(frame) {
      if (real !== undefined) return real.send(frame);
      const sent = new Promise<void>((resolve, reject) => {
        ready.catch(reject);
        queued.push({ frame, resolve: (value) => resolve(value as Promise<void>) });
      });
      // Never an unhandled rejection: the caller may well ignore it.
      sent.catch(() => undefined);
      return sent;
    },
    close: (reason) => ready.then((transport) => transport.close(reason)),
  };
}

interface LinkState<S, T> {
  readonly prefix: string;
  readonly tag: T | undefined;
  readonly sides: S[];
  readonly resolveFirst: (side: S) => void;
}

/** The links of one harness (one server, possibly several acceptors). */
export class SpecMedium {
  private server: Promise<NatsConnection> | undefined;
  private readonly servings = new Map<object, Promise<NatsServing & { readonly name: string }>>();
  private readonly links: Array<LinkState<unknown, unknown>> = [];
  private readonly readies: Array<Promise<Transport>> = [];
  private readonly clientConnections: NatsConnection[] = [];
  /** Error responses the links received that break the schema (over NATS; see the module comment). */
  private readonly received: OracleViolation[] = [];
  private closing: Promise<void> | undefined;

  constructor() {
    if (medium === 'nats') openMedia.add(this);
  }

  /** A client end with its server side(s) accepted by `acceptor`. */
  link<S extends { readonly session: AcceptedSession }, T = undefined>(acceptor: SpecAcceptor<S, T>, options: LinkOptions<T> = {}): SpecLink<S> {
    if (medium === 'memory') {
      const [clientEnd, serverEnd] = createMemoryPair();
      const side = acceptor.accept(serverEnd, undefined, () => options.tag);
      return { transport: clientEnd, ready: Promise.resolve(clientEnd), sides: [side], first: Promise.resolve(side), side: () => side };
    }
    if (this.closing !== undefined) throw new Error('the spec medium is closed');
    const prefix = `_INBOX.rxspec${process.pid}n${++names}`;
    let resolveFirst!: (side: S) => void;
    const first = new Promise<S>((resolve) => (resolveFirst = resolve));
    const state: LinkState<S, T> = { prefix, tag: options.tag, sides: [], resolveFirst };
    this.links.push(state as LinkState<unknown, unknown>);
    const ready = (async () => {
      const [serving, connection] = await Promise.all([this.serving(acceptor), openConnection()]);
      this.clientConnections.push(connection);
      const transport = createNatsClientTransport({ connection, name: serving.name, inboxPrefix: prefix });
      const revision = options.revision ?? DEFAULT_REVISION;
      transport.incoming$.subscribe((frame) => this.received.push(...receivedViolations(frame, revision)));
      return transport;
    })();
    this.readies.push(ready);
    ready.catch(() => undefined);
    return {
      transport: deferredTransport(ready),
      ready,
      sides: state.sides,
      first,
      side() {
        const newest = state.sides.at(-1);
        if (newest === undefined) throw new AssertionError({ message: 'no server side was accepted for this NATS link yet (its first message has not arrived)' });
        return newest;
      },
    };
  }

  /** Fails when a link received an error response the schema does not allow (reported once). */
  assertReceivedClean(): void {
    if (this.received.length === 0) return;
    const violations = this.received.splice(0);
    throw new AssertionError({ message: `schema oracle: ${violations.length} error responses received over NATS violate the MCP schema\n${formatViolations(violations)}` });
  }

  /** Over NATS: closes every link, serving and connection this medium opened. Memory: nothing to do. Never throws. */
  close(): Promise<void> {
    if (medium === 'memory') return Promise.resolve();
    this.closing ??= (async () => {
      // Clients first (a legacy client's close frame ends its session), then the servings, then the connections.
      await Promise.all(this.readies.map((ready) => ready.then((transport) => transport.close(), () => undefined)));
      await settle().catch(() => undefined);
      await Promise.all(Array.from(this.servings.values(), (serving) => serving.then((started) => started.close('end', { drainMs: 0 }), () => undefined)));
      const server = await this.server?.catch(() => undefined);
      const connections = server === undefined ? this.clientConnections : [...this.clientConnections, server];
      const open = connections.filter((connection) => !connection.isClosed());
      await Promise.all(open.map((connection) => connection.close().catch(() => undefined)));
      openMedia.delete(this);
    })();
    return this.closing;
  }

  private serving<S extends { readonly session: AcceptedSession }, T>(acceptor: SpecAcceptor<S, T>): Promise<NatsServing & { readonly name: string }> {
    const known = this.servings.get(acceptor);
    if (known !== undefined) return known;
    this.server ??= openConnection();
    const name = `spec${process.pid}n${++names}`;
    const started = (async () => {
      const connection = await (this.server as Promise<NatsConnection>);
      const port: SessionAcceptorPort = {
        ...(acceptor.eras === undefined ? {} : { eras: acceptor.eras }),
        ...(acceptor.changes === undefined ? {} : { changes: acceptor.changes }),
        accept: (transport, options) => this.accept(acceptor, transport, options),
      };
      const serving = await serveNats(port, { connection, name, keepaliveMs: NATS_KEEPALIVE_MS, sessionRecords: { bucket: SESSION_BUCKET } });
      return Object.assign(serving, { name });
    })();
    this.servings.set(acceptor, started);
    return started;
  }

  /** Accepts a server side and gives it to the link whose reply inbox its first request came from. */
  private accept<S extends { readonly session: AcceptedSession }, T>(acceptor: SpecAcceptor<S, T>, transport: Transport, options: AcceptOptions): { readonly state: string; close(): Promise<void> } {
    let owner: LinkState<S, T> | undefined;
    const claim = transport.incoming$.subscribe((frame) => {
      if (frame.type !== 'message' || typeof frame.exchange !== 'string') return;
      claim.unsubscribe();
      const exchange = frame.exchange;
      owner = this.links.find((link) => exchange.startsWith(`${link.prefix}.`)) as LinkState<S, T> | undefined;
      if (owner === undefined) return;
      owner.sides.push(side);
      if (owner.sides.length === 1) owner.resolveFirst(side);
    });
    const side = acceptor.accept(transport, options, () => owner?.tag);
    return side.session;
  }
}
