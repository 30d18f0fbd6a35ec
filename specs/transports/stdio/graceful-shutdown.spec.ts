/**
 * Graceful shutdown of a stdio server program (`serveStdio` with `handleSignals`), driven like a user would:
 * a real child process, raw JSON-RPC lines on its stdin, SIGTERM from outside.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, test } from 'node:test';
import { eventually, within } from '../../support/harness.ts';
import { PROCESS_MS, REPO_ROOT } from '../../support/stdio-harness.ts';
import { programArgs } from '../../support/spec-program.ts';

const FIXTURE = fileURLToPath(new URL('../../support/stdio-fixtures/graceful-server.ts', import.meta.url));

interface Answer {
  readonly id: number;
  readonly result?: { readonly content?: ReadonlyArray<{ readonly text?: string }> };
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  /** Answers by request id, in the order they came. */
  readonly answers: Map<number, Answer[]>;
  readonly stderr: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  send(message: object): void;
  call(id: number, ms: number): void;
}

const children = new Set<ChildProcessWithoutNullStreams>();

afterEach(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  children.clear();
});

async function startServer(drainMs: number): Promise<Child> {
  const child = spawn(process.execPath, [...programArgs(FIXTURE), String(drainMs)], { cwd: REPO_ROOT, stdio: 'pipe' });
  children.add(child);
  const answers = new Map<number, Answer[]>();
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Answer;
    answers.set(message.id, [...(answers.get(message.id) ?? []), message]);
  });
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const send = (message: object): void => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '1' } } });
  send({ method: 'notifications/initialized' });
  await eventually(() => answers.has(0), PROCESS_MS, 'the initialize answer');
  return {
    process: child,
    answers,
    stderr,
    exited,
    send,
    call: (id, ms) => send({ id, method: 'tools/call', params: { name: 'slow', arguments: { ms } } }),
  };
}

/** Waits until the server has taken every call in `ids` (it answers a ping sent after them only then). */
async function settled(child: Child, pingId: number): Promise<void> {
  child.send({ id: pingId, method: 'ping' });
  await eventually(() => child.answers.has(pingId), PROCESS_MS, 'the ping answer');
}

function textOf(answer: Answer | undefined): string | undefined {
  return answer?.result?.content?.[0]?.text;
}

test('stdio shutdown - SIGTERM while 5 calls are in flight: all 5 are answered, then the process exits 0', async () => {
  const child = await startServer(10_000);
  for (let id = 1; id <= 5; id++) child.call(id, 400 + id * 20);
  await settled(child, 99);
  child.process.kill('SIGTERM');
  const exit = await within(child.exited, PROCESS_MS, 'the exit');
  assert.deepEqual(exit, { code: 0, signal: null });
  for (let id = 1; id <= 5; id++) {
    const answers = child.answers.get(id) ?? [];
    assert.equal(answers.length, 1, `call ${id} got exactly one answer`);
    assert.equal(textOf(answers[0]), `slept ${400 + id * 20} ms`);
  }
  assert.ok(child.stderr.includes('graceful: served (orderly)'), child.stderr.join('\n'));
});

test('stdio shutdown - a call outlasting the deadline is answered with the shutdown error, and new calls are refused', async () => {
  const child = await startServer(300);
  child.call(1, 60_000);
  await settled(child, 99);
  const started = Date.now();
  child.process.kill('SIGTERM');
  await eventually(() => child.answers.has(1), PROCESS_MS, 'the answer to the long call');
  const elapsed = Date.now() - started;
  const [answer] = child.answers.get(1) ?? [];
  assert.equal(answer?.error?.code, -32603);
  assert.equal(answer?.error?.message, 'The server shut down before tools/call (request 1) finished: the shutdown deadline of 300 ms passed');
  assert.deepEqual(answer?.error?.data, { shutdown: true, deadlineMs: 300 });
  assert.ok(elapsed >= 250, `the call had its drain time first (${elapsed} ms)`);
  assert.deepEqual(await within(child.exited, PROCESS_MS, 'the exit'), { code: 0, signal: null });
  assert.equal(child.answers.get(1)?.length, 1, 'exactly one answer');
});

test('stdio shutdown - a request arriving while draining is refused; a second SIGTERM ends the process at once', async () => {
  const child = await startServer(60_000);
  child.call(1, 60_000);
  await settled(child, 99);
  child.process.kill('SIGTERM');
  // The first signal is handled once a new request is refused as shutting down (calls sent before that run on).
  let nextId = 2;
  const refused = (): Answer | undefined => [...child.answers.values()].flat().find((answer) => answer.id >= 2 && answer.error !== undefined);
  await eventually(() => {
    if (refused() === undefined) child.call(nextId++, 60_000);
    return refused() !== undefined;
  }, PROCESS_MS, 'the refusal of a new call');
  assert.match(refused()?.error?.message ?? '', /shutting down/);
  assert.equal(child.answers.has(1), false, 'the long call still runs');
  const started = Date.now();
  child.process.kill('SIGTERM');
  const exit = await within(child.exited, PROCESS_MS, 'the exit');
  assert.deepEqual(exit, { code: null, signal: 'SIGTERM' }, 'the second signal ended the process by its default action');
  assert.ok(Date.now() - started < 2000, 'at once');
});

test('stdio shutdown - stdin closing with calls in flight: every call is answered before the process ends', async () => {
  const child = await startServer(10_000);
  for (let id = 1; id <= 3; id++) child.call(id, 300);
  child.process.stdin.end();
  assert.deepEqual(await within(child.exited, PROCESS_MS, 'the exit'), { code: 0, signal: null });
  for (let id = 1; id <= 3; id++) assert.equal(textOf(child.answers.get(id)?.[0]), 'slept 300 ms', `call ${id} was answered`);
});
