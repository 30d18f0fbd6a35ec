/**
 * The server side of the legacy handshake, and the server-wide configuration that every session shares.
 */
import type { HandlerTable } from '../actors/handler-types.ts';
import type { ModernServing } from '../actors/modern/modern-serving.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { type JsonObject, type RequestId, errorResponse, resultResponse } from '../core/jsonrpc.ts';
import { type Implementation, type ServerCapabilities, isImplementation } from '../core/protocol/capabilities.ts';
import { LEGACY_REVISIONS, type LegacyRevision, negotiateServerVersion } from '../core/protocol/versions.ts';
import type { ExchangeKey, Transport } from '../core/transport.ts';
import { type HandshakeSession, type HandshakeStrategy, type McpSession, SessionCore, type SessionRuntimeOptions } from '../session/session-core.ts';
import { serverLifecycleMachine } from '../machines/session-lifecycle.ts';

export interface ServerConfig {
  readonly serverInfo: Implementation;
  /** The capabilities to declare; a function is asked once per accepted session. */
  readonly capabilities: ServerCapabilities | (() => ServerCapabilities);
  readonly instructions?: string;
  /** Revisions this server speaks (default: every legacy revision). */
  readonly supportedVersions?: readonly LegacyRevision[];
  readonly handlers?: HandlerTable;
  /** Serve the modern era too (on connections that do not open with `initialize`). */
  readonly modern?: ModernServing;
}

/**
 * The handshake answers of one server, built once and shared by all of its sessions: the InitializeResult
 * differs only by the negotiated revision, so one frozen object per revision serves every session.
 */
class ServerHandshake implements HandshakeStrategy {
  private readonly supported: readonly LegacyRevision[];
  /** Results by the capabilities object the session declares, then by revision. */
  private readonly results = new WeakMap<object, Map<LegacyRevision, JsonObject>>();

  readonly modern: ModernServing | undefined;

  constructor(private readonly config: ServerConfig) {
    this.modern = config.modern;
    this.supported = config.supportedVersions ?? LEGACY_REVISIONS;
    if (this.supported.length === 0) throw new RangeError('supportedVersions must name at least one revision');
  }

  handleInitialize(session: HandshakeSession, id: RequestId, params: JsonObject | undefined, exchange: ExchangeKey | undefined): void {
    const invalid = invalidInitializeParams(params);
    const respond = (payload: Parameters<HandshakeSession['writer']['write']>[0]['payload']): void =>
      session.writer.write(exchange === undefined ? { payload } : { payload, exchange });
    if (invalid !== undefined || params === undefined) {
      respond(errorResponse(id, { code: ErrorCode.InvalidParams, message: `Invalid params: ${invalid ?? 'initialize needs params'}` }));
      session.handshakeRefused();
      return;
    }
    const revision = negotiateServerVersion(params['protocolVersion'], this.supported);
    session.revision = revision;
    session.peerCapabilities = params['capabilities'] as JsonObject;
    session.peerInfo = params['clientInfo'] as Implementation;
    // Entering awaitingInitialized announces the revision to the transport (the machine's `announceRevision`).
    session.step({ type: 'INITIALIZE' });
    respond(resultResponse(id, this.resultFor(revision, session.ownCapabilities)));
  }

  private resultFor(revision: LegacyRevision, capabilities: object): JsonObject {
    let byRevision = this.results.get(capabilities);
    if (byRevision === undefined) this.results.set(capabilities, (byRevision = new Map()));
    let result = byRevision.get(revision);
    if (result === undefined) {
      const { serverInfo, instructions } = this.config;
      result = Object.freeze({
        protocolVersion: revision,
        capabilities,
        serverInfo,
        ...(instructions === undefined ? {} : { instructions }),
      });
      byRevision.set(revision, result);
    }
    return result;
  }
}

function invalidInitializeParams(params: JsonObject | undefined): string | undefined {
  if (params === undefined) return 'initialize needs params';
  if (typeof params['protocolVersion'] !== 'string') return 'protocolVersion must be a string';
  const capabilities = params['capabilities'];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) return 'capabilities must be an object';
  if (!isImplementation(params['clientInfo'])) return 'clientInfo must be an object with string name and version';
  return undefined;
}

/** A server endpoint: accepts sessions on transports, sharing its configuration and handlers among them. */
export interface SessionAcceptor {
  accept(transport: Transport, runtime?: SessionRuntimeOptions): McpSession;
}

export function createSessionAcceptor(config: ServerConfig, defaults: SessionRuntimeOptions = {}): SessionAcceptor {
  const handshake = new ServerHandshake(config);
  return {
    accept(transport, runtime = defaults) {
      const capabilities = typeof config.capabilities === 'function' ? config.capabilities() : config.capabilities;
      const session = new SessionCore('server', transport, serverLifecycleMachine, capabilities, config.handlers, handshake, runtime);
      session.start();
      return session;
    },
  };
}
