/**
 * A stdio MCP server program for the graceful-shutdown specs: `serveStdio` with its signal handling on and
 * a `slow` tool that sleeps `ms` milliseconds (and stops sleeping when aborted). Run as
 * `node --import tsx graceful-server.ts <drainMs>`; it reports on stderr when `serveStdio` resolved and
 * then ends on its own, with exit code 0.
 */
import { createServer } from '../../../server/create-server.ts';
import { serveStdio } from '../../../transports/stdio/index.ts';

const drainMs = Number(process.argv[2] ?? 10_000);
const server = createServer({ name: 'graceful-fixture', version: '1.0.0' });

server.tool(
  { name: 'slow', inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] } },
  ({ ms }, context) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve(`slept ${String(ms)} ms`), Number(ms));
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(context.signal.reason);
      });
    }),
);

const reason = await serveStdio(server, { drainMs, handleSignals: true });
console.error(`graceful: served (${reason?.message ?? 'orderly'})`);
