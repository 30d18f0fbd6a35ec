/**
 * The SDK 2.x interop server (specs/support/interop-sdk-servers.ts, 2025-era revisions only) on the SDK's
 * StdioServerTransport: `node --import tsx sdk2-stdio-server.ts`. The transport closes itself at stdin EOF.
 */
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { buildSdk2Server } from '../interop-sdk-servers.ts';

const server = buildSdk2Server();
await server.connect(new StdioServerTransport());
