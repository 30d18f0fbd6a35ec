/**
 * The client side of the legacy handshake: send `initialize`, check the answer, send `initialized`.
 */
import type { HandlerTable } from '../actors/handler-types.ts';
import { outgoingRequest } from '../actors/outgoing-request.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { LocalError, WireError } from '../core/errors.ts';
import { MetaKey } from '../core/protocol/modern.ts';
import { type JsonObject, notification } from '../core/jsonrpc.ts';
import { type ClientCapabilities, type Implementation, type ServerCapabilities, isImplementation } from '../core/protocol/capabilities.ts';
import { MODERN_REVISIONS, LATEST_LEGACY_REVISION, LEGACY_REVISIONS, type LegacyRevision, acceptServerVersion } from '../core/protocol/versions.ts';
import type { Transport } from '../core/transport.ts';
import { type McpSession, SessionCore, type SessionRuntimeOptions } from './session.ts';
import { clientLifecycleMachine } from './session-lifecycle.ts';

const MODERN_REVISION = MODERN_REVISIONS[0];

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
  /**
   * The protocol era: `legacy` (the initialize handshake; the default here), `modern` (2026-07-28, stateless,
   * discovered with `server/discover`), or `auto` (probe with `server/discover`, fall back to `initialize` when
   * the server does not answer it the modern way).
   */
  readonly era?: 'auto' | 'legacy' | 'modern';
  /** How long the `auto` probe waits before taking the server for a legacy one (default 5000 ms). */
  readonly probeTimeoutMs?: number;
}

/** Opens a session over `transport` and completes the handshake (or the modern discovery). */
export async function connectSession(transport: Transport, config: ClientConfig): Promise<McpSession> {
  const session = new SessionCore('client', transport, clientLifecycleMachine, config.capabilities, config.handlers, undefined, config);
  session.start();
  const era = config.era ?? 'legacy';
  if (era !== 'legacy' && (await discoverModern(session, config, era === 'modern'))) return session;
  await legacyHandshake(session, config);
  return session;
}

/**
 * The modern era's start: every request will carry the envelope, and `server/discover` tells what the server
 * offers. True when the server speaks 2026-07-28. In `auto` mode any failure that is not a modern answer
 * (an error of another kind, a refusal, silence) means a legacy server: false, and nothing is left behind
 * (a late answer to the probe is dropped as an unknown response).
 */
async function discoverModern(session: SessionCore, config: ClientConfig, required: boolean): Promise<boolean> {
  session.envelope = Object.freeze({
    [MetaKey.protocolVersion]: MODERN_REVISION,
    [MetaKey.clientCapabilities]: config.capabilities as JsonObject,
    [MetaKey.clientInfo]: config.clientInfo as unknown as JsonObject,
  });
  const timeoutMs = required ? config.initializeTimeoutMs : (config.probeTimeoutMs ?? 5000);
  const probe = (): Promise<JsonObject> =>
    outgoingRequest(session, {
      method: 'server/discover',
      params: {},
      options: { ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(config.signal === undefined ? {} : { signal: config.signal }) },
    });
  let failure: unknown;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const result = await probe();
      const versions = result['supportedVersions'];
      if (!Array.isArray(versions) || !versions.includes(MODERN_REVISION)) {
        failure = new LocalError('UnsupportedVersion', `The server does not list ${MODERN_REVISION} among its versions`);
        break;
      }
      const capabilities = result['capabilities'];
      session.peerCapabilities = (typeof capabilities === 'object' && capabilities !== null ? capabilities : {}) as ServerCapabilities;
      const info = (result['_meta'] as JsonObject | undefined)?.[MetaKey.serverInfo];
      session.peerInfo = isImplementation(info) ? info : undefined;
      session.instructions = typeof result['instructions'] === 'string' ? result['instructions'] : undefined;
      session.step({ type: 'INITIALIZED' });
      return true;
    } catch (error) {
      failure = error;
      // -32022 naming a version this client speaks: the server wants it said again with that version.
      if (!(error instanceof WireError && error.code === ErrorCode.UnsupportedProtocolVersion && supportsOurs(error.data))) break;
    }
  }
  session.envelope = undefined;
  if (!required && session.admits('admit-handshake')) return false;
  const error = failure instanceof LocalError ? failure : new LocalError('UnsupportedVersion', `The server does not speak ${MODERN_REVISION}`, { cause: failure });
  await session.close({ reason: error });
  throw error;
}

function supportsOurs(data: unknown): boolean {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) && supported.includes(MODERN_REVISION);
}

async function legacyHandshake(session: SessionCore, config: ClientConfig): Promise<void> {
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
}

function invalidInitializeResult(result: JsonObject): string | undefined {
  if (typeof result['protocolVersion'] !== 'string') return 'protocolVersion must be a string';
  const capabilities = result['capabilities'];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) return 'capabilities must be an object';
  if (!isImplementation(result['serverInfo'])) return 'serverInfo must name the server and its version';
  if (result['instructions'] !== undefined && typeof result['instructions'] !== 'string') return 'instructions must be a string';
  return undefined;
}
