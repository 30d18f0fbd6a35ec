/**
 * The in-memory transport: a linked pair of transports in one process (tests, embedding).
 *
 * @module rxmcp/memory
 */
export * from '../../transports/memory/index.ts';
