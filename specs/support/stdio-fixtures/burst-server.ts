/**
 * A stdio MCP server program for the burst and era specs: `createServer` (both eras) + `serveStdio`, with a
 * `slow` tool that answers after `ms` milliseconds (default 1000). Run as `node --import tsx burst-server.ts`.
 * It reports how its session ended on stderr, so a spec can tell an orderly end from a dropped session.
 */
import { createServer } from '../../../server/create-server.ts';
import { serveStdio } from '../../../transports/stdio/index.ts';

const server = createServer({ name: 'stdio-burst', version: '1.0.0' });
server.tool(
  { name: 'slow', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
  ({ ms }) => new Promise<string>((resolve) => setTimeout(() => resolve('done'), typeof ms === 'number' ? ms : 1000)),
);

const reason = await serveStdio(server);
console.error(`burst-server: session ended${reason === undefined ? '' : `: ${reason.message}`}`);
