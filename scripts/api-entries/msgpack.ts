/**
 * The msgpack codec (needs the msgpackr package).
 *
 * @module rxmcp/msgpack
 */
export * from '../../core/codecs/msgpack.ts';
