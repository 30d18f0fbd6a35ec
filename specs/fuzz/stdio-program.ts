/**
 * The stdio server program of the reliability properties: the fuzz server on `serveStdio`, run as a real
 * child process. Every 100 ms it writes `heap <bytes>` (after a collection, when run with --expose-gc) to stderr
 * so the parent can bound its memory, and when the session ends it writes the reason and exits, as a server
 * program should: stderr is where a stdio client sees why.
 */
import { serveStdio } from '../../transports/stdio/index.ts';
import { FRAME_LIMIT, fuzzServer } from './fuzz-server.ts';

const collect = (globalThis as { gc?: () => void }).gc;
const sampler = setInterval(() => {
  collect?.();
  process.stderr.write(`heap ${process.memoryUsage().heapUsed}\n`);
}, 100);
sampler.unref();

const server = fuzzServer();
const reason = await serveStdio(server, { maxMessageBytes: FRAME_LIMIT });
process.stderr.write(`session ended: ${reason === undefined ? 'stdin closed' : `${reason.code}: ${reason.message}`}\n`);
await server.close();
process.exit(reason === undefined ? 0 : 1);
