/**
 * A stdio MCP server program that is slow to start: it waits `argv[2]` ms (default 1500) before it reads stdin,
 * as a program still loading would, then serves the eras named by `argv[3]` (`both` by default).
 */
import { createServer } from '../../../server/create-server.ts';
import { serveStdio } from '../../../transports/stdio/index.ts';

const startMs = Number(process.argv[2] ?? 1500);
const eras = (process.argv[3] ?? 'both') as 'both' | 'legacy' | 'modern';
await new Promise((resolve) => setTimeout(resolve, startMs));
const server = createServer({ name: 'slow-start', version: '1.0.0', eras });
server.tool({ name: 'echo' }, () => 'echoed');
await serveStdio(server);
