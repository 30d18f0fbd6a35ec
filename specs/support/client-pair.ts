/**
 * A public-API pair for the client feature specs: a `createServer` server and a `createClient` client,
 * linked by the spec medium (the in-memory transport, or NATS: see nats-medium.ts), both ends wrapped by the
 * schema oracle (with the sender's role) and recorded, all timers on one {@link TestClock}.
 *
 *   const pair = await clientPair({ protocolVersion: '2025-11-25', client: { sampling }, setup: (s) => s.tool(...) });
 *   ... pair.session.callTool(...) ...
 *   await pair.finish(); // maps empty, sessions closed, timers cancelled, no frames after close, oracles clean
 *
 * `link()` connects the same client again (to the same server, or to any acceptor), for specs that need
 * several sessions of one client.
 */
import assert from 'node:assert/strict';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import type { Transport } from '../../core/transport.ts';
import { type ClientOptions, type McpClient, createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { type McpServer, type ServerOptions, createServer } from '../../server/create-server.ts';
import type { McpSession, SessionRuntimeOptions } from '../../session/session-core.ts';
import { WAIT_MS, within } from './harness.ts';
import { type SpecAcceptor, SpecMedium, settle, specClock } from './nats-medium.ts';
import { type SchemaOracle, withSchemaOracle } from './schema-oracle.ts';
import { type TestClock, type WireRecord, assertIdle, recordSends } from './test-clock.ts';

/** The medium's settle (memory: microtasks and immediates; NATS: until the traffic comes to rest). */
export { medium, settle } from './nats-medium.ts';

export type ServerSetup = Omit<ServerOptions, 'name' | 'version'>;
export type ClientSetup = Omit<ClientOptions, 'name' | 'version' | 'protocolVersion'>;

/** Accepts one server session on a transport (a `createServer` server, or a low-level acceptor). */
export type Accept = (transport: Transport, runtime: SessionRuntimeOptions) => McpSession;

export interface ClientPairOptions {
  /** The revision the client asks for (and, with the default server, gets). */
  readonly protocolVersion: LegacyRevision;
  readonly server?: ServerSetup;
  readonly client?: ClientSetup;
  /** Registers tools, resources... before the first connection (capabilities follow the catalog). */
  readonly setup?: (server: McpServer) => void;
  /** Serve with this instead of the `createServer` server (which is still built, unused). */
  readonly accept?: Accept;
}

/** One connection: the client's session handle, the server session, and what each end sent. */
export interface Link {
  readonly session: ClientSession;
  readonly serverSession: McpSession;
  /** Every message the client sent, in order. */
  readonly clientSent: JsonObject[];
  /** Every message the server sent, in order. */
  readonly serverSent: JsonObject[];
  readonly clientSentAfterClose: JsonObject[];
  readonly serverSentAfterClose: JsonObject[];
  readonly oracles: readonly SchemaOracle[];
}

export interface ClientPair extends Link {
  readonly clock: TestClock;
  readonly server: McpServer;
  readonly client: McpClient;
  readonly links: readonly Link[];
  /** Connects the client once more (default: to the same server). */
  link(accept?: Accept): Promise<Link>;
  /** Ends the test: asserts no request is left, closes every session, then checks timers, late frames, oracles. */
  finish(): Promise<void>;
}

export const SERVER_NAME = 'rxmcp-client-spec-server';
export const CLIENT_NAME = 'rxmcp-client-spec-client';

interface ServerSide {
  readonly session: McpSession;
  readonly serverWire: WireRecord;
  readonly oracle: SchemaOracle;
}

export async function clientPair(options: ClientPairOptions): Promise<ClientPair> {
  const clock = specClock();
  const server = createServer({ name: SERVER_NAME, version: '1.0.0', ...options.server, session: { clock, ...options.server?.session } });
  options.setup?.(server);
  const client = createClient({ era: 'legacy',
    name: CLIENT_NAME,
    version: '1.0.0',
    ...options.client,
    protocolVersion: options.protocolVersion,
    session: { clock, ...options.client?.session },
  });
  const serverAccept: Accept = (transport, runtime) => server.accept(transport, runtime);
  const defaultAccept: Accept = options.accept ?? serverAccept;
  const links: Link[] = [];
  const medium = new SpecMedium();
  const acceptors = new Map<Accept, SpecAcceptor<ServerSide>>();

  /** Serves `accept` over the medium: each server side checked by the oracle and recorded. */
  function acceptorFor(accept: Accept): SpecAcceptor<ServerSide> {
    const known = acceptors.get(accept);
    if (known !== undefined) return known;
    const made: SpecAcceptor<ServerSide> = {
      // Only the createServer server serves both eras and has changes; a low-level acceptor serves legacy sessions.
      ...(accept === serverAccept ? { eras: server.eras, changes: server.changes } : { eras: 'legacy' as const }),
      accept(transport, acceptOptions) {
        const serverOracle = withSchemaOracle(transport, { role: 'server' });
        const serverWire = recordSends(serverOracle.transport);
        return { session: accept(serverWire.transport, { ...acceptOptions, clock }), serverWire, oracle: serverOracle.oracle };
      },
    };
    acceptors.set(accept, made);
    return made;
  }

  async function link(accept: Accept = defaultAccept): Promise<Link> {
    const connection = medium.link(acceptorFor(accept));
    const clientOracle = withSchemaOracle(await connection.ready, { role: 'client' });
    const clientWire = recordSends(clientOracle.transport);
    const session = await client.connect(clientWire.transport);
    await settle();
    const { session: serverSession, serverWire, oracle: serverOracle } = await within(connection.first, WAIT_MS, 'the server side of the link');
    assert.equal(serverSession.state, 'operating', 'the server session operates after the handshake');
    assert.equal(session.session.revision, options.protocolVersion, 'the negotiated revision is the one the test asked for');
    const made: Link = {
      session,
      serverSession,
      clientSent: clientWire.sent,
      serverSent: serverWire.sent,
      clientSentAfterClose: clientWire.sentAfterClose,
      serverSentAfterClose: serverWire.sentAfterClose,
      oracles: [clientOracle.oracle, serverOracle],
    };
    links.push(made);
    return made;
  }

  const first = await link();
  return {
    ...first,
    clock,
    server,
    client,
    links,
    link,
    async finish() {
      try {
        await settle();
        for (const each of links) {
          if (each.session.session.state !== 'closed') assertIdle(each.session.session);
          if (each.serverSession.state !== 'closed') assertIdle(each.serverSession);
        }
        for (const each of links) await each.session.close();
        await settle();
        for (const each of links) {
          assert.equal(each.session.session.state, 'closed', 'the client session closed');
          assert.equal(each.serverSession.state, 'closed', 'the server session closed with its transport');
          assert.deepEqual(each.clientSentAfterClose, [], 'the client sent nothing after close');
          assert.deepEqual(each.serverSentAfterClose, [], 'the server sent nothing after close');
        }
        assert.equal(server.sessions.size, 0, 'the server forgot every closed session');
        assert.equal(client.sessions.size, 0, 'the client forgot every closed session');
        assert.equal(clock.pending, 0, 'every timer was cancelled');
        for (const each of links) for (const oracle of each.oracles) oracle.assertClean();
        medium.assertReceivedClean();
      } finally {
        await medium.close();
      }
    },
  };
}

// --- small helpers shared by the client specs ------------------------------------------------------------

export const methodsOf = (sent: readonly JsonObject[]): string[] =>
  sent.flatMap((message) => (typeof message['method'] === 'string' ? [message['method']] : []));

export const requestsOf = (sent: readonly JsonObject[], method: string): JsonObject[] =>
  sent.filter((message) => message['method'] === method && message['id'] !== undefined);

export const notificationsOf = (sent: readonly JsonObject[], method: string): JsonObject[] =>
  sent.filter((message) => message['method'] === method && message['id'] === undefined);

export const paramsOf = (message: JsonObject | undefined): JsonObject => (message?.['params'] ?? {}) as JsonObject;

/** The answers (result or error) sent for request `id`. */
export const answersTo = (sent: readonly JsonObject[], id: unknown): JsonObject[] =>
  sent.filter((message) => message['method'] === undefined && message['id'] === id);

/** The text of the first text block of a tool result. */
export function textOf(result: { readonly content: readonly unknown[] }): string {
  const block = result.content[0] as { readonly type?: unknown; readonly text?: unknown } | undefined;
  assert.equal(block?.type, 'text', 'the first content block is text');
  return String(block?.text);
}

/** Settles a promise into a record, to assert on after other things happened. */
export function outcomeOf<T>(promise: Promise<T>): { readonly settled: boolean; readonly value: T | undefined; readonly error: unknown } {
  const outcome: { settled: boolean; value: T | undefined; error: unknown } = { settled: false, value: undefined, error: undefined };
  promise.then(
    (value) => Object.assign(outcome, { settled: true, value }),
    (error: unknown) => Object.assign(outcome, { settled: true, error }),
  );
  return outcome;
}

/** Awaits a promise expected to reject, and returns what it rejected with. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the promise to reject');
}
