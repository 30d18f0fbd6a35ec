/**
 * The client's side of choosing an era (`era: 'auto'`): it takes the era from the server's first valid answer,
 * never from silence alone. A dual-era stdio server that starts after the probe's wait is still spoken to in
 * 2026-07-28 (the client once gave up on the probe and sent `initialize`, which that server, having read the probe
 * first, refused); a legacy server that ignores the probe gets the legacy handshake. Real child processes.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { afterEach, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { spawnStdioServer } from '../../transports/stdio/index.ts';
import { killLeftovers, track } from '../support/stdio-harness.ts';
import { programArgs } from '../support/spec-program.ts';

afterEach(killLeftovers);

const SLOW_START = fileURLToPath(new URL('../support/stdio-fixtures/slow-start-server.ts', import.meta.url));
const SILENT_LEGACY = fileURLToPath(new URL('../support/stdio-fixtures/silent-legacy-server.mjs', import.meta.url));

async function connect(args: string[]) {
  const transport = track(await spawnStdioServer({ command: process.execPath, args, stderr: 'pipe' }));
  const client = createClient({ name: 'era-client', version: '1.0.0', probeTimeoutMs: 300 });
  return { transport, session: await client.connect(transport, { initializeTimeoutMs: 30_000 }) };
}

test('client era - a dual-era server slower to start than the probe wait is spoken to in 2026-07-28', { timeout: 60_000 }, async () => {
  const { transport, session } = await connect([...programArgs(SLOW_START), '1500', 'both']);
  assert.equal(session.session.era, 'modern');
  assert.equal((await session.callTool('echo')).content[0]?.type, 'text');
  await session.close();
  assert.deepEqual(await transport.exited, { code: 0, signal: null });
});

test('client era - a legacy-only server slower to start than the probe wait gets the legacy handshake', { timeout: 60_000 }, async () => {
  const { session } = await connect([...programArgs(SLOW_START), '1500', 'legacy']);
  assert.equal(session.session.era, 'legacy');
  assert.deepEqual((await session.callTool('echo')).content, [{ type: 'text', text: 'echoed' }]);
  await session.close();
});

test('client era - a legacy server that ignores the probe entirely gets the legacy handshake after the wait', { timeout: 60_000 }, async () => {
  const { session } = await connect([SILENT_LEGACY]);
  assert.equal(session.session.era, 'legacy');
  assert.deepEqual((await session.callTool('echo')).content, [{ type: 'text', text: 'echoed' }]);
  await session.close();
});
