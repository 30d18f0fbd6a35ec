/**
 * NATS message headers of the binding. The standard MCP mirrors (`Mcp-Method`, `Mcp-Name`,
 * `MCP-Protocol-Version`, `Mcp-Param-*`) keep their HTTP spelling; the rest are this binding's own. The JSON-RPC
 * body stays authoritative: headers are mirrors and routing hints, checked against the body.
 */
import { type Msg, type MsgHdrs, headers as natsHeaders } from 'nats';
import type { HeaderLookup } from '../../core/protocol/header-mirror.ts';

export const NatsHeader = {
  /** `application/msgpack` when the body is msgpack; absent means JSON. */
  contentType: 'Content-Type',
  /** Client to server: the body encodings the client also reads (`msgpack`). */
  accept: 'Mcp-Accept',
  /** Client to server: this client can fetch an oversized answer from the object store. */
  acceptClaim: 'Mcp-Accept-Claim',
  /** Server to client: the answer is in the object store under this name (body empty). */
  claim: 'Mcp-Claim',
  /** The object store bucket of a claim. */
  claimBucket: 'Mcp-Claim-Bucket',
  /** SHA-256 of the claimed body, base64. */
  claimDigest: 'Mcp-Claim-Digest',
  /** Client to server (modern era): the client connection's lane, which keeps its request ids apart from others'. */
  lane: 'Mcp-Lane',
  /** A legacy session: set by the server on the `initialize` answer, sent back by the client on session messages. */
  sessionId: 'Mcp-Session-Id',
  /** Client to server with `initialize`: the subject where the session's server requests and notifications go. */
  clientInbox: 'Mcp-Client-Inbox',
  /** `keepalive` (server to client, answered by the client) or `close` (client ends its legacy session). */
  frame: 'Mcp-Frame',
  /**
   * Gateway to server: who the gateway authenticated the caller as, a short-lived JWS signed by the gateway's key
   * (docs/nats-binding.md, "Identity across NATS"). Never the caller's token.
   */
  identity: 'Mcp-Identity',
  /** Server to client on errors the binding itself raised before any session saw the message. */
  process: 'Mcp-Process',
  /**
   * Client to server: the W3C trace context of a request, mirrored from its `params._meta` (where tracing puts
   * it, and which stays authoritative) so NATS-level tools (nats-server message tracing, bus taps) see it too.
   */
  traceparent: 'traceparent',
  tracestate: 'tracestate',
} as const;

/** Sets the trace-context mirrors of a request's `params._meta`, if it carries any. */
export function mirrorTraceContext(headers: MsgHdrs, params: { readonly [key: string]: unknown } | undefined): void {
  const meta = params?.['_meta'];
  if (typeof meta !== 'object' || meta === null) return;
  const { traceparent, tracestate } = meta as { readonly traceparent?: unknown; readonly tracestate?: unknown };
  if (typeof traceparent !== 'string' || traceparent === '') return;
  headers.set(NatsHeader.traceparent, traceparent);
  if (typeof tracestate === 'string' && tracestate !== '') headers.set(NatsHeader.tracestate, tracestate);
}

export const MSGPACK_CONTENT_TYPE = 'application/msgpack';

/** A lookup of NATS headers by lower-case name, as the mirror checks ask for them. */
export function natsHeaderLookup(headers: MsgHdrs | undefined): HeaderLookup {
  if (headers === undefined) return () => undefined;
  let lowered: Map<string, string> | undefined;
  return (name) => {
    if (lowered === undefined) {
      lowered = new Map();
      for (const [key, values] of headers) if (values[0] !== undefined) lowered.set(key.toLowerCase(), values[0]);
    }
    return lowered.get(name);
  };
}

export function newHeaders(entries: Readonly<Record<string, string>>): MsgHdrs {
  const made = natsHeaders();
  for (const key in entries) made.set(key, entries[key] as string);
  return made;
}

/** Whether a message is the NATS server's "no responders" status (nobody subscribes to the subject). */
export function isNoResponders(headers: MsgHdrs | undefined): boolean {
  return headers !== undefined && headers.hasError && headers.code === 503;
}

/** Whether a failed `request` failed because nobody subscribes to the subject. */
export function isNoRespondersError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { readonly code?: unknown }).code === '503';
}

/** A header's value; undefined when absent or empty (nats.js answers "" for a missing header). */
export function headerOf(headers: MsgHdrs | undefined, name: string): string | undefined {
  const value = headers?.get(name);
  return value === undefined || value === '' ? undefined : value;
}

/** A message's reply subject; undefined when it has none (nats.js answers ""). */
export function replyOf(msg: Msg): string | undefined {
  return msg.reply === undefined || msg.reply === '' ? undefined : msg.reply;
}
