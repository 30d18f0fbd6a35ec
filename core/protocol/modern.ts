/**
 * The modern era (2026-07-28): no handshake, so every request says who it is for in its own `_meta`, and
 * every result says what kind of result it is. This module reads and checks that per-request envelope and
 * names the wire shapes the era adds (discovery, multi round-trip results, listen streams, caching hints).
 * Pure functions and types only.
 */
import { ErrorCode } from '../error-codes.ts';
import type { JsonObject } from '../jsonrpc.ts';
import { type ClientCapabilities, type Implementation, type ServerCapabilities, isImplementation } from './capabilities.ts';
import type { InputNeeds } from './declarations/declaration.ts';
import { cacheableMethods, inputCapableMethods, inputKeyPrefixes, inputRequestNeeds, modernClientRequests, modernServerCapabilities, untimedMethods } from './declarations/index.ts';
import { isJsonObject } from './guards.ts';
import { type LoggingLevel, isLoggingLevel } from './logging.ts';
import type { InputMethod, SubscriptionFilter } from './modern-shapes.ts';
import { MODERN_REVISIONS, type ModernRevision } from './versions.ts';

// The era's wire shapes, where their users have always found them.
export type { CacheHints, DiscoverResult, InputMethod, InputRequest, SubscriptionFilter } from './modern-shapes.ts';

export const MetaKey = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** What one modern request declares about its sender. */
export interface RequestEnvelope {
  readonly revision: ModernRevision;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** Absent: the client wants no log messages for this request. */
  readonly logLevel: LoggingLevel | undefined;
}

export interface EnvelopeError {
  readonly code: number;
  readonly message: string;
  readonly data?: JsonObject;
}

export type EnvelopeOutcome = { readonly ok: true; readonly envelope: RequestEnvelope } | { readonly ok: false; readonly error: EnvelopeError };

/** The revision a message claims in its `_meta`, without checking anything else (era detection). */
export function claimedRevision(params: unknown): unknown {
  if (!isJsonObject(params)) return undefined;
  const meta = params['_meta'];
  return isJsonObject(meta) ? meta[MetaKey.protocolVersion] : undefined;
}

/**
 * Reads the envelope of one modern request. Missing or malformed fields are -32602; a version the server
 * does not speak is -32022 naming what it does speak, so the client can retry with one of them.
 */
export function readEnvelope(params: unknown, supported: readonly ModernRevision[] = MODERN_REVISIONS): EnvelopeOutcome {
  const read = envelopeOrError(params, supported);
  return isEnvelopeError(read) ? { ok: false, error: read } : { ok: true, envelope: read };
}

/** Tells {@link envelopeOrError}'s two outcomes apart (an envelope has no `code`). */
export function isEnvelopeError(read: RequestEnvelope | EnvelopeError): read is EnvelopeError {
  return (read as EnvelopeError).code !== undefined;
}

function invalidEnvelope(message: string): EnvelopeError {
  return { code: ErrorCode.InvalidParams, message: `Invalid params: ${message}` };
}

/**
 * {@link readEnvelope} without the outcome wrapper: the envelope, or the error to answer. The per-request path
 * of a modern server reads every envelope once, here, and allocates nothing else for a valid one.
 */
export function envelopeOrError(params: unknown, supported: readonly ModernRevision[] = MODERN_REVISIONS): RequestEnvelope | EnvelopeError {
  if (!isJsonObject(params)) return invalidEnvelope('a 2026-07-28 request needs params with _meta');
  const meta = params['_meta'];
  if (!isJsonObject(meta)) return invalidEnvelope('a 2026-07-28 request needs params._meta');
  const version = meta[MetaKey.protocolVersion];
  if (typeof version !== 'string') return invalidEnvelope(`_meta["${MetaKey.protocolVersion}"] must be a string`);
  const capabilities = meta[MetaKey.clientCapabilities];
  if (!isJsonObject(capabilities)) return invalidEnvelope(`_meta["${MetaKey.clientCapabilities}"] must be an object`);
  if (!(supported as readonly string[]).includes(version)) {
    return {
      code: ErrorCode.UnsupportedProtocolVersion,
      message: `Unsupported protocol version: ${version}`,
      data: { supported: [...supported], requested: version },
    };
  }
  const info = meta[MetaKey.clientInfo];
  if (info !== undefined && !isImplementation(info)) return invalidEnvelope(`_meta["${MetaKey.clientInfo}"] must have string name and version`);
  const level = meta[MetaKey.logLevel];
  if (level !== undefined && !isLoggingLevel(level)) return invalidEnvelope(`_meta["${MetaKey.logLevel}"] is not a logging level`);
  return {
    revision: version as ModernRevision,
    clientCapabilities: capabilities as ClientCapabilities,
    clientInfo: info as Implementation | undefined,
    logLevel: level as LoggingLevel | undefined,
  };
}

/** The -32021 error: the request needs client capabilities it did not declare. */
export function missingCapabilityError(required: ClientCapabilities, what: string): EnvelopeError {
  return {
    code: ErrorCode.MissingRequiredClientCapability,
    message: `Missing required client capability: ${what}`,
    data: { requiredCapabilities: required as JsonObject },
  };
}

/** Client requests a modern server answers (their capability rules are applied elsewhere). */
export const MODERN_CLIENT_REQUESTS: ReadonlySet<string> = modernClientRequests();

/** The server capability each modern method needs (a method whose capability is undeclared does not exist). */
export const MODERN_SERVER_CAPABILITIES: ReadonlyMap<string, keyof ServerCapabilities> = modernServerCapabilities();

/** Methods whose answer may be an `InputRequiredResult`. */
export const INPUT_CAPABLE_METHODS: ReadonlySet<string> = inputCapableMethods();

/** Methods whose complete results carry `ttlMs` and `cacheScope`. */
export const CACHEABLE_METHODS: ReadonlySet<string> = cacheableMethods();

/** Methods that run until one side ends them: no handler timeout applies. */
export const UNTIMED_METHODS: ReadonlySet<string> = untimedMethods();

/** The server-to-client requests that travel only inside an `InputRequiredResult` in this era, with their needs. */
const INPUT_REQUEST_NEEDS: ReadonlyMap<string, InputNeeds> = inputRequestNeeds();

export function isInputMethod(value: unknown): value is InputMethod {
  return typeof value === 'string' && INPUT_REQUEST_NEEDS.has(value);
}

/** What the input request `method` needs; every `InputMethod` is declared as one (a spec holds that). */
function inputNeeds(method: InputMethod): InputNeeds {
  const needs = INPUT_REQUEST_NEEDS.get(method);
  if (needs === undefined) throw new Error(`${method} is not declared as an input request`);
  return needs;
}

/** What the default keys of each input request start with, from its declaration. */
const INPUT_KEY_PREFIXES: ReadonlyMap<string, string> = inputKeyPrefixes();

/** The default key of the `count`-th request of `method` a handler makes in one round: `elicitation-1`, `roots-2`... */
export function defaultInputKey(method: InputMethod, count: number): string {
  return `${INPUT_KEY_PREFIXES.get(method) ?? method}-${count}`;
}

/** The capability an input request needs from the client, as a -32021 `requiredCapabilities` value. */
export function capabilityForInput(method: InputMethod, params: JsonObject | undefined): ClientCapabilities {
  return inputNeeds(method).required(params);
}

/** True when `declared` covers what an input request of `method` needs. */
export function declaresInput(declared: ClientCapabilities, method: InputMethod, params: JsonObject | undefined): boolean {
  return inputNeeds(method).declared(declared, params);
}

/** Reads a listen request's filter; undefined when malformed. */
export function readSubscriptionFilter(params: JsonObject | undefined): SubscriptionFilter | undefined {
  const filter = params?.['notifications'];
  if (!isJsonObject(filter)) return undefined;
  for (const flag of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (filter[flag] !== undefined && typeof filter[flag] !== 'boolean') return undefined;
  }
  const uris = filter['resourceSubscriptions'];
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((uri) => typeof uri === 'string'))) return undefined;
  const taskIds = filter['taskIds'];
  if (taskIds !== undefined && !(Array.isArray(taskIds) && taskIds.every((id) => typeof id === 'string'))) return undefined;
  return filter as SubscriptionFilter;
}
