/**
 * The headers of a client's requests. Most requests of one connection carry the same few: the standard mirrors
 * (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`), the encodings, the lane or the session, the identity. So a
 * set is made (and encoded) once per distinct combination and shared by every request that has it; only a request
 * with headers of its own (a gateway's `Mcp-Param-*` mirrors, a trace context, `initialize`'s client inbox) gets a
 * set of its own. Sets never change once made (`SealedHeaders`), so sharing them is safe.
 */
import type { MsgHdrs } from '@nats-io/nats-core';
import { type MirroredMessage, nameOf, protocolVersionOf, standardHeaders } from '../../../core/protocol/header-mirror.ts';
import { NatsHeader, SealedHeaders } from '../headers.ts';

/** What the request's headers depend on besides its standard mirrors. */
export interface RequestContext {
  readonly identity: string | undefined;
  readonly sessionId: string | undefined;
  readonly lane: string;
  /** The body's Content-Type, undefined for JSON. */
  readonly contentType: string | undefined;
  readonly acceptMsgpack: boolean;
  readonly acceptClaim: boolean;
}

/** Distinct header sets kept per context (methods times tool names, in practice); emptied when full. */
const MAX_SETS = 256;

/** Sets by method, then by the mirrored name field, then by the mirrored protocol version (either may be absent). */
type SetsByMethod = Map<string, Map<string | undefined, Map<string | undefined, MsgHdrs>>>;

export class RequestHeaders {
  private readonly sets: SetsByMethod = new Map();
  private size = 0;
  private identity: string | undefined;
  private sessionId: string | undefined;
  private contentType: string | undefined;

  /**
   * The headers of one request: `message` the request (its standard mirrors come from it), `extra` headers of its
   * own (mirrors a gateway passes on, a trace context, `initialize`'s client inbox) or undefined.
   */
  of(context: RequestContext, message: MirroredMessage, extra: Readonly<Record<string, string>> | undefined): MsgHdrs {
    if (extra !== undefined) return new SealedHeaders(entries(context, standardHeaders(message), extra));
    if (context.identity !== this.identity || context.sessionId !== this.sessionId || context.contentType !== this.contentType) {
      // The identity is renewed now and then, the session and the encoding change once: a new context.
      this.sets.clear();
      this.size = 0;
      this.identity = context.identity;
      this.sessionId = context.sessionId;
      this.contentType = context.contentType;
    }
    // The standard mirrors depend on exactly these three fields (see standardHeaders): they key the set.
    const nameKey = nameOf(message);
    const versionKey = protocolVersionOf(message);
    let byName = this.sets.get(message.method);
    let byVersion = byName?.get(nameKey);
    let set = byVersion?.get(versionKey);
    if (set === undefined) {
      if (this.size >= MAX_SETS) {
        this.sets.clear();
        this.size = 0;
        byName = undefined;
        byVersion = undefined;
      }
      set = new SealedHeaders(entries(context, standardHeaders(message), undefined));
      if (byName === undefined) this.sets.set(message.method, (byName = new Map()));
      if (byVersion === undefined) byName.set(nameKey, (byVersion = new Map()));
      byVersion.set(versionKey, set);
      this.size++;
    }
    return set;
  }
}

/** The header entries of a request, in the order the binding has always written them. */
function entries(context: RequestContext, standard: Readonly<Record<string, string>>, extra: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const all: Record<string, string> = {};
  if (context.identity !== undefined) all[NatsHeader.identity] = context.identity;
  for (const name in standard) all[name] = standard[name] as string;
  if (extra !== undefined) for (const name in extra) all[name] = extra[name] as string;
  if (context.acceptMsgpack) all[NatsHeader.accept] = 'msgpack';
  if (context.acceptClaim) all[NatsHeader.acceptClaim] = '1';
  if (context.sessionId !== undefined) all[NatsHeader.sessionId] = context.sessionId;
  else all[NatsHeader.lane] = context.lane;
  if (context.contentType !== undefined) all[NatsHeader.contentType] = context.contentType;
  return all;
}
