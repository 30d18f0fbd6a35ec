/**
 * `rxmcp serve --verbose`: one JSON line per request on stderr, written when it ends (method, the tool, prompt or
 * resource it names, ids, era, principal, duration, outcome). It is the `requestLog` interceptor any server can
 * use, writing through the dependency-free JSON lines logger.
 */
import { jsonLinesLogger, requestLog } from '../actors/request-log.ts';
import type { McpServer } from '../server/create-server.ts';

/** The same server, with every request it serves logged through `write`, one JSON object per line. */
export function withRequestLog(server: McpServer, write: (line: string) => void): McpServer {
  server.use(requestLog({ logger: jsonLinesLogger(write) }), { direction: 'incoming' });
  return server;
}
