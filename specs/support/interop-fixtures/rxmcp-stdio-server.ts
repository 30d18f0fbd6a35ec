/**
 * The rxmcp interop server (specs/support/interop-rxmcp-server.ts) as a stdio program, for official SDK
 * clients to spawn: `node --import tsx rxmcp-stdio-server.ts`. Ends when its stdin closes.
 */
import { serveStdio } from '../../../transports/stdio/index.ts';
import { createInteropServer } from '../interop-rxmcp-server.ts';

const { acceptor } = createInteropServer();
const reason = await serveStdio(acceptor);
console.error(`rxmcp-stdio-server: stdin closed (${reason?.message ?? 'orderly'})`);
