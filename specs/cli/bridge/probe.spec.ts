/**
 * The probe `rxmcp bridge to-nats` runs before it serves (cli/bridge/probe.ts), against real processes (node with a
 * few lines of JavaScript that answer `initialize` one way or another): a good answer gives the name, version and
 * revision; a refusal, an unknown revision, a missing serverInfo, silence and an early exit each reject with why;
 * a program that ignores its stdin's end and SIGTERM is still gone soon after it answered. And the description it
 * feeds (bridged-description.ts) counts the list changes a process says, not other messages.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { bridgedDescription } from '../../../cli/bridge/bridged-description.ts';
import { type ProbedServer, probeServer } from '../../../cli/bridge/probe.ts';
import { isRunning, killChildren, trackChild, until } from '../../support/interop-processes.ts';
import { fakeTransport } from './fake-transport.ts';

const STUBBORN = fileURLToPath(new URL('../../support/stdio-fixtures/stubborn-server.mjs', import.meta.url));

after(async () => {
  assert.deepEqual(await killChildren(), [], 'every probed process had ended');
});

/** A program that answers `initialize` with `answer` (a JSON-RPC member: `result` or `error`), or never when undefined. */
function answering(answer: Record<string, unknown> | undefined): string[] {
  const reply = answer === undefined ? '' : `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...${JSON.stringify(answer)} }) + '\\n');`;
  return ['-e', `require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => { const message = JSON.parse(line); if (message.method === 'initialize') { ${reply} } });`];
}

/** Probes `args` under node, tracking every process it starts; resolves with the outcome and the probe's pids. */
async function probe(args: readonly string[], timeoutMs = 5000): Promise<{ readonly outcome: ProbedServer | Error; readonly pids: number[]; readonly lines: string[] }> {
  const lines: string[] = [];
  const pids: number[] = [];
  const report = (line: string): void => {
    lines.push(line);
    const started = /server process (\d+) started/.exec(line);
    if (started !== null) {
      pids.push(Number(started[1]));
      trackChild(Number(started[1]), 'a probed process');
    }
  };
  const outcome = await probeServer({ command: process.execPath, args, report, timeoutMs }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  return { outcome, pids, lines };
}

const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'probed', version: '3.1.4' } };

describe('rxmcp bridge to-nats: the probe', { timeout: 60_000 }, () => {
  test('bridge probe - a good answer gives the name, version and revision, and the process is stopped', async () => {
    const { outcome, pids } = await probe(answering({ result }));
    assert.deepEqual(outcome, { serverInfo: { name: 'probed', version: '3.1.4' }, revision: '2025-06-18' });
    assert.equal(pids.length, 1);
    assert.ok(pids.every((pid) => !isRunning(pid)), 'the probed process ended before the probe resolved');
  });

  test('bridge probe - a refusal, an unknown revision, no serverInfo, silence and an early exit reject with why', async () => {
    // Only the silent one is given a short time (node starting several processes at once may take longer).
    const cases: Array<[string[], RegExp, number]> = [
      [answering({ error: { code: -32602, message: 'no thanks' } }), /refused initialize: no thanks/, 10_000],
      [answering({ result: { ...result, protocolVersion: '1999-01-01' } }), /answered protocol version "1999-01-01", which this bridge does not know/, 10_000],
      [answering({ result: { ...result, serverInfo: { version: '1' } } }), /no serverInfo with a name and a version/, 10_000],
      [answering(undefined), /did not answer initialize within 500 ms/, 500],
      [['-e', 'process.exit(4)'], /exited with code 4/, 10_000],
    ];
    const outcomes = await Promise.all(cases.map(([args, , timeoutMs]) => probe(args, timeoutMs)));
    outcomes.forEach(({ outcome, pids }, index) => {
      const [, expected] = cases[index] as [string[], RegExp, number];
      assert.ok(outcome instanceof Error, `case ${index} rejected, not ${JSON.stringify(outcome)}`);
      assert.match(outcome.message, expected);
      assert.ok(pids.every((pid) => !isRunning(pid)), `case ${index}: the probed process ended`);
    });
  });

  test('bridge probe - a program that ignores its stdin\'s end and SIGTERM is killed soon after it answered', async () => {
    const started = Date.now();
    const { outcome, pids } = await probe([STUBBORN]);
    assert.deepEqual(outcome, { serverInfo: { name: 'stubborn', version: '1.0.0' }, revision: '2025-06-18' });
    await until(() => pids.every((pid) => !isRunning(pid)), 'the stubborn process was ended', 2000);
    assert.ok(Date.now() - started < 4000, `the probe took ${Date.now() - started} ms, not the stop waits of a session's process`);
  });
});

describe('rxmcp bridge to-nats: the bridged description', () => {
  test('bridge description - the catalog revision counts list_changed notifications, not requests or other notifications', () => {
    const description = bridgedDescription({ serverInfo: { name: 'probed', version: '3.1.4' }, revision: '2025-06-18' });
    assert.deepEqual(description.describe(), { serverInfo: { name: 'probed', version: '3.1.4' }, revisions: ['2025-06-18'], catalogRevision: '0' });
    const child = fakeTransport('stdio');
    const watched = description.watch(child);
    const seen: unknown[] = [];
    const subscription = watched.incoming$.subscribe((frame) => seen.push(frame.type === 'message' ? frame.payload : frame.type));
    child.receive({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    child.receive({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    child.receive({ jsonrpc: '2.0', id: 7, method: 'notifications/prompts/list_changed' });
    child.receive({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    subscription.unsubscribe();
    assert.equal(seen.length, 4, 'every frame passes through unchanged');
    assert.equal(description.describe().catalogRevision, '2');
  });
});
