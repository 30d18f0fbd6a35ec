/**
 * stdio: serve one client on stdin/stdout, or spawn a server program and connect to it. See transports/stdio/README.md.
 *
 * @module rxmcp/stdio
 */
export * from '../../transports/stdio/index.ts';
