import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import type { SessionDiagnostic } from '../../../actors/session-context.ts';
import { eventually, within } from '../../support/harness.ts';
import { textOf } from '../../support/client-pair.ts';
import { PROCESS_MS, connectFixture, killLeftovers } from '../../support/stdio-harness.ts';

afterEach(killLeftovers);

test('stdio - a client and a server process round-trip tools/list and tools/call over real pipes', async () => {
  const { transport, session, oracle } = await connectFixture();
  assert.equal(transport.kind, 'stdio');
  assert.ok(transport.pid > 0, 'the child has a pid');
  const names = (await within(session.listTools(), PROCESS_MS, 'tools/list')).map((tool) => tool.name);
  assert.deepEqual(names, ['echo', 'count', 'chatty', 'hang', 'crash', 'garbage']);
  assert.equal(textOf(await session.callTool('echo', { text: 'héllo\nwörld' })), 'héllo\nwörld', 'a newline inside a string stays inside the line');
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => session.callTool('echo', { text: `n${i}` })));
  assert.deepEqual(results.map(textOf), Array.from({ length: 20 }, (_, i) => `n${i}`), 'concurrent calls are answered each with its own result');
  await within(session.close(), PROCESS_MS, 'close');
  assert.deepEqual(await transport.exited, { code: 0, signal: null }, 'the server exited by itself once its stdin closed');
  oracle.assertClean();
});

test('stdio - progress streams across the pipes before the result', async () => {
  const { session, oracle } = await connectFixture();
  const events = await within(firstValueFrom(session.callTool$('count').pipe(toArray())), PROCESS_MS, 'tools/call count');
  assert.deepEqual(
    events.map((event) => (event.type === 'progress' ? `progress ${event.progress}` : `result ${textOf(event.result)}`)),
    ['progress 1', 'progress 2', 'result counted'],
  );
  await session.close();
  oracle.assertClean();
});

test('stdio - unsubscribing cancels the call in the server process, and the session goes on', async () => {
  const { session, oracle, stderr } = await connectFixture();
  await session.listTools();
  const subscription = session.callTool$('hang').subscribe();
  await new Promise((resolve) => setTimeout(resolve, 100));
  subscription.unsubscribe();
  await eventually(() => stderr.includes('hang: aborted'), PROCESS_MS, 'the server handler saw the cancellation');
  assert.equal(textOf(await session.callTool('echo', { text: 'after cancel' })), 'after cancel');
  await session.close();
  oracle.assertClean();
});

test('stdio - stray console output in the server goes to stderr, and the protocol stream stays clean', async () => {
  const { session, oracle, stderr, transport } = await connectFixture();
  const diagnostics: SessionDiagnostic[] = [];
  session.session.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic));
  assert.equal(textOf(await within(session.callTool('chatty'), PROCESS_MS, 'tools/call chatty')), 'said something');
  await eventually(() => stderr.includes('stray console.log from a tool'), PROCESS_MS, 'console.log arrived on stderr');
  await eventually(() => stderr.includes("{ stray: 'console.info' }"), PROCESS_MS, 'console.info arrived on stderr');
  assert.ok(stderr.includes('fixture: started (this console.log must go to stderr)'), 'the startup console.log went to stderr');
  assert.deepEqual(diagnostics, [], 'the client saw no malformed or invalid frame');
  await session.close();
  await transport.exited;
  await eventually(() => stderr.includes('fixture: stdin closed (orderly)'), PROCESS_MS, 'the last stderr line was read');
  oracle.assertClean();
});

test('stdio - garbage lines and a 10 MB line from the server are malformed frames; the client session survives', async () => {
  const { session, oracle } = await connectFixture();
  const diagnostics: SessionDiagnostic[] = [];
  session.session.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic));
  assert.equal(textOf(await within(session.callTool('garbage'), PROCESS_MS, 'tools/call garbage')), 'after garbage');
  const malformed = diagnostics.filter((diagnostic) => diagnostic.type === 'malformed-frame').map((diagnostic) => diagnostic.detail);
  assert.equal(malformed.length, 3, `three bad lines were reported: ${JSON.stringify(malformed)}`);
  assert.match(malformed[0] ?? '', /malformed JSON/);
  assert.match(malformed[1] ?? '', /malformed JSON/);
  assert.match(malformed[2] ?? '', /exceeds the frame limit of 4194304 bytes/);
  assert.equal(textOf(await session.callTool('echo', { text: 'still here' })), 'still here');
  assert.equal(session.session.state, 'operating');
  await session.close();
  oracle.assertClean();
});
