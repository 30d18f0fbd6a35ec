/**
 * rxmcp load against the official reference server, `@modelcontextprotocol/server-everything` (built on the SDK
 * 1.x), over stdio and over Streamable HTTP: its echo tool answers "Echo: <message>", checked exactly for every
 * call, with a mix of its other requests. It speaks the legacy era only (no `server/discover`, no 2026-07-28):
 * asked for the modern era, the run refuses to start and says so.
 *
 * @serial: asserts a closed loop of 4 in flight gets more than 40 calls through the reference server in 1.5 s: a loaded machine starves that server
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, test } from 'node:test';
import { type Operation, runLoad } from '../../load/index.ts';
import { freePort } from '../support/nats-server.ts';
import { killChildren, trackChild } from '../support/interop-processes.ts';
import { assertBooks } from './books.ts';
import { SERVER_EVERYTHING } from './processes.ts';

after(async () => {
  await killChildren();
});

const stdio = { command: process.execPath, args: [SERVER_EVERYTHING, 'stdio'] };
const mix: Operation[] = [
  { method: 'tools/call', tool: 'echo', arguments: { message: '{{token}}' }, expect: 'Echo: {{token}}', weight: 6 },
  { method: 'tools/list' },
  { method: 'resources/read', uri: 'demo://resource/static/document/architecture.md' },
  { method: 'prompts/get', prompt: 'simple-prompt' },
  { method: 'ping' },
];

test('load - server-everything over stdio (legacy): every echo answered exactly, the mix answered, nothing lost', async () => {
  const result = await runLoad({ target: stdio, era: 'auto', rate: 100, durationMs: 1500, sessions: 2, operations: mix, hangMs: 5000 });
  for (const pid of result.server?.pids ?? []) trackChild(pid, 'server-everything');
  assertBooks(result);
  assert.deepEqual(result.eras, ['legacy'], 'found to speak the legacy era');
  assert.ok(result.sent >= 145, `${result.sent} sent`);
  assert.equal(result.ok, result.sent, `${JSON.stringify(result.errorsByCode)} ${JSON.stringify(result.byEra[0]?.wrongSamples)}`);
  assert.equal(result.lost, 0);
  assert.equal(result.server?.pids.length, 2, 'one process per session');
});

test('load - server-everything over Streamable HTTP (legacy), its process given by pid: counts add up, its memory per session read', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  trackChild(child.pid, 'server-everything http');
  await new Promise<void>((resolve, reject) => {
    let said = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${said}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (/listening on port/.test(said)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const result = await runLoad({ target: { url: `http://127.0.0.1:${port}/mcp` }, era: 'legacy', concurrency: 4, durationMs: 1500, sessions: 4, pid: child.pid ?? 0, operations: mix.filter((operation) => operation.method !== 'resources/read'), hangMs: 5000 });
  assertBooks(result);
  assert.ok(result.sent > 40, `${result.sent} sent`);
  assert.equal(result.ok, result.sent, `${JSON.stringify(result.errorsByCode)} ${JSON.stringify(result.byEra[0]?.wrongSamples)}`);
  assert.ok(result.server?.rssBaseline !== undefined && result.server.rssPerSession !== undefined, 'its memory before and per session');
  assert.ok((result.server.cpu ?? 0) > 0, 'its CPU');
  // It does not speak 2026-07-28: a modern run does not start, and says why.
  await assert.rejects(
    runLoad({ target: { url: `http://127.0.0.1:${port}/mcp` }, era: 'modern', rate: 10, durationMs: 500, connectTimeoutMs: 5000 }),
    /could not open a session to http:\/\/127\.0\.0\.1:\d+\/mcp: .*2026-07-28/,
  );
});
