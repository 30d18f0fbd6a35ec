/**
 * Rate limits and quotas as an interceptor: token buckets per principal, per session, per tool, in process.
 * See docs/limits.md.
 *
 * @module rxmcp/limits
 */
export * from '../../limits/index.ts';
