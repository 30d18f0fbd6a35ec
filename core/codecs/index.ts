/**
 * The codecs entry point: the contract, stream framing, and the JSON codec. The msgpack codec is imported
 * from its own path (`rxmcp/msgpack`) so that applications that do not use it never load msgpackr.
 */
export type { Codec, DecodedItem, StreamDecoder } from './codec.ts';
export { createStreamDecoder, encodeFrame } from './framing.ts';
export { jsonCodec } from './json.ts';
