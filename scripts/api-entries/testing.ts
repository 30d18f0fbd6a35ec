/**
 * Test helpers: the in-memory transport pair, a simulated clock, an authorization step with no user. See docs/design.md, "Testing".
 *
 * @module rxmcp/testing
 */
export * from '../../testing.ts';
