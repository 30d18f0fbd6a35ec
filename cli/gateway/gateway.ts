/**
 * `rxmcp gateway`: a Streamable HTTP front (both protocol eras, plus 2024-11-05 HTTP+SSE) for MCP servers
 * hosted on NATS. It runs no MCP session of its own: each HTTP connection is joined frame for frame to a NATS
 * client connection (cli/gateway/forward.ts).
 *
 * Replicas are interchangeable. A legacy HTTP session's record (which NATS session is behind it, its revision
 * and capabilities, the subject its server requests come to) is in JetStream KV, so any replica restores a
 * session it has never seen; the SSE events of every session are in a JetStream stream, so a client that lost
 * its stream resumes it with `Last-Event-ID` on any replica, even while its request still runs elsewhere.
 *
 * Its `/readyz` (cli/gateway/nats-readiness.ts) answers 503 while its NATS connection is down, besides the
 * endpoint's own reasons (shutting down, full) and any check the options add. Stopping with the connection down,
 * it still writes its last answers (cli/gateway/stopping-event-store.ts).
 */
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { AuthInfo } from '../../core/auth.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { FrameOrigin, GracefulCloseOptions, InboundFrame, Transport } from '../../core/transport.ts';
import type { NatsIdentitySigner } from '../../transports/nats/index.ts';
import { isLegacyRevision } from '../../core/protocol/versions.ts';
import { type StreamableHttpServer, type StreamableHttpServerOptions, createStreamableHttpServer } from '../../transports/http/index.ts';
import { JetStreamEventStore, type NatsClientTransport, createNatsClientTransport } from '../../transports/nats/index.ts';
import { forward } from './forward.ts';
import { watchNatsConnection } from './nats-readiness.ts';
import { type GatewaySessionRecord, GatewaySessions } from './session-records.ts';
import { stoppingEventStore } from './stopping-event-store.ts';

export interface GatewayOptions {
  /** A connected `nats` client (reconnecting); the gateway never closes it. */
  readonly connection: NatsConnection;
  /** The MCP server name on NATS. */
  readonly name: string;
  /** NATS subject prefix of the servers (default `mcp`). */
  readonly prefix?: string;
  /**
   * HTTP options (path, allowed hosts and origins, limits, authenticate, CORS, health probes ...); `server` is the
   * gateway's. A `health.readiness` check runs once the NATS connection is up.
   */
  readonly http?: Omit<StreamableHttpServerOptions, 'server' | 'restoreSession' | 'eventStore'>;
  /** KV bucket of the gateway's sessions (default `mcp_gateway_<name>`). */
  readonly sessionBucket?: string;
  /** JetStream stream of SSE events (default `MCP_GATEWAY_EVENTS_<name>`). */
  readonly eventStream?: string;
  /**
   * Copies of the session bucket and of the event stream in a JetStream cluster (default 1; 3 survives the loss
   * of a node). Used when they are created: existing ones keep their own setting.
   */
  readonly replicas?: number;
  /**
   * How long the creation of the session bucket, and every session record's read or write, keep trying while
   * JetStream has no leader for them (a cluster electing one after a node died; default: the binding's, DEFAULT_ELECTION_RETRY_MS). The event stream
   * takes the same budget for its reads and writes.
   */
  readonly electionRetryMs?: number;
  /** A request that hears nothing from the servers for this long fails (default 30 s). */
  readonly silenceMs?: number;
  /**
   * Vouches for the callers the HTTP side authenticated (`http.authenticate`): each message forwarded for one
   * carries an `Mcp-Identity` assertion signed by this signer, which servers configured with its public key
   * verify (docs/nats-binding.md, "Identity across NATS"). The caller's token never goes to NATS. Without it,
   * servers see every caller as anonymous.
   */
  readonly identity?: NatsIdentitySigner;
}

export interface Gateway {
  readonly http: StreamableHttpServer;
  /**
   * Closes the HTTP side gracefully (see `StreamableHttpServer.close`; `drainMs` defaults to 10 s): requests in
   * flight get their answers from the servers, or an error once the deadline passed; legacy sessions stay on
   * NATS for the other replicas.
   */
  close(options?: GracefulCloseOptions): Promise<void>;
}

/** Whether the HTTP side ended the session itself (DELETE), rather than letting go of it here. */
function endedByClient(front: Transport): boolean {
  return (front as { readonly endedByClient?: boolean }).endedByClient === true;
}

/** Who a front frame (or, lacking one, the front connection) was authenticated as: its AuthInfo, or just a principal. */
function callerOf(origin: FrameOrigin | undefined, front: Transport): AuthInfo | undefined {
  const auth = origin?.auth ?? front.auth;
  if (auth !== undefined) return auth;
  const principal = origin?.principal ?? front.principal;
  return principal === undefined ? undefined : { principal, scopes: [], claims: {} };
}

/**
 * The identity assertion of a front connection's caller, kept current for its back transport: each front frame
 * (re)computes it before it is forwarded; the back stamps it on what it publishes.
 */
function vouching(signer: NatsIdentitySigner | undefined, audience: string, front: Transport): {
  readonly current: () => string | undefined;
  readonly prepare?: (frame: InboundFrame & { readonly type: 'message' }) => void | Promise<void>;
  /** Renews the assertion for the front connection's caller (a close sent long after the last message). */
  readonly refresh: () => Promise<void>;
} {
  if (signer === undefined) return { current: () => undefined, refresh: () => Promise.resolve() };
  let current: string | undefined;
  return {
    current: () => current,
    refresh: async () => {
      const caller = callerOf(undefined, front);
      current = caller === undefined ? undefined : await signer.assertionFor(caller, audience);
    },
    prepare: (frame) => {
      const caller = callerOf(frame.origin, front);
      if (caller === undefined) {
        current = undefined;
        return undefined;
      }
      const assertion = signer.assertionFor(caller, audience);
      if (typeof assertion === 'string') {
        current = assertion;
        return undefined;
      }
      return assertion.then((signed) => void (current = signed));
    },
  };
}

function sessionIdOf(front: Transport): string | undefined {
  const id = (front as { readonly sessionId?: unknown }).sessionId;
  return typeof id === 'string' ? id : undefined;
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { connection, name } = options;
  const prefix = options.prefix ?? 'mcp';
  const election = options.electionRetryMs === undefined ? {} : { electionRetryMs: options.electionRetryMs };
  const sessions = await GatewaySessions.open(connection, options.sessionBucket ?? `mcp_gateway_${name}`, 24 * 3_600_000, {
    ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
    ...election,
  });
  const events = await JetStreamEventStore.create(connection, {
    ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
    ...election,
    stream: options.eventStream ?? `MCP_GATEWAY_EVENTS_${name.replace(/[^A-Za-z0-9_-]/g, '_')}`,
    // Beside the servers' subjects, never under them (a server could be named anything).
    subjectPrefix: `${prefix}-gw.${name}.events`,
  });
  // Records read by restoreSession, picked up by the accept that follows it for the same session.
  const restored = new Map<string, GatewaySessionRecord>();
  const audience = `${prefix}.${name}`;
  const back = (identity: () => string | undefined, extra: { readonly clientInbox?: string; readonly resumeSession?: string } = {}): NatsClientTransport =>
    createNatsClientTransport({
      connection,
      name,
      prefix,
      keepSessionOnClose: true,
      identity,
      ...(options.silenceMs === undefined ? {} : { silenceMs: options.silenceMs }),
      ...extra,
    });

  const acceptor = {
    eras: 'both' as const,
    accept(front: Transport, acceptOptions?: { readonly knownEra?: 'modern'; readonly preinitialized?: unknown }): { readonly state: string; close(): Promise<void> } {
      const httpSessionId = sessionIdOf(front);
      const caller = vouching(options.identity, audience, front);
      const prepare = caller.prepare === undefined ? {} : { prepare: caller.prepare };
      if (acceptOptions?.knownEra === 'modern' || httpSessionId === undefined) {
        // A modern POST (or an HTTP+SSE connection): its own NATS lane, no record.
        const forwarding = forward(front, back(caller.current), prepare);
        return { state: 'forwarding', close: (closeOptions?: GracefulCloseOptions) => forwarding.close(closeOptions) };
      }
      const record = acceptOptions?.preinitialized === undefined ? undefined : restored.get(httpSessionId);
      restored.delete(httpSessionId);
      const clientInbox = record?.clientInbox ?? `${prefix}-gw.${name}.inbox.${randomBytes(12).toString('hex')}`;
      const nats = back(caller.current, record === undefined ? { clientInbox } : { clientInbox, resumeSession: record.natsSessionId });
      const forwarding = forward(front, nats, {
        ...prepare,
        onInitialized: async (request: JsonObject, result: JsonObject) => {
          const revision = result['protocolVersion'];
          const natsSessionId = nats.sessionId;
          if (typeof revision !== 'string' || !isLegacyRevision(revision) || natsSessionId === undefined) return;
          const clientInfo = request['clientInfo'] as { name?: unknown; version?: unknown } | undefined;
          const principal = callerOf(undefined, front)?.principal;
          await sessions.put(httpSessionId, {
            natsSessionId,
            clientInbox,
            revision,
            ...(principal === undefined ? {} : { principal }),
            peerCapabilities: (request['capabilities'] ?? {}) as JsonObject,
            ...(typeof clientInfo?.name === 'string' && typeof clientInfo.version === 'string' ? { peerInfo: { name: clientInfo.name, version: clientInfo.version } } : {}),
          }).catch(() => undefined);
        },
        onClosed: () => {
          if (!endedByClient(front)) return;
          // DELETE: the session ends for every replica and on the servers.
          void sessions.delete(httpSessionId).catch(() => undefined);
          const natsSessionId = nats.sessionId;
          // The close frame carries a fresh assertion: the session may have been idle longer than the last one lived.
          if (natsSessionId !== undefined) {
            void caller.refresh().then(() => createNatsClientTransport({ connection, name, prefix, resumeSession: natsSessionId, identity: caller.current }).close()).catch(() => undefined);
          }
        },
      });
      return { state: 'forwarding', close: (closeOptions?: GracefulCloseOptions) => forwarding.close(closeOptions) };
    },
  };

  const natsReadiness = watchNatsConnection(connection);
  const eventStore = stoppingEventStore(events, connection);
  const health = options.http?.health;
  const http = createStreamableHttpServer({
    ...options.http,
    health: health === false ? false : { ...health, readiness: () => natsReadiness.reason() ?? health?.readiness?.() },
    server: acceptor,
    eventStore: eventStore.store,
    restoreSession: async (sessionId, origin) => {
      const record = await sessions.get(sessionId);
      // A session is its caller's: another caller (or an anonymous one) restores nothing.
      if (record === undefined || record.principal !== origin?.principal) return undefined;
      restored.set(sessionId, record);
      return { revision: record.revision, peerCapabilities: record.peerCapabilities, ...(record.peerInfo === undefined ? {} : { peerInfo: record.peerInfo }) };
    },
  });

  return {
    http,
    async close(closeOptions) {
      eventStore.stopping();
      await http.close(closeOptions);
      eventStore.close();
      natsReadiness.stop();
      await events.close();
    },
  };
}
