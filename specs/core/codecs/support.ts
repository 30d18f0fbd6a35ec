/**
 * Shared arbitraries and helpers for the codec specs.
 */
import fc from 'fast-check';
import type { Codec, DecodedItem, StreamDecoder } from '../../../core/codecs/codec.ts';
import { encodeFrame } from '../../../core/codecs/framing.ts';
import type { JsonObject, JsonRpcMessage, RequestId, WirePayload } from '../../../core/jsonrpc.ts';
import { errorResponse, notification, request, resultResponse } from '../../../core/jsonrpc.ts';

/** Any code point (astral ones included, lone surrogates excluded), or whole grapheme clusters. */
export const unicodeText = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));

const requestId: fc.Arbitrary<RequestId> = fc.oneof(unicodeText, fc.maxSafeInteger());
const method = unicodeText.filter((name) => name.length > 0);
const jsonData = fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 });
const jsonObject: fc.Arbitrary<JsonObject> = fc.dictionary(unicodeText, jsonData, { maxKeys: 6 });
const optionalObject = fc.option(jsonObject, { nil: undefined });

export const jsonRpcMessage: fc.Arbitrary<JsonRpcMessage> = fc.oneof(
  fc.tuple(requestId, method, optionalObject).map(([id, name, params]) => request(id, name, params)),
  fc.tuple(method, optionalObject).map(([name, params]) => notification(name, params)),
  fc.tuple(requestId, jsonObject).map(([id, result]) => resultResponse(id, result)),
  fc
    .tuple(fc.option(requestId, { nil: undefined }), fc.integer(), unicodeText, fc.option(jsonData, { nil: undefined }))
    .map(([id, code, message, data]) => errorResponse(id, data === undefined ? { code, message } : { code, message, data })),
);

/** A single message or (2025-03-26) a batch of them. */
export const wirePayload: fc.Arbitrary<WirePayload> = fc.oneof(
  { weight: 4, arbitrary: jsonRpcMessage },
  { weight: 1, arbitrary: fc.array(jsonRpcMessage, { minLength: 1, maxLength: 4 }) },
);

/** What a JSON round trip makes of a value: the reference every codec is held to. */
export function viaJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** How a byte stream is cut into chunks: one byte at a time, or at arbitrary offsets. */
export type ChunkPlan = 'single-bytes' | readonly number[];

export const chunkPlan: fc.Arbitrary<ChunkPlan> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('single-bytes' as const) },
  { weight: 4, arbitrary: fc.array(fc.nat(), { maxLength: 40 }) },
);

/** Cuts `bytes` per `plan`; raw offsets are folded into range, so any list of naturals is a valid plan. */
export function split(bytes: Buffer, plan: ChunkPlan): Buffer[] {
  if (plan === 'single-bytes') return Array.from({ length: bytes.length }, (_, index) => bytes.subarray(index, index + 1));
  const cuts = [...new Set(plan.map((offset) => offset % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(start, cut));
    start = cut;
  }
  return chunks;
}

export interface Collected {
  readonly items: DecodedItem[];
  /** The largest `buffered` seen after any push, and the size of the largest chunk pushed. */
  readonly maxBuffered: number;
  readonly maxChunk: number;
}

/** Pushes every chunk through `decoder`, then ends it, recording items and the buffering high-water mark. */
export function feed(decoder: StreamDecoder, chunks: Iterable<Uint8Array>, end = true): Collected {
  const items: DecodedItem[] = [];
  const sink = (item: DecodedItem): void => {
    items.push(item);
  };
  let maxBuffered = 0;
  let maxChunk = 0;
  for (const chunk of chunks) {
    decoder.push(chunk, sink);
    maxBuffered = Math.max(maxBuffered, decoder.buffered);
    maxChunk = Math.max(maxChunk, chunk.byteLength);
  }
  if (end) decoder.end(sink);
  return { items, maxBuffered, maxChunk };
}

/** Items in a comparable shape: values as they are, errors reduced to their code. */
export function summarize(items: readonly DecodedItem[]): unknown[] {
  return items.map((item) => (item.ok ? { value: item.value } : { error: item.error.code }));
}

/** The byte stream carrying `payloads` in order, framed for `codec`. */
export function encodeStream(codec: Codec, payloads: readonly WirePayload[]): Buffer {
  return Buffer.concat(payloads.map((payload) => encodeFrame(codec, payload)));
}
