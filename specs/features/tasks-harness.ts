/**
 * The pair the task specs run on: a `createServer` server with tasks enabled and `createClient` clients,
 * linked by the spec medium (the memory transport, or NATS: see specs/support/nats-medium.ts), both ends of
 * every link checked by the schema oracle (with the sender's role) and recorded, every timer on one
 * {@link TestClock} (polling, ttl expiry). Built like
 * `connectPair` in specs/support/test-clock.ts, on the public API.
 *
 *   const pair = await taskPair({ setup: (server) => server.tool(...) });
 *   ... pair.session.callToolAsTask(...) ...
 *   await pair.finish(); // nothing in flight, sessions closed, timers back to zero, oracles clean
 */
import assert from 'node:assert/strict';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import { type ClientOptions, type McpClient, createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { type McpServer, type ServerOptions, createServer } from '../../server/create-server.ts';
import type { McpSession } from '../../session/session-core.ts';
import type { Transport } from '../../core/transport.ts';
import { WAIT_MS, within } from '../support/harness.ts';
import { type SpecAcceptor, SpecMedium, settle, specClock } from '../support/nats-medium.ts';
import { type SchemaOracle, withSchemaOracle } from '../support/schema-oracle.ts';
import { type TestClock, type WireRecord, assertIdle, recordSends } from '../support/test-clock.ts';

/** The medium's settle and clock (memory: as always; NATS: waits until the traffic comes to rest). */
export { medium, settle, specClock } from '../support/nats-medium.ts';

export interface TaskPairOptions {
  /** Server options over the defaults (`tasks: {}`). */
  readonly server?: Partial<Omit<ServerOptions, 'name' | 'version' | 'session'>>;
  /** A server without the tasks option. */
  readonly withoutTasks?: boolean;
  readonly client?: Partial<Omit<ClientOptions, 'name' | 'version' | 'session'>>;
  readonly protocolVersion?: LegacyRevision;
  readonly setup?: (server: McpServer) => void;
  /** The clock (default: a new {@link specClock}), for stores built by the test. */
  readonly clock?: TestClock;
  /** Server notifications of these methods are dropped before the wire (not delivered, recorded or checked). */
  readonly dropServerNotifications?: readonly string[];
}

export interface TaskLink {
  readonly session: ClientSession;
  readonly serverSession: McpSession;
  readonly clientSent: JsonObject[];
  readonly serverSent: JsonObject[];
  readonly oracles: readonly SchemaOracle[];
}

export interface TaskPair extends TaskLink {
  readonly clock: TestClock;
  readonly server: McpServer;
  readonly client: McpClient;
  /** Connects another client session (a second requestor) to the same server. */
  link(): Promise<TaskLink>;
  finish(): Promise<void>;
}

export async function taskPair(options: TaskPairOptions = {}): Promise<TaskPair> {
  const clock = options.clock ?? specClock();
  const server = createServer({
    name: 'rxmcp-task-spec-server',
    version: '1.0.0',
    ...(options.withoutTasks === true ? {} : { tasks: {} }),
    ...options.server,
    session: { clock },
  });
  options.setup?.(server);
  const client = createClient({ era: 'legacy',
    name: 'rxmcp-task-spec-client',
    version: '1.0.0',
    ...options.client,
    ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
    session: { clock },
  });
  const links: TaskLink[] = [];
  const medium = new SpecMedium();
  const dropped = new Set(options.dropServerNotifications);
  const acceptor: SpecAcceptor<{ session: McpSession; serverWire: WireRecord; oracle: SchemaOracle }> = {
    eras: server.eras,
    changes: server.changes,
    accept(serverEnd, acceptOptions) {
      const serverSide = withSchemaOracle(serverEnd, { role: 'server' });
      const serverWire = recordSends(serverSide.transport);
      const serverTransport: Transport = dropped.size === 0 ? serverWire.transport : {
        ...serverWire.transport,
        incoming$: serverWire.transport.incoming$,
        negotiated: (revision) => serverWire.transport.negotiated?.(revision),
        send: (frame) => {
          const payload = frame.payload as unknown as JsonObject;
          if (typeof payload['method'] === 'string' && payload['id'] === undefined && dropped.has(payload['method'])) return undefined;
          return serverWire.transport.send(frame);
        },
      };
      return { session: server.accept(serverTransport, acceptOptions), serverWire, oracle: serverSide.oracle };
    },
  };
  const link = async (): Promise<TaskLink> => {
    const connection = medium.link(acceptor);
    const clientSide = withSchemaOracle(await connection.ready, { role: 'client' });
    const clientWire = recordSends(clientSide.transport);
    const session = await client.connect(clientWire.transport);
    await settle();
    const { session: serverSession, serverWire, oracle: serverOracle } = await within(connection.first, WAIT_MS, 'the server side of the link');
    assert.equal(serverSession.state, 'operating');
    const made: TaskLink = { session, serverSession, clientSent: clientWire.sent, serverSent: serverWire.sent, oracles: [clientSide.oracle, serverOracle] };
    links.push(made);
    return made;
  };
  const first = await link();
  return {
    ...first,
    clock,
    server,
    client,
    link,
    async finish() {
      try {
        await settle();
        for (const each of links) {
          if (each.session.session.state !== 'closed') assertIdle(each.session.session, 'client');
          if (each.serverSession.state !== 'closed') assertIdle(each.serverSession, 'server');
        }
        for (const each of links) await each.session.close();
        await settle();
        assert.equal(server.sessions.size, 0, 'the server forgot every closed session');
        assert.equal(clock.pending, 0, 'every timer was cancelled (task expiry timers included)');
        for (const each of links) for (const oracle of each.oracles) oracle.assertClean();
        medium.assertReceivedClean();
      } finally {
        await medium.close();
      }
    },
  };
}

// --- helpers -----------------------------------------------------------------------------------------------

export const sentWith = (sent: readonly JsonObject[], method: string): JsonObject[] => sent.filter((message) => message['method'] === method);
export const paramsOf = (message: JsonObject | undefined): JsonObject => (message?.['params'] ?? {}) as JsonObject;
export const metaOf = (value: JsonObject | undefined): JsonObject => (value?.['_meta'] ?? {}) as JsonObject;
export const RELATED = 'io.modelcontextprotocol/related-task';

/** The statuses announced with `notifications/tasks/status` for one task, in order. */
export function announced(sent: readonly JsonObject[], taskId: string): string[] {
  return sentWith(sent, 'notifications/tasks/status')
    .map(paramsOf)
    .filter((params) => params['taskId'] === taskId)
    .map((params) => String(params['status']));
}

/** Awaits a rejection with a JSON-RPC error of `code`; returns it. */
export async function wireError(promise: Promise<unknown>, code: number): Promise<WireError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WireError, `expected a WireError, got ${String(error)}`);
    assert.equal(error.code, code, `expected code ${code}, got ${error.code}: ${error.message}`);
    return error;
  }
  assert.fail(`expected a JSON-RPC error ${code}`);
}

/** A promise with its resolvers exposed (the one of specs/support/harness.ts). */
export { deferred } from '../support/harness.ts';

/** Records how a promise settles, without awaiting it. */
export function track<T>(promise: Promise<T>): { settled: boolean; value: T | undefined; error: unknown } {
  const state: { settled: boolean; value: T | undefined; error: unknown } = { settled: false, value: undefined, error: undefined };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}
