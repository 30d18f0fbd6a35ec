/**
 * Rate-limit buckets shared across processes through NATS JetStream KV (needs the nats package). See
 * docs/limits.md.
 *
 * @module rxmcp/limits/nats
 */
export * from '../../limits/nats/index.ts';
