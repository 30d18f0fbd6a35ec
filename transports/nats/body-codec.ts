/**
 * Which codec encodes a NATS message body. JSON unless both sides said they read msgpack: the client announces
 * it with `Mcp-Accept: msgpack` and the server answers in msgpack; from then on the client sends msgpack too.
 * Every body says what it is in `Content-Type`, so a receiver never guesses.
 */
import type { Codec } from '../../core/codecs/codec.ts';
import { jsonCodec } from '../../core/codecs/json.ts';
import { msgpackCodecIfLoaded, msgpackOrUnavailable } from './msgpack-codec.ts';
import { type HeaderReader, MSGPACK_CONTENT_TYPE, NatsHeader } from './headers.ts';

export type BodyEncoding = 'json' | 'msgpack';

/** The codec of `encoding` (msgpack's stand-in, which fails with the reason, where msgpackr is missing). */
export function codecOf(encoding: BodyEncoding): Codec {
  return encoding === 'msgpack' ? msgpackOrUnavailable() : jsonCodec;
}

/** The codec a received body was written with. */
export function codecOfMessage(headers: HeaderReader | undefined): Codec {
  return headers?.get(NatsHeader.contentType) === MSGPACK_CONTENT_TYPE ? msgpackOrUnavailable() : jsonCodec;
}

/** Whether a request's sender reads msgpack answers. */
export function readsMsgpack(headers: HeaderReader | undefined): boolean {
  return headers?.get(NatsHeader.accept)?.includes('msgpack') === true;
}

/**
 * The codec of the answers to a request: msgpack when the sender reads it, this side allows it and has it
 * loaded; otherwise as the request came (JSON when this side cannot write msgpack).
 */
export function answerCodec(headers: HeaderReader | undefined, received: Codec, msgpackAllowed: boolean): Codec {
  const msgpack = msgpackCodecIfLoaded();
  if (msgpack === undefined) return jsonCodec;
  return msgpackAllowed && readsMsgpack(headers) ? msgpack : received;
}
