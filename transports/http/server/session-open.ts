/**
 * How Streamable HTTP sessions come to be held here: opened by an initialize request, or restored from a record
 * kept outside this process (`restoreSession`), for gateways that run as several interchangeable replicas
 * behind a load balancer. Either way the session gets a transport, a place in the registry and a session from
 * the server; a restored one starts operating at once, under the id the client sent, with what its handshake
 * settled elsewhere.
 */
import { newSessionId } from '../../../core/ids.ts';
import { isLegacyRevision } from '../../../core/protocol/versions.ts';
import type { FrameOrigin, SessionAcceptorPort } from '../../../core/transport.ts';
import type { EndpointOptions, RestoredSession } from './options.ts';
import type { SessionRegistry } from './session-registry.ts';
import { HttpSessionTransport, type SessionTransportHooks } from './session-transport.ts';

type AcceptOptions = NonNullable<Parameters<SessionAcceptorPort['accept']>[1]>;

/**
 * Why this endpoint would refuse a new session now, as the 503 message, if it would: its own maximum, or the
 * server's (a session host that is full or shutting down).
 */
export function sessionRefusal(options: EndpointOptions, registry: SessionRegistry): string | undefined {
  if (registry.full) return `Service Unavailable: this server holds its maximum of ${options.maxSessions} sessions; retry later`;
  const refused = options.server.refusal?.();
  return refused === undefined ? undefined : `Service Unavailable: ${refused.message}`;
}

/**
 * Why the readiness probe says "not ready" now, if it does: the endpoint shutting down, or a reason it would
 * refuse a new session (without the 503's "Service Unavailable" prefix: the probe's status says that).
 */
export function readinessRefusal(endpoint: { readonly options: EndpointOptions; readonly registry: SessionRegistry }, closing: boolean): string | undefined {
  if (closing) return 'the server is shutting down';
  if (endpoint.registry.full) return `this server holds its maximum of ${endpoint.options.maxSessions} sessions`;
  return endpoint.options.server.refusal?.()?.message;
}

/** A new session (an initialize request): its transport, registered, then handed to the server. */
export function openSession(options: EndpointOptions, registry: SessionRegistry, origin: FrameOrigin | undefined): HttpSessionTransport {
  return startSession(options, registry, newSessionId(), origin, undefined);
}

export type RestoreOutcome =
  /** The session is held here now (restored, or it already was). */
  | 'held'
  /** No record, or not one this process can serve: answer 404 like any unknown session. */
  | 'unknown'
  /** This process holds its maximum of sessions. */
  | 'full'
  /** The endpoint is shutting down. */
  | 'closed';

/**
 * Restores sessions this process does not hold. One restore per id at a time: concurrent requests naming the
 * same unknown id share the first one's call (and the principal it was made for: a request of another
 * principal then finds a session that is not its own, answered 404 as usual).
 */
export class SessionRestorer {
  private readonly pending = new Map<string, Promise<RestoreOutcome>>();
  private closed = false;

  constructor(
    private readonly options: EndpointOptions,
    private readonly registry: SessionRegistry,
  ) {}

  /** Whether unknown ids are asked about at all. */
  get enabled(): boolean {
    return this.options.restoreSession !== undefined;
  }

  restore(id: string, origin: FrameOrigin | undefined): Promise<RestoreOutcome> {
    let outcome = this.pending.get(id);
    if (outcome === undefined) {
      outcome = this.attempt(id, origin).finally(() => this.pending.delete(id));
      this.pending.set(id, outcome);
    }
    return outcome;
  }

  /** Later restores are refused; one whose record arrives after this is not taken up. */
  close(): void {
    this.closed = true;
  }

  private async attempt(id: string, origin: FrameOrigin | undefined): Promise<RestoreOutcome> {
    const hook = this.options.restoreSession;
    if (hook === undefined || !isSessionIdShape(id)) return 'unknown';
    if (this.closed) return 'closed';
    if (this.registry.has(id)) return 'held';
    // Checked first so a full process does no work for nothing; again after, as others may have filled it.
    if (sessionRefusal(this.options, this.registry) !== undefined) return 'full';
    const record = await hook(id, origin);
    if (record === undefined || !this.serves(record)) return 'unknown';
    if (this.closed) return 'closed';
    if (this.registry.has(id)) return 'held';
    if (sessionRefusal(this.options, this.registry) !== undefined) return 'full';
    startSession(this.options, this.registry, id, origin, record);
    return 'held';
  }

  private serves(record: RestoredSession): boolean {
    return isLegacyRevision(record.revision) && this.options.supportedVersions.includes(record.revision) && typeof record.peerCapabilities === 'object' && record.peerCapabilities !== null;
  }
}

/** What the spec allows in an Mcp-Session-Id (visible ASCII), and a sane length, before any hook sees it. */
function isSessionIdShape(id: string): boolean {
  return id.length > 0 && id.length <= 256 && /^[\x21-\x7e]+$/.test(id);
}

/** The hooks of the transports a registry holds: one object per registry, so a session holds no closures for them. */
const registryHooks = new WeakMap<SessionRegistry, SessionTransportHooks>();

function hooksOf(registry: SessionRegistry): SessionTransportHooks {
  let hooks = registryHooks.get(registry);
  if (hooks === undefined) {
    hooks = {
      onClosed: (transport) => registry.remove(transport.sessionId as string, transport),
      // A failed handshake leaves a session that can never operate: end it (its id then answers 404).
      onInitializeFailed: (transport) => void transport.close(),
    };
    registryHooks.set(registry, hooks);
  }
  return hooks;
}

function startSession(options: EndpointOptions, registry: SessionRegistry, id: string, origin: FrameOrigin | undefined, restored: RestoredSession | undefined): HttpSessionTransport {
  const principal = origin?.principal;
  const transport = new HttpSessionTransport(id, options.transport, hooksOf(registry), { restored: restored !== undefined, principal, auth: origin?.auth });
  let accept: AcceptOptions | undefined;
  if (restored !== undefined) {
    transport.revision = restored.revision;
    const { revision, peerCapabilities, peerInfo } = restored;
    accept = { preinitialized: peerInfo === undefined ? { revision, peerCapabilities } : { revision, peerCapabilities, peerInfo }, restoredSessionId: id };
  }
  registry.add({ id, principal, kind: 'streamable', transport });
  try {
    if (accept === undefined) options.server.accept(transport);
    else options.server.accept(transport, accept);
  } catch (error) {
    void transport.close();
    throw error;
  }
  return transport;
}
