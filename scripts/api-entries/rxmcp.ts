/**
 * The core: createServer and createClient, sessions, the session host, errors, limits, the protocol types. Transports live behind their own entry points.
 *
 * @module rxmcp
 */
export * from '../../index.ts';
