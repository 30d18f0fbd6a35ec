/**
 * The dual-era rxmcp interop server (specs/interop/modern/rxmcp-modern-server.ts) as a stdio program, for the
 * official SDK 2.x client to spawn: `node --import tsx rxmcp-modern-stdio-server.ts [life-log]`. Ends when its
 * stdin closes. With a `life-log` path, appends `start <pid>` and `exit <pid> <code>` lines to it: a process
 * killed by a signal writes no exit line, so the log tells which copies ended by themselves.
 */
import { appendFileSync } from 'node:fs';
import { serveStdio } from '../../../../transports/stdio/index.ts';
import { createModernInteropServer } from '../../../interop/modern/rxmcp-modern-server.ts';

const lifeLog = process.argv[2];
if (lifeLog !== undefined) appendFileSync(lifeLog, `start ${process.pid}\n`);
process.once('exit', (code) => {
  console.error(`rxmcp-modern-stdio-server: exit ${code}`);
  if (lifeLog !== undefined) appendFileSync(lifeLog, `exit ${process.pid} ${code}\n`);
});

const { acceptor } = createModernInteropServer();
const reason = await serveStdio(acceptor);
console.error(`rxmcp-modern-stdio-server: stdin closed (${reason?.message ?? 'orderly'})`);
