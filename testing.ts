/**
 * rxmcp/testing: what a test of an MCP server or client needs and a program does not: a linked pair of transports
 * in one process, a clock that moves only when the test says, and an authorization step with no user in it.
 * See "Testing" in docs/design.md.
 */
export { createMemoryPair, type MemoryPairOptions, type MemoryTransport } from './transports/memory/index.ts';
export { TestClock } from './core/test-clock.ts';
export type { Clock, TimerHandle } from './core/clock.ts';
export { followAuthorizationRedirect, type AuthorizationUrlHandler } from './auth/client/follow-redirect.ts';
