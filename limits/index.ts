/**
 * `rxmcp/limits`: rate limits and quotas as an interceptor. Token buckets per principal, per session, per tool
 * (or per any key), kept in this process or shared by many through NATS JetStream KV (`rxmcp/limits/nats`).
 * Runs wherever rxmcp runs (no Node built-in). See docs/limits.md.
 */
export { MemoryBucketStore, type BucketStore, type MemoryBucketStoreOptions, type MemoryBucketStoreStats } from './bucket-store.ts';
export type { InterceptedRequest, Interceptor } from './interceptor-contract.ts';
export {
  rateLimit,
  rateLimitExceeded,
  retryAfterMsOf,
  type RateLimitCost,
  type RateLimitErrorData,
  type RateLimitKeyPart,
  type RateLimitOptions,
  type RateLimitRefusal,
  type RateLimitRule,
} from './rate-limit.ts';
export { TOKEN_UNITS, TokenBucket, type BucketState, type TakeDecision, type TokenBucketRate } from './token-bucket.ts';
