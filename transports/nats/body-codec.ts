/**
 * Which codec encodes a NATS message body. JSON unless both sides said they read msgpack: the client announces
 * it with `Mcp-Accept: msgpack` and the server answers in msgpack; from then on the client sends msgpack too.
 * Every body says what it is in `Content-Type`, so a receiver never guesses.
 */
import type { Codec } from '../../core/codecs/codec.ts';
import { jsonCodec } from '../../core/codecs/json.ts';
import { msgpackCodec } from '../../core/codecs/msgpack.ts';
import { type HeaderReader, MSGPACK_CONTENT_TYPE, NatsHeader } from './headers.ts';

export type BodyEncoding = 'json' | 'msgpack';

export function codecOf(encoding: BodyEncoding): Codec {
  return encoding === 'msgpack' ? msgpackCodec : jsonCodec;
}

/** The codec a received body was written with. */
export function codecOfMessage(headers: HeaderReader | undefined): Codec {
  return headers?.get(NatsHeader.contentType) === MSGPACK_CONTENT_TYPE ? msgpackCodec : jsonCodec;
}

/** Whether a request's sender reads msgpack answers. */
export function readsMsgpack(headers: HeaderReader | undefined): boolean {
  return headers?.get(NatsHeader.accept)?.includes('msgpack') === true;
}

/** The codec of the answers to a request: msgpack when the sender reads it and this side allows it. */
export function answerCodec(headers: HeaderReader | undefined, received: Codec, msgpackAllowed: boolean): Codec {
  return msgpackAllowed && readsMsgpack(headers) ? msgpackCodec : received;
}
