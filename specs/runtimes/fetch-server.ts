/**
 * The demo server behind createStreamableHttpFetchHandler, served by the runtime's own HTTP server: Bun.serve
 * under Bun, Deno.serve under Deno. Prints `{"url": ...}` on one line once listening; stops on SIGTERM.
 * Run by runtimes.spec.ts, which talks to it with rxmcp's node:http client.
 */
import { createDemoServer } from '../../cli/demo-server.ts';
import { createStreamableHttpFetchHandler } from '../../transports/http/web.ts';

interface BunRuntime {
  serve(options: { port: number; hostname: string; fetch: (request: Request) => Promise<Response>; idleTimeout?: number }): { port: number };
}
interface DenoRuntime {
  serve(options: { port: number; hostname: string; onListen: (address: { port: number }) => void }, handler: (request: Request) => Promise<Response>): unknown;
}

const demo = createDemoServer();
const endpoint = createStreamableHttpFetchHandler({ server: demo.server });
const runtime = globalThis as { Bun?: BunRuntime; Deno?: DenoRuntime };

function announce(port: number, name: string): void {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, runtime: name }));
}

if (runtime.Bun !== undefined) {
  // idleTimeout 0: SSE answers (count's progress) stay open longer than Bun's 10 s default allows when idle.
  const server = runtime.Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: endpoint.handleFetch, idleTimeout: 0 });
  announce(server.port, 'bun');
} else if (runtime.Deno !== undefined) {
  runtime.Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: ({ port }) => announce(port, 'deno') }, endpoint.handleFetch);
} else {
  throw new Error('run this under Bun or Deno');
}
