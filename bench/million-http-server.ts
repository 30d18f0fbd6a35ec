/**
 * The server child of bench/scale-million.ts over Streamable HTTP: one `createServer()` with the echo tool behind
 * `createStreamableHttpServer` (responseMode 'sse', its default), `maxSessions` and `idleTimeoutMs` from the
 * arguments, on a {@link WarpClock} so the parent can expire every idle session at once. A benchmark program.
 *
 *   node --expose-gc --max-old-space-size=20000 --import tsx bench/million-http-server.ts --max-sessions=1001000 --idle-ms=600000
 *
 * Prints `@@ {"url":...}` once listening; then answers lines on stdin, each with one `@@ {...}` line:
 * - `measure`: settles, gc twice, `{ heapUsed, rss, sessions, serverSessions }`;
 * - `expire`: advances the clock past the idle timeout, waits until neither the HTTP registry nor the server holds
 *   a session (or 10 min pass), then measures: `{ fired, expireMs, heapUsed, rss, sessions, serverSessions }`.
 * Stdin closed: closes the server and exits.
 */
import { createServer } from '../index.ts';
import { createStreamableHttpServer } from '../transports/http/index.ts';
import { echo, type EchoArgs, echoJsonSchema, serverInfo } from './echo-tool.ts';
import { argInt } from './lib.ts';
import { gcTwice, settleLong } from './scale-lib.ts';
import { WarpClock } from './warp-clock.ts';

const idleMs = argInt('idle-ms', 600_000);
const clock = new WarpClock();
const server = createServer(serverInfo);
server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as EchoArgs));
const http = createStreamableHttpServer({ server, responseMode: 'sse', maxSessions: argInt('max-sessions', 1_001_000), idleTimeoutMs: idleMs, clock });
const listening = await http.listen(0);

const reply = (value: object): void => void process.stdout.write(`@@ ${JSON.stringify(value)}\n`);

async function measure(): Promise<Record<string, number>> {
  await settleLong();
  gcTwice();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss, sessions: http.sessionCount, serverSessions: server.sessions.size };
}

async function expire(): Promise<Record<string, number>> {
  const start = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  const fired = await clock.advance(idleMs + 1_000);
  const deadline = Date.now() + 600_000;
  while ((http.sessionCount > 0 || server.sessions.size > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  const expireMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpuBefore);
  return { fired, expireMs, expireCpuMs: (cpu.user + cpu.system) / 1000, ...(await measure()) };
}

let buffered = '';
let queue = Promise.resolve();
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
    const word = buffered.slice(0, nl).trim();
    buffered = buffered.slice(nl + 1);
    if (word === 'measure') queue = queue.then(async () => reply(await measure()));
    else if (word === 'expire') queue = queue.then(async () => reply(await expire()));
  }
});
process.stdin.once('end', () => void queue.then(() => http.close()).then(() => process.exit(0)));
reply({ url: listening.url });
