/**
 * `rxmcp/limits/nats`: rate-limit buckets shared across processes through NATS JetStream KV, on a connection
 * made with nats.js v3 (@nats-io/transport-node; @nats-io/jetstream and @nats-io/kv are loaded when a store opens, so this
 * entry itself loads without them). Pass the store to `rateLimit({ store })` from
 * `rxmcp/limits`. See docs/limits.md.
 */
export { KvBucketStore, type KvBucketStoreOptions, type KvBucketStoreStats, type UnreachablePolicy } from './kv-bucket-store.ts';
