/**
 * The client side of the legacy handshake: send `initialize`, check the answer, send `initialized`.
 */
import type { HandlerTable } from '../actors/handler-types.ts';
import { outgoingRequest } from '../actors/outgoing-request.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { LocalError, WireError } from '../core/errors.ts';
import { MetaKey } from '../core/protocol/modern.ts';
import { withJsonText } from '../core/codecs/json-text.ts';
import { type JsonObject, notification } from '../core/jsonrpc.ts';
import { type ClientCapabilities, type Implementation, type ServerCapabilities, isImplementation } from '../core/protocol/capabilities.ts';
import { MODERN_REVISIONS, LATEST_LEGACY_REVISION, LEGACY_REVISIONS, type LegacyRevision, acceptServerVersion } from '../core/protocol/versions.ts';
import type { Transport } from '../core/transport.ts';
import type { TimerHandle } from '../core/clock.ts';
import { type McpSession, SessionCore, type SessionRuntimeOptions } from '../session/session-core.ts';
import { clientLifecycleMachine } from '../machines/session-lifecycle.ts';

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
  /** What the modern envelope declares, when it declares more than `initialize` would (2026-07-28 extensions). */
  readonly modernCapabilities?: ClientCapabilities;
}

/** Opens a session over `transport` and completes the handshake (or the modern discovery). */
export async function connectSession(transport: Transport, config: ClientConfig): Promise<McpSession> {
  const session = new SessionCore('client', transport, clientLifecycleMachine, config.capabilities, config.handlers, undefined, config);
  session.start();
  const era = config.era ?? 'legacy';
  if (era === 'legacy') await settleOrClose(session, () => completeLegacy(session, config, sendInitialize(session, config)));
  else if (era === 'modern') await settleOrClose(session, () => completeModern(session, config, discover(session, config, config.initializeTimeoutMs, config.signal)));
  else await connectAuto(session, config);
  return session;
}

/** Runs the handshake; when it fails, the session closes with its reason and the error is thrown. */
async function settleOrClose(session: SessionCore, handshake: () => Promise<void>): Promise<void> {
  try {
    await handshake();
  } catch (error) {
    if (session.admits('admit-handshake') && error instanceof LocalError && error.code === 'UnsupportedVersion') session.step({ type: 'HANDSHAKE_FAILED' });
    await session.close(error instanceof LocalError ? { reason: error } : {});
    throw error;
  }
}

/**
 * `auto`: the era is taken from the server's first valid answer, never from its silence alone. The probe
 * (`server/discover`) gets `probeTimeoutMs` to be answered: a modern answer means 2026-07-28, any other answer a
 * legacy server. Silence means a server slow to start (a stdio program still loading) or a legacy one that ignores
 * what it does not know before `initialize`: then `initialize` goes out too, and whichever request is answered
 * validly first decides (a dual-era server that already took the probe as modern refuses the `initialize`; a
 * legacy server never answers the probe validly). The other request is let go.
 */
async function connectAuto(session: SessionCore, config: ClientConfig): Promise<void> {
  const probe = new AbortController();
  const signal = config.signal === undefined ? probe.signal : AbortSignal.any([config.signal, probe.signal]);
  const probing = discover(session, config, config.initializeTimeoutMs, signal);
  probing.catch(() => undefined);
  let silence: TimerHandle | undefined;
  const early = await Promise.race([
    probing.then((result) => ({ result }), (error: unknown) => ({ error })),
    new Promise<undefined>((resolve) => (silence = session.clock.setTimeout(() => resolve(undefined), config.probeTimeoutMs ?? 5000))),
  ]);
  silence?.cancel();
  if (early !== undefined) {
    if ('result' in early) return settleOrClose(session, () => completeModern(session, config, Promise.resolve(early.result)));
    if (config.signal?.aborted === true) return settleOrClose(session, () => Promise.reject(early.error));
    return settleOrClose(session, () => completeLegacy(session, config, sendInitialize(session, config)));
  }
  const initializing = sendInitialize(session, config);
  initializing.catch(() => undefined);
  let winner: { readonly era: 'modern' | 'legacy'; readonly result: JsonObject };
  try {
    winner = await Promise.any([
      probing.then((result) => ({ era: 'modern' as const, result })),
      initializing.then((result) => ({ era: 'legacy' as const, result })),
    ]);
  } catch (both) {
    // Neither was answered validly: the legacy failure says more (the probe only ever reports that it was not modern).
    const errors = both instanceof AggregateError ? both.errors : [both];
    return settleOrClose(session, () => Promise.reject(errors[1] ?? errors[0]));
  }
  if (winner.era === 'modern') return settleOrClose(session, () => completeModern(session, config, Promise.resolve(winner.result)));
  await settleOrClose(session, () => completeLegacy(session, config, Promise.resolve(winner.result)));
  probe.abort(new LocalError('RequestAborted', 'The server answered initialize: it speaks a legacy revision'));
}

/** The modern envelope this client puts on every request. */
function envelopeOf(config: ClientConfig): JsonObject {
  // Made with its JSON text: the JSON codec writes that on every request instead of encoding the envelope again.
  return withJsonText({
    [MetaKey.protocolVersion]: MODERN_REVISION,
    [MetaKey.clientCapabilities]: (config.modernCapabilities ?? config.capabilities) as JsonObject,
    [MetaKey.clientInfo]: config.clientInfo as unknown as JsonObject,
  });
}

/**
 * `server/discover`, resolving only with a modern answer: one that lists 2026-07-28. A -32022 naming a version this
 * client speaks is asked again once. Anything else rejects (the server does not speak the modern era).
 */
async function discover(session: SessionCore, config: ClientConfig, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<JsonObject> {
  const ask = (): Promise<JsonObject> =>
    outgoingRequest(session, {
      method: 'server/discover',
      params: {},
      options: { meta: envelopeOf(config), ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(signal === undefined ? {} : { signal }) },
    });
  let result: JsonObject;
  try {
    result = await ask();
  } catch (error) {
    // -32022 naming a version this client speaks: the server wants it said again with that version.
    if (!(error instanceof WireError && error.code === ErrorCode.UnsupportedProtocolVersion && supportsOurs(error.data))) throw notModern(error);
    try {
      result = await ask();
    } catch (again) {
      throw notModern(again);
    }
  }
  const versions = result['supportedVersions'];
  if (!Array.isArray(versions) || !versions.includes(MODERN_REVISION)) {
    throw new LocalError('UnsupportedVersion', `The server does not list ${MODERN_REVISION} among its versions`);
  }
  return result;
}

function notModern(error: unknown): LocalError {
  return error instanceof LocalError ? error : new LocalError('UnsupportedVersion', `The server does not speak ${MODERN_REVISION}`, { cause: error });
}

/** The modern era's start: every request will carry the envelope; `server/discover` told what the server offers. */
async function completeModern(session: SessionCore, config: ClientConfig, discovered: Promise<JsonObject>): Promise<void> {
  const result = await discovered;
  session.envelope = envelopeOf(config);
  const capabilities = result['capabilities'];
  session.peerCapabilities = (typeof capabilities === 'object' && capabilities !== null ? capabilities : {}) as ServerCapabilities;
  const info = (result['_meta'] as JsonObject | undefined)?.[MetaKey.serverInfo];
  session.peerInfo = isImplementation(info) ? info : undefined;
  session.instructions = typeof result['instructions'] === 'string' ? result['instructions'] : undefined;
  session.step({ type: 'INITIALIZED' });
}

function supportsOurs(data: unknown): boolean {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) && supported.includes(MODERN_REVISION);
}

/** `initialize`: resolves with its result, whatever it holds (checked by {@link completeLegacy}). */
function sendInitialize(session: SessionCore, config: ClientConfig): Promise<JsonObject> {
  const requested = config.protocolVersion ?? LATEST_LEGACY_REVISION;
  return outgoingRequest(session, {
    method: 'initialize',
    params: { protocolVersion: requested, capabilities: config.capabilities as JsonObject, clientInfo: config.clientInfo as unknown as JsonObject },
    options: {
      ...(config.initializeTimeoutMs === undefined ? {} : { timeoutMs: config.initializeTimeoutMs }),
      ...(config.signal === undefined ? {} : { signal: config.signal }),
    },
    cancellable: false,
  });
}

/** The rest of the legacy handshake: check the answer, adopt what it says, send `initialized`. */
async function completeLegacy(session: SessionCore, config: ClientConfig, initialized: Promise<JsonObject>): Promise<void> {
  const result = await initialized;
  const problem = invalidInitializeResult(result);
  if (problem !== undefined) throw new LocalError('ProtocolViolation', `The server's initialize result is invalid: ${problem}`);
  const revision = acceptServerVersion(result['protocolVersion'], config.supportedVersions ?? LEGACY_REVISIONS);
  if (revision === undefined) {
    throw new LocalError('UnsupportedVersion', `The server answered protocol version ${JSON.stringify(result['protocolVersion'])}, which this client does not support`);
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
