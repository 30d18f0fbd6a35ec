/**
 * `rxmcp/limits/nats`: rate-limit buckets shared across processes through NATS JetStream KV, on a connection
 * made with the nats package (only its types are imported here). Pass the store to `rateLimit({ store })` from
 * `rxmcp/limits`. See docs/limits.md.
 */
export { KvBucketStore, type KvBucketStoreOptions, type KvBucketStoreStats, type UnreachablePolicy } from './kv-bucket-store.ts';
