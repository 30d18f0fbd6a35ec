/**
 * The web-standard server handler (createStreamableHttpFetchHandler) runs under Bun and under Deno, served by
 * each runtime's own HTTP server (fetch-server.ts), and rxmcp's node:http client talks to it: the handshake,
 * a tool listing, `count` with progress, and `stats` with structured output. Bun and Deno come from their npm
 * packages (devDependencies `bun` and `deno`, which ship the binaries); a missing binary fails the spec.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = fileURLToPath(new URL('./fetch-server.ts', import.meta.url));

const RUNTIMES = [
  { name: 'bun', binary: `${ROOT}node_modules/.bin/bun`, args: [SERVER] },
  // -A: the server reads files of the repository and node_modules, and listens on loopback.
  { name: 'deno', binary: `${ROOT}node_modules/.bin/deno`, args: ['run', '-A', SERVER] },
] as const;

/** Starts the server under the runtime and resolves with its endpoint URL (it prints it once listening). */
function start(binary: string, args: readonly string[]): Promise<{ readonly child: ChildProcess; readonly url: string }> {
  const child = spawn(binary, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${binary} printed no URL within 30 s; stderr: ${stderr}`)), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${binary} exited with ${code} before listening; stderr: ${stderr}`));
    });
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ child, url: (JSON.parse(line) as { url: string }).url });
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

for (const runtime of RUNTIMES) {
  describe(`the fetch handler under ${runtime.name}`, () => {
    for (const era of ['modern', 'legacy'] as const) {
      test(`${runtime.name}, ${era} era - rxmcp's node client lists tools, gets count's progress and stats' structured output`, { timeout: 90_000 }, async () => {
        assert.ok(existsSync(runtime.binary), `${runtime.binary} is missing: npm install (devDependency "${runtime.name}")`);
        const { child, url } = await start(runtime.binary, runtime.args);
        const transport = createStreamableHttpClientTransport(url);
        try {
          const session = await createClient({ name: `node-vs-${runtime.name}`, version: '1.0.0', era }).connect(transport);
          const tools = (await session.listTools()).map((tool) => tool.name);
          assert.ok(tools.includes('count') && tools.includes('stats'), `the demo tools are listed: ${tools.join(', ')}`);
          const progress: number[] = [];
          const counted = await session.callTool('count', { n: 3 }, { onProgress: (event) => progress.push(event.progress) });
          assert.deepEqual(progress, [1, 2, 3]);
          assert.deepEqual(counted.content, [{ type: 'text', text: 'Counted to 3.' }]);
          const stats = await session.callTool('stats', { numbers: [1, 2, 6] });
          assert.deepEqual(stats.structuredContent, { sum: 9, mean: 3 });
        } finally {
          await transport.close();
          await stopChild(child);
        }
      });
    }
  });
}
