/**
 * Both pipes full at once. A client sends faster than its server process reads, so its writes wait; meanwhile
 * the server writes more than the pipe holds and waits for its client to read. A server stops reading while its
 * answers wait (a burst cannot grow its queue of answers without bound), but a client that stopped reading too
 * while its own writes waited would leave each side waiting for the other for ever: the calls hang, the process
 * sits idle (seen under `rxmcp load` at 14,000 calls/s: thousands of calls never answered).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { createClient } from '../../../index.ts';
import { spawnStdioServer, type StdioClientTransport } from '../../../transports/stdio/index.ts';
import { eventually, within } from '../../support/harness.ts';
import { textOf } from '../../support/client-pair.ts';

const SERVER = join(import.meta.dirname, 'fixtures', 'flooding-server.mjs');
const CALLS = 200;
// 200 calls of 16 KiB: far more than the child's stdin pipe holds while the child does not read.
const TEXT = 'x'.repeat(16 * 1024);

let transport: StdioClientTransport | undefined;
afterEach(async () => {
  if (transport === undefined) return;
  await transport.close().catch(() => undefined);
  transport = undefined;
});

test('stdio - a client keeps reading while its writes wait: a server flooding it while not reading gets through, and every call is answered', async () => {
  transport = await spawnStdioServer({ command: process.execPath, args: [SERVER], stderr: 'pipe' });
  const stderr: string[] = [];
  transport.stderr$.subscribe((line) => stderr.push(line));
  const session = await createClient({ era: 'legacy', name: 'both-full', version: '1.0.0' }).connect(transport);
  let logs = 0;
  session.logs$.subscribe(() => logs++);
  const calls = Array.from({ length: CALLS }, (_, i) => session.callTool('echo', { text: `${i}:${TEXT}` }));
  const results = await within(Promise.all(calls), 30_000, `${CALLS} calls while the server floods its stdout`);
  results.forEach((result, i) => assert.equal(textOf(result), `${i}:${TEXT}`, `call ${i} got its own answer`));
  await eventually(() => stderr.includes('flooding-server: the flood was read'), 10_000, 'the server saw its flood taken');
  assert.ok(logs > 0, 'the client heard the log notifications');
  await session.close();
});
