/**
 * The official SDK 2.x server programs of bench/modern-calls.ts, serving the echo tool of bench/echo-tool.ts
 * (input `{ text, count, upper }`, one text block) in the modern era (2026-07-28), each run as a child process:
 *
 *   node --import tsx bench/modern-programs.ts --transport=stdio
 *   node --import tsx bench/modern-programs.ts --transport=http
 *
 * stdio: `serveStdio(factory)` from '@modelcontextprotocol/server/stdio' (the opening exchange picks the era; one
 * instance from the factory is pinned for the connection), the same program as the legacy benchmarks' SDK 2.x one.
 * http (127.0.0.1, any port): `createMcpHandler(factory)` from '@modelcontextprotocol/server' (its defaults: a fresh
 * instance from the factory per modern request, responseMode 'auto'), whose web-standard `fetch(Request)` is put on
 * node:http by `listenFetch`, the adapter of bench/contenders-programs.ts. The factory is bench/contenders-servers.ts's
 * `newSdk2Server`, which registers the tool with the same zod 4 schema object each time.
 * rxmcp's servers and the floors are bench/transport-programs.ts, the ones the legacy benchmarks run.
 * An http program prints `@@ {"url":...}` once listening and stops when stdin ends (as bench/transport-programs.ts).
 */
import { createMcpHandler } from '@modelcontextprotocol/server';
import { listenFetch, serveSdk2Stdio } from './contenders-programs.ts';
import { newSdk2Server } from './contenders-servers.ts';
import { argValue } from './lib.ts';

async function serveHttp(): Promise<void> {
  const handler = createMcpHandler(newSdk2Server, { onerror: (error) => console.error(`[sdk2 http] ${error.message}`) });
  const node = await listenFetch((request) => handler.fetch(request));
  process.stdin.resume();
  process.stdin.once('end', () => {
    void handler.close().then(() => node.close()).then(() => process.exit(0));
  });
  process.stdout.write(`@@ ${JSON.stringify({ url: node.url })}\n`);
}

const transport = argValue('transport');
if (transport === 'stdio') {
  await serveSdk2Stdio();
} else if (transport === 'http') {
  await serveHttp();
} else {
  throw new RangeError(`--transport must be stdio or http, got ${String(transport)}`);
}
