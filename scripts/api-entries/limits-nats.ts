/**
 * Rate-limit buckets shared across processes through NATS JetStream KV, on a connection made with the nats
 * package. See docs/limits.md.
 *
 * @module rxmcp/limits/nats
 */
export * from '../../limits/nats/index.ts';
