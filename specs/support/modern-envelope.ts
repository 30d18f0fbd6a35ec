/**
 * The modern era's (2026-07-28) per-request envelope as the specs' hand-written clients write it, in one place
 * for the peers over the spec medium (specs/features/modern/modern-peer.ts) and over HTTP
 * (specs/transports/http-server/modern/modern-http.ts). The `_meta` names are written out here rather than
 * taken from core/protocol/modern.ts on purpose: the specs state the wire themselves, so a wrong name in the
 * source fails them.
 */
import type { JsonObject } from '../../core/jsonrpc.ts';

export const MODERN = '2026-07-28';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export const CLIENT_INFO = Object.freeze({ name: 'modern-spec-client', version: '0.0.0' });

export interface EnvelopeOptions {
  readonly version?: string;
  readonly capabilities?: JsonObject;
  /** `null` leaves clientInfo out. */
  readonly clientInfo?: JsonObject | null;
  readonly logLevel?: string;
  /** Extra `_meta` entries (progress token...). */
  readonly extra?: JsonObject;
}

/** The `_meta` of a modern request. */
export function envelope(options: EnvelopeOptions = {}): JsonObject {
  return {
    [META.protocolVersion]: options.version ?? MODERN,
    [META.clientCapabilities]: options.capabilities ?? {},
    ...(options.clientInfo === null ? {} : { [META.clientInfo]: options.clientInfo ?? CLIENT_INFO }),
    ...(options.logLevel === undefined ? {} : { [META.logLevel]: options.logLevel }),
    ...options.extra,
  };
}

/** `params` with a modern envelope merged into its `_meta` (the params' own `_meta` entries win). */
export function withEnvelope(params: JsonObject = {}, options: EnvelopeOptions = {}): JsonObject {
  const own = params['_meta'];
  return { ...params, _meta: { ...envelope(options), ...(typeof own === 'object' && own !== null && !Array.isArray(own) ? (own as JsonObject) : {}) } };
}
