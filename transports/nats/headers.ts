/**
 * NATS message headers of the binding. The standard MCP mirrors (`Mcp-Method`, `Mcp-Name`,
 * `MCP-Protocol-Version`, `Mcp-Param-*`) keep their HTTP spelling; the rest are this binding's own. The JSON-RPC
 * body stays authoritative: headers are mirrors and routing hints, checked against the body.
 */
import { type Msg, type MsgHdrs, MsgHdrsImpl, headers as natsHeaders } from '@nats-io/nats-core';
import { isNoResponders } from './nats-errors.ts';
import { checkStandardHeaders, type HeaderLookup, type HeaderProblem, type MirroredMessage, nameOf, protocolVersionOf } from '../../core/protocol/header-mirror.ts';

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

/** The trace-context mirrors of a request's `params._meta`, if it carries any. */
export function traceContextOf(params: { readonly [key: string]: unknown } | undefined): Record<string, string> | undefined {
  const meta = params?.['_meta'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const { traceparent, tracestate } = meta as { readonly traceparent?: unknown; readonly tracestate?: unknown };
  if (typeof traceparent !== 'string' || traceparent === '') return undefined;
  return typeof tracestate === 'string' && tracestate !== '' ? { [NatsHeader.traceparent]: traceparent, [NatsHeader.tracestate]: tracestate } : { [NatsHeader.traceparent]: traceparent };
}

export const MSGPACK_CONTENT_TYPE = 'application/msgpack';

export function newHeaders(entries: Readonly<Record<string, string>>): MsgHdrs {
  const made = natsHeaders();
  for (const key in entries) made.set(key, entries[key] as string);
  return made;
}

/** What the binding asks of a message's headers: a value by exact name (nats.js `MsgHdrs` qualifies). */
export interface HeaderReader {
  get(name: string): string | undefined;
}

/**
 * The headers of one received message, read in one pass. nats.js answers every `MsgHdrs.get` by listing and
 * filtering all header names (two arrays per question), and a served message is asked up to six questions
 * (identity, lane, encoding, accepted encodings, claim-check, the mirror checks): this asks none of them twice.
 */
export class ReceivedHeaders implements HeaderReader {
  /** Names and first values, in arrival order (a message carries a handful: a scan beats a Map). */
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private lowered: string[] | undefined;
  private lookupFn: HeaderLookup | undefined;
  private checked: { readonly method: string; readonly name: string | undefined; readonly version: string | undefined; readonly problem: HeaderProblem | undefined } | undefined;
  /** The status code of a status message (503: no responders), 0 for any other message. */
  readonly code: number;

  constructor(headers: MsgHdrs | undefined) {
    this.code = headers?.code ?? 0;
    if (headers === undefined) return;
    for (const [name, values] of headers) {
      const value = values[0];
      if (value === undefined) continue;
      this.names.push(name);
      this.values.push(value);
    }
  }

  /**
   * The headers of a received message, read straight from its header block when nats.js exposes it: its own
   * `msg.headers` builds a `MsgHdrs` by splitting the block into arrays and scanning every name already seen for
   * each line, which costs more than everything else the binding does with the headers. The block is read
   * exactly as nats.js reads it (first `:` splits name from value, the value trimmed, the first value of a name
   * kept); a block this reader would judge differently (a status line, a name nats.js refuses) and a message
   * without the block (another nats.js, a message made by hand) go through `msg.headers` as before.
   */
  static of(msg: Msg): ReceivedHeaders {
    const raw = msg as unknown as RawMsg;
    const length = raw._msg?.hdr;
    const data = raw._rdata;
    if (typeof length === 'number' && data instanceof Uint8Array && length <= data.byteLength) {
      // Most answers carry no headers at all: one shared empty reader, nothing made per message.
      if (length < 0) return NO_HEADERS;
      const read = ReceivedHeaders.ofBlock(data.subarray(0, length));
      if (read !== undefined) return read;
    }
    return new ReceivedHeaders(msg.headers);
  }

  /** The reader of a header block as nats.js received it; undefined when the block should go through nats.js. */
  static ofBlock(block: Uint8Array): ReceivedHeaders | undefined {
    const read = new ReceivedHeaders(undefined);
    return read.parse(block) ? read : undefined;
  }

  /** Reads a header block (`NATS/1.0` then `Name: value` lines); false when it should go through nats.js. */
  private parse(block: Uint8Array): boolean {
    const text = blockDecoder.decode(block);
    let line = text.indexOf('\r\n');
    if (line < 0 || text.slice(0, line) !== HEADER_LINE) return false;
    for (let start = line + 2; start < text.length; start = line + 2) {
      line = text.indexOf('\r\n', start);
      if (line < 0) line = text.length;
      if (line === start) continue;
      const colon = text.indexOf(':', start);
      if (colon < 0 || colon > line) continue;
      const name = text.slice(start, colon);
      for (let i = 0; i < name.length; i++) {
        const c = name.charCodeAt(i);
        if (c < 33 || c > 126) return false;
      }
      if (this.names.includes(name)) continue;
      this.names.push(name);
      this.values.push(text.slice(colon + 1, line).trim());
    }
    return true;
  }

  /** A header's value by exact name; undefined when absent or empty (as {@link headerOf}). */
  get(name: string): string | undefined {
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === name) {
        const value = this.values[i] as string;
        return value === '' ? undefined : value;
      }
    }
    return undefined;
  }

  /**
   * The case-insensitive lookup the mirror checks use, by lower-case name (an empty value counts: it is not the
   * body's); of names differing only in case, the last wins.
   */
  get lookup(): HeaderLookup {
    return (this.lookupFn ??= (name) => {
      const lowered = (this.lowered ??= this.names.map((key) => key.toLowerCase()));
      let found: string | undefined;
      for (let i = 0; i < lowered.length; i++) if (lowered[i] === name) found = this.values[i];
      return found;
    });
  }

  /**
   * `checkStandardHeaders` of these headers against `message`, remembered for the last method, mirrored name and
   * protocol version asked (the only parts of the message it reads): a reader shared by every message with the
   * same header block (see header-blocks.ts) answers the next request of the same shape without checking again.
   */
  checkStandard(message: MirroredMessage): HeaderProblem | undefined {
    const nameKey = nameOf(message);
    const versionKey = protocolVersionOf(message);
    const last = this.checked;
    if (last !== undefined && last.method === message.method && last.name === nameKey && last.version === versionKey) return last.problem;
    const problem = checkStandardHeaders(this.lookup, message);
    this.checked = { method: message.method, name: nameKey, version: versionKey, problem };
    return problem;
  }
}

/** The headers of a message that has none. */
const NO_HEADERS = new ReceivedHeaders(undefined);

/** A received message of nats.js, as far as its header block goes (not in its public types). */
interface RawMsg {
  readonly _msg?: { readonly hdr?: unknown };
  readonly _rdata?: unknown;
}

const HEADER_LINE = 'NATS/1.0';
const blockDecoder = new TextDecoder();

/**
 * Headers that never change once made (the binding's constant header sets), encoded once: nats.js encodes a
 * message's headers on every publish, and this set's bytes are the same each time. Changing it throws.
 */
export class SealedHeaders extends MsgHdrsImpl {
  private encoded: Uint8Array | undefined;
  private sealed = false;

  constructor(entries: Readonly<Record<string, string>>) {
    super();
    for (const key in entries) super.set(key, entries[key] as string);
    this.sealed = true;
  }

  override encode(): Uint8Array {
    return (this.encoded ??= super.encode());
  }

  override set(...args: Parameters<MsgHdrsImpl['set']>): void {
    this.unsealed();
    super.set(...args);
  }

  override append(...args: Parameters<MsgHdrsImpl['append']>): void {
    this.unsealed();
    super.append(...args);
  }

  override delete(...args: Parameters<MsgHdrsImpl['delete']>): void {
    this.unsealed();
    super.delete(...args);
  }

  private unsealed(): void {
    if (this.sealed) throw new TypeError('these NATS headers are shared and cannot change');
  }
}

/** Whether a failed `request` failed because nobody subscribes to the subject. */
export function isNoRespondersError(error: unknown): boolean {
  return isNoResponders(error);
}

/** A header's value; undefined when absent or empty (nats.js answers "" for a missing header). */
export function headerOf(headers: HeaderReader | undefined, name: string): string | undefined {
  const value = headers?.get(name);
  return value === undefined || value === '' ? undefined : value;
}

/** A message's reply subject; undefined when it has none (nats.js answers ""). */
export function replyOf(msg: Msg): string | undefined {
  return msg.reply === undefined || msg.reply === '' ? undefined : msg.reply;
}
