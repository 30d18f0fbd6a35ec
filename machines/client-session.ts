/**
 * The client side of the legacy handshake: send `initialize`, check the answer, send `initialized`.
 */
import type { HandlerTable } from '../actors/handler-types.ts';
import { outgoingRequest } from '../actors/outgoing-request.ts';
import { LocalError } from '../core/errors.ts';
import { type JsonObject, notification } from '../core/jsonrpc.ts';
import { type ClientCapabilities, type Implementation, type ServerCapabilities, isImplementation } from '../core/protocol/capabilities.ts';
import { LATEST_LEGACY_REVISION, LEGACY_REVISIONS, type LegacyRevision, acceptServerVersion } from '../core/protocol/versions.ts';
import type { Transport } from '../core/transport.ts';
import { type McpSession, SessionCore, type SessionRuntimeOptions } from './session.ts';
import { clientLifecycleMachine } from './session-lifecycle.ts';

export interface ClientConfig extends SessionRuntimeOptions {
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  /** The revision to ask for (default: the newest legacy revision). */
  readonly protocolVersion?: LegacyRevision;
  /** Revisions the client accepts from the server (default: every legacy revision). */
  readonly supportedVersions?: readonly LegacyRevision[];
  readonly handlers?: HandlerTable;
  /** Time allowed for the handshake, in milliseconds (default: the request timeout). */
  readonly initializeTimeoutMs?: number;
  /** Aborting gives up on the handshake and closes the session. */
  readonly signal?: AbortSignal;
}

/** Opens a session over `transport` and completes the handshake. */
export async function connectSession(transport: Transport, config: ClientConfig): Promise<McpSession> {
  const session = new SessionCore('client', transport, clientLifecycleMachine, config.capabilities, config.handlers, undefined, config);
  session.start();
  const requested = config.protocolVersion ?? LATEST_LEGACY_REVISION;
  let result: JsonObject;
  try {
    result = await outgoingRequest(session, {
      method: 'initialize',
      params: { protocolVersion: requested, capabilities: config.capabilities as JsonObject, clientInfo: config.clientInfo as unknown as JsonObject },
      options: {
        ...(config.initializeTimeoutMs === undefined ? {} : { timeoutMs: config.initializeTimeoutMs }),
        ...(config.signal === undefined ? {} : { signal: config.signal }),
      },
      cancellable: false,
    });
  } catch (error) {
    await session.close(error instanceof LocalError ? { reason: error } : {});
    throw error;
  }
  const problem = invalidInitializeResult(result);
  if (problem !== undefined) {
    const error = new LocalError('ProtocolViolation', `The server's initialize result is invalid: ${problem}`);
    await session.close({ reason: error });
    throw error;
  }
  const revision = acceptServerVersion(result['protocolVersion'], config.supportedVersions ?? LEGACY_REVISIONS);
  if (revision === undefined) {
    const error = new LocalError('UnsupportedVersion', `The server answered protocol version ${JSON.stringify(result['protocolVersion'])}, which this client does not support`);
    session.step({ type: 'HANDSHAKE_FAILED' });
    await session.close({ reason: error });
    throw error;
  }
  session.revision = revision;
  session.peerCapabilities = result['capabilities'] as ServerCapabilities;
  session.peerInfo = result['serverInfo'] as Implementation;
  session.instructions = typeof result['instructions'] === 'string' ? result['instructions'] : undefined;
  session.writer.write({ payload: notification('notifications/initialized') });
  session.step({ type: 'INITIALIZED' });
  return session;
}

function invalidInitializeResult(result: JsonObject): string | undefined {
  if (typeof result['protocolVersion'] !== 'string') return 'protocolVersion must be a string';
  const capabilities = result['capabilities'];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) return 'capabilities must be an object';
  if (!isImplementation(result['serverInfo'])) return 'serverInfo must name the server and its version';
  if (result['instructions'] !== undefined && typeof result['instructions'] !== 'string') return 'instructions must be a string';
  return undefined;
}
