/**
 * The SDK 1.x interop server (specs/support/interop-sdk-servers.ts) on the SDK's own StdioServerTransport:
 * `node --import tsx sdk1-stdio-server.ts`. Ends when its stdin closes.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildSdk1Server } from '../interop-sdk-servers.ts';

const server = buildSdk1Server();
await server.connect(new StdioServerTransport());
// The 1.x transport does not watch for the end of stdin: close on it, as a well-behaved stdio server does.
process.stdin.once('end', () => void server.close());
