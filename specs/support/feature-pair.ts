/**
 * Helpers for the server feature specs: a real `createServer(...)` serving real `createClient(...)` sessions over
 * the spec medium (`createMemoryPair()`, or NATS: see nats-medium.ts), with BOTH ends of every pair logged and
 * checked by the schema oracle. A spec builds one harness per test, connects one or more clients (each choosing
 * its protocol revision), and ends with `assertClean()`, which fails when any message either side sent violates
 * the schema of the negotiated revision.
 *
 * A raw connection (`connectRaw`) puts a hand-written client in front of the server, for requests the project's
 * client would refuse to send (invalid params, undeclared capabilities). Its own messages are not checked (they
 * are the test's input); everything the server answers is.
 */
import { AssertionError } from 'node:assert';
import { WireError } from '../../core/errors.ts';
import type { JsonObject, RequestId, WirePayload } from '../../core/jsonrpc.ts';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import type { Transport } from '../../core/transport.ts';
import { type ClientOptions, createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { type McpServer, type ServerOptions, createServer } from '../../server/create-server.ts';
import type { McpSession } from '../../session/session-core.ts';
import { type JsonRecord, WAIT_MS, type WireLog, type WireResponse, delay, isRecord, isResponseTo, spyTransport, within } from './harness.ts';
import { medium, settle, type SpecAcceptor, SpecMedium } from './nats-medium.ts';
import { type SchemaOracle, withSchemaOracle } from './schema-oracle.ts';

export { WAIT_MS, delay, isRecord, within, type JsonRecord, type WireResponse };
/** The medium's settle (memory: microtasks and immediates; NATS: until the traffic comes to rest). */
export { medium, settle } from './nats-medium.ts';

/** The legacy revisions a client can ask for; feature specs run per revision where the revision matters. */
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const satisfies readonly LegacyRevision[];

export interface ConnectOptions {
  /** The revision the client asks for (default: the client's newest). */
  readonly protocolVersion?: LegacyRevision;
  readonly client?: Partial<ClientOptions>;
}

/** One client connected to the harness's server. */
export interface Connection {
  readonly client: ClientSession;
  /** The server's session for this client. */
  readonly session: McpSession;
  readonly clientWire: WireLog;
  readonly serverWire: WireLog;
  /** Messages of `method` the server sent on this session so far (requests and notifications). */
  serverSent(method: string): JsonRecord[];
  /** Messages of `method` the client sent so far. */
  clientSent(method: string): JsonRecord[];
  /** A round trip client -> server -> client: everything the server sent before its answer has arrived. */
  settle(): Promise<void>;
}

/** A hand-written client in front of the server. */
export interface RawConnection {
  readonly session: McpSession;
  readonly serverWire: WireLog;
  readonly received: readonly unknown[];
  /** Sends `initialize` then `notifications/initialized`; returns the initialize response. */
  initialize(protocolVersion?: string, capabilities?: JsonObject): Promise<WireResponse>;
  call(method: string, params?: JsonObject): Promise<WireResponse>;
  /** Sends a request without waiting for its answer (a listen, answered only when it ends); returns its id. */
  send(method: string, params?: JsonObject): RequestId;
}

export interface FeatureHarness extends AsyncDisposable {
  readonly server: McpServer;
  readonly connections: readonly Connection[];
  connect(options?: ConnectOptions): Promise<Connection>;
  connectRaw(): RawConnection;
  /** Checks every oracle of every connection made so far. */
  assertClean(): void;
  close(): Promise<void>;
}

export interface FeaturePair extends FeatureHarness, Connection {}

const clientInfo = { name: 'feature-spec-client', version: '0.0.0' } as const;

function instrument(inner: Transport): { transport: Transport; oracle: SchemaOracle; log: WireLog } {
  const spied = spyTransport(inner);
  const { transport, oracle } = withSchemaOracle(spied.transport);
  return { transport, oracle, log: spied.log };
}

function sentOf(log: WireLog, method: string): JsonRecord[] {
  return log.sent.flatMap((payload: WirePayload) => (Array.isArray(payload) ? payload : [payload])).filter(
    (message): message is JsonRecord => isRecord(message) && message['method'] === method,
  );
}

interface ServerSide {
  readonly session: McpSession;
  readonly serverWire: WireLog;
}

/**
 * A server built with `createServer(options)`; register on `harness.server`, then connect clients. Connections
 * run over the spec medium (memory, or NATS: see nats-medium.ts).
 */
export function featureServer(options: Partial<ServerOptions> = {}): FeatureHarness {
  const server = createServer({ name: 'feature-spec-server', version: '0.0.0', ...options });
  const links = new SpecMedium();
  const oracles: SchemaOracle[] = [];
  const connections: Connection[] = [];
  const rawEnds: Transport[] = [];
  let rawIds = 0;

  const acceptor: SpecAcceptor<ServerSide> = {
    eras: server.eras,
    changes: server.changes,
    accept(serverEnd, acceptOptions) {
      const side = instrument(serverEnd);
      oracles.push(side.oracle);
      const session = server.accept(side.transport, acceptOptions);
      side.log.track(session);
      return { session, serverWire: side.log };
    },
  };

  const close = async (): Promise<void> => {
    await Promise.all(connections.map((connection) => connection.client.close()));
    await Promise.all(rawEnds.map((end) => end.close()));
    await server.close();
    await links.close();
    links.assertReceivedClean();
  };

  return {
    server,
    connections,
    async connect(connectOptions = {}) {
      const link = links.link(acceptor);
      const clientSide = instrument(await link.ready);
      oracles.push(clientSide.oracle);
      const client = createClient({ era: 'legacy',
        ...clientInfo,
        ...connectOptions.client,
        ...(connectOptions.protocolVersion === undefined ? {} : { protocolVersion: connectOptions.protocolVersion }),
      });
      const handle = await within(client.connect(clientSide.transport), WAIT_MS, 'client.connect');
      clientSide.log.track(handle.session);
      const { session, serverWire } = await within(link.first, WAIT_MS, 'the server side of the connection');
      // Over NATS the client's notifications/initialized is still on its way: connected means operating on both ends.
      if (medium === 'nats') await settle();
      const connection: Connection = {
        client: handle,
        session,
        clientWire: clientSide.log,
        serverWire,
        serverSent: (method) => sentOf(serverWire, method),
        clientSent: (method) => sentOf(clientSide.log, method),
        settle: () => within(handle.ping(), WAIT_MS, 'the settling ping'),
      };
      connections.push(connection);
      return connection;
    },
    connectRaw() {
      const link = links.link(acceptor);
      const peerEnd = link.transport;
      rawEnds.push(peerEnd);
      const received: unknown[] = [];
      const waiters = new Set<{ readonly id: RequestId; readonly resolve: (response: WireResponse) => void }>();
      peerEnd.incoming$.subscribe((frame) => {
        if (frame.type !== 'message') return;
        received.push(frame.payload);
        for (const waiter of waiters) {
          if (isResponseTo(waiter.id)(frame.payload)) {
            waiters.delete(waiter);
            waiter.resolve(frame.payload as WireResponse);
          }
        }
      });
      const call = (method: string, params?: JsonObject): Promise<WireResponse> => {
        const id = `raw-${++rawIds}`;
        const answer = new Promise<WireResponse>((resolve) => waiters.add({ id, resolve }));
        void peerEnd.send({ payload: params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params } });
        return within(answer, WAIT_MS, `the answer to raw ${method}`);
      };
      const send = (method: string, params?: JsonObject): RequestId => {
        const id = `raw-${++rawIds}`;
        void peerEnd.send({ payload: params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params } });
        return id;
      };
      return {
        // Over NATS the server side exists once the first request arrived.
        get session() {
          return link.side().session;
        },
        get serverWire() {
          return link.side().serverWire;
        },
        received,
        async initialize(protocolVersion = '2025-11-25', capabilities = {}) {
          const response = await call('initialize', { protocolVersion, capabilities, clientInfo });
          void peerEnd.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
          return response;
        },
        call,
        send,
      };
    },
    assertClean() {
      if (oracles.length === 0) throw new AssertionError({ message: 'no connection was made, so nothing was checked' });
      for (const oracle of oracles) oracle.assertClean();
      links.assertReceivedClean();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A server (set up by `setup` before anyone connects) and one connected client. */
export async function featurePair(
  setup: (server: McpServer) => void,
  options: ConnectOptions & { readonly server?: Partial<ServerOptions> } = {},
): Promise<FeaturePair> {
  const harness = featureServer(options.server);
  try {
    setup(harness.server);
    const connection = await harness.connect(options);
    return { ...harness, ...connection, [Symbol.asyncDispose]: harness.close };
  } catch (error) {
    await harness.close();
    throw error;
  }
}

/** The JSON-RPC error of a rejected call, checked to be a wire error with `code`. */
export async function wireErrorOf(promise: Promise<unknown>, code: number): Promise<WireError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WireError) {
      if (error.code !== code) throw new AssertionError({ message: `expected JSON-RPC error ${code}, got ${error.code}: ${error.message}` });
      return error;
    }
    throw new AssertionError({ message: `expected JSON-RPC error ${code}, got ${String(error)}` });
  }
  throw new AssertionError({ message: `expected JSON-RPC error ${code}, but the call succeeded` });
}

/** Waits `ms` and returns (only to give traffic that should NOT happen a chance to show up). */
export const quiet = async (ms = 20): Promise<void> => {
  await delay(ms);
  if (medium === 'nats') await settle();
};
