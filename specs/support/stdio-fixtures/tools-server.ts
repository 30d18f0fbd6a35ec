/**
 * A real stdio MCP server program for the stdio specs: `createServer` + `serveStdio`, with tools that
 * misbehave on purpose. Run as `node --import tsx tools-server.ts [mode]`:
 *   (no mode)  exits by itself once stdin closes
 *   linger     keeps running after stdin closes (a timer holds the process): needs SIGTERM
 *   stubborn   like linger, and ignores SIGTERM: needs SIGKILL
 */
import { interval, map, take } from 'rxjs';
import { createServer } from '../../../server/create-server.ts';
import { serveStdio } from '../../../transports/stdio/index.ts';

const mode = process.argv[2] ?? 'normal';
const server = createServer({ name: 'stdio-fixture', version: '1.0.0' });

server.tool(
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  ({ text }) => String(text),
);
// Values before the last are progress notifications.
server.tool({ name: 'count' }, () => interval(5).pipe(take(3), map((i) => (i < 2 ? i + 1 : 'counted'))));
server.tool({ name: 'chatty' }, () => {
  console.log('stray console.log from a tool');
  console.info({ stray: 'console.info' });
  return 'said something';
});
// Never answers; reports on stderr when cancellation reaches it.
server.tool({ name: 'hang' }, (_args, context) =>
  new Promise<string>((_resolve, reject) => {
    context.signal.addEventListener('abort', () => {
      console.error('hang: aborted');
      reject(new Error('aborted'));
    });
  }),
);
server.tool({ name: 'crash' }, () => {
  console.error('crash: exiting with code 3');
  process.exit(3);
});
server.tool({ name: 'garbage' }, () => {
  // Straight to stdout, bypassing the transport: non-protocol lines the client must survive.
  process.stdout.write('this is not json\n');
  process.stdout.write('{"jsonrpc": "2.0", "truncated\n');
  process.stdout.write(`"${'x'.repeat(10 * 1024 * 1024)}"\n`);
  return 'after garbage';
});

if (mode === 'linger' || mode === 'stubborn') setInterval(() => undefined, 60_000);
if (mode === 'stubborn') process.on('SIGTERM', () => console.error('stubborn: ignoring SIGTERM'));

// The console guard is on from the moment serveStdio opens the transport (synchronously, in the call).
const done = serveStdio(server);
console.log('fixture: started (this console.log must go to stderr)');
const reason = await done;
console.error(`fixture: stdin closed (${reason?.message ?? 'orderly'})`);
