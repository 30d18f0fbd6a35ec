/**
 * The conformance server program: `npm run conformance:server` serves the suite's catalog over Streamable
 * HTTP at http://127.0.0.1:$PORT/mcp. SSE streams carry a priming event and `retry`, and a request stream
 * still open after 150 ms is closed by the server, so the 2025-11-25 polling pattern (server-sse-polling)
 * is exercised: the client resumes with GET + Last-Event-ID.
 */
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { conformanceServer } from './catalog.ts';

const port = Number(process.env['PORT'] ?? '3000');
const http = createStreamableHttpServer({ server: conformanceServer(), path: '/mcp', sse: { retryMs: 500, closeRequestStreamsAfterMs: 150 } });
const listening = await http.listen(port, '127.0.0.1');
process.stdout.write(`rxmcp conformance server at ${listening.url}\n`);
const stop = (): void => {
  void listening.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
