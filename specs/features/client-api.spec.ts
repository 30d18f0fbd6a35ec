/**
 * The client session API (`client/session-api.ts`) against a real server: calls as Observables and
 * Promises with progress and cancellation, lazy paging, resource subscriptions, list changes, logs, and the
 * client's own check of structured tool output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Subject, from, take } from 'rxjs';
import type { RequestEvent, RequestHandler } from '../../actors/handler-types.ts';
import { isLocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CallToolResult, LoggingMessageParams, ResourceUpdatedParams, Tool } from '../../core/protocol/index.ts';
import type { ListChange } from '../../client/session-api.ts';
import { createSessionAcceptor } from '../../server/session-acceptor.ts';
import { type Accept, answersTo, clientPair, notificationsOf, paramsOf, rejectionOf, requestsOf, settle, textOf } from '../support/client-pair.ts';

test('client api - callTool$ emits the progress values, then the result', async () => {
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    setup: (server) => server.tool({ name: 'count' }, () => from([1, { progress: 2, total: 3, message: 'half' }, 'done'])),
  });
  const events: RequestEvent<CallToolResult>[] = [];
  await new Promise<void>((resolve, reject) => pair.session.callTool$('count').subscribe({ next: (event) => events.push(event), error: reject, complete: resolve }));
  assert.deepEqual(events, [
    { type: 'progress', progress: 1 },
    { type: 'progress', progress: 2, total: 3, message: 'half' },
    { type: 'result', result: { content: [{ type: 'text', text: 'done' }] } },
  ]);
  await pair.finish();
});

test('client api - unsubscribing callTool$ mid-way sends notifications/cancelled and aborts the handler signal', async () => {
  const output = new Subject<number | string>();
  let signal: AbortSignal | undefined;
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    setup: (server) => server.tool({ name: 'slow' }, (_args, ctx) => ((signal = ctx.signal), output)),
  });
  const events: RequestEvent<CallToolResult>[] = [];
  const subscription = pair.session.callTool$('slow').subscribe((event) => events.push(event));
  await settle();
  output.next(1);
  output.next(2); // numbers can only be progress: each goes out at once
  await settle();
  assert.deepEqual(events, [{ type: 'progress', progress: 1 }, { type: 'progress', progress: 2 }]);
  assert.equal(signal?.aborted, false);

  subscription.unsubscribe();
  await settle();
  const [call] = requestsOf(pair.clientSent, 'tools/call');
  const [cancel] = notificationsOf(pair.clientSent, 'notifications/cancelled');
  assert.equal(paramsOf(cancel)['requestId'], call?.['id'], 'the cancel names the tools/call request');
  assert.equal(signal?.aborted, true, 'the handler signal aborted');
  assert.equal(output.observed, false, 'the handler output was unsubscribed');
  output.next('too late');
  output.complete();
  await settle();
  assert.deepEqual(answersTo(pair.serverSent, call?.['id']), [], 'a cancelled request is never answered');
  assert.equal(events.length, 2);
  await pair.finish();
});

test('client api - callTool (Promise) reports progress to onProgress; without it no progress token is sent', async () => {
  const pair = await clientPair({
    protocolVersion: '2025-06-18',
    setup: (server) =>
      server.tool({ name: 'work' }, async (_args, ctx) => {
        ctx.progress(1);
        await Promise.resolve();
        ctx.progress({ progress: 2, total: 2, message: 'done' });
        return 'ok';
      }),
  });
  const progress: unknown[] = [];
  const result = await pair.session.callTool('work', {}, { onProgress: (event) => progress.push(event) });
  assert.equal(textOf(result), 'ok');
  assert.deepEqual(progress, [{ type: 'progress', progress: 1 }, { type: 'progress', progress: 2, total: 2, message: 'done' }]);

  const sentBefore = notificationsOf(pair.serverSent, 'notifications/progress').length;
  await pair.session.callTool('work');
  const [, second] = requestsOf(pair.clientSent, 'tools/call');
  assert.equal((paramsOf(second)['_meta'] as JsonObject | undefined)?.['progressToken'], undefined, 'no token when nobody listens');
  assert.equal(notificationsOf(pair.serverSent, 'notifications/progress').length, sentBefore, 'so the server sends no progress');
  await pair.finish();
});

test('client api - tools$() pages lazily: take(n) stops fetching pages, listTools() fetches them all', async () => {
  const names = ['a', 'b', 'c', 'd', 'e'];
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    server: { pageSize: 2 },
    setup: (server) => names.forEach((name) => server.tool({ name }, () => name)),
  });
  const lists = (): number => requestsOf(pair.clientSent, 'tools/list').length;
  const taken = async (n: number): Promise<string[]> => {
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => pair.session.tools$().pipe(take(n)).subscribe({ next: (tool) => seen.push(tool.name), error: reject, complete: resolve }));
    await settle();
    return seen;
  };

  assert.deepEqual(await taken(2), ['a', 'b']);
  assert.equal(lists(), 1, 'one page was enough: no second request');
  assert.deepEqual(await taken(3), ['a', 'b', 'c']);
  assert.equal(lists(), 3, 'two more pages for three items');
  assert.equal(requestsOf(pair.clientSent, 'tools/list').filter((message) => paramsOf(message)['cursor'] !== undefined).length, 1);

  const all = await pair.session.listTools();
  assert.deepEqual(all.map((tool) => tool.name), names);
  assert.equal(lists(), 6, 'three pages for five items at two a page');
  await pair.finish();
});

const resource = { uri: 'file:///data/report.txt', name: 'report' };

test('client api - subscribe$(uri) emits updates until unsubscribed, then sends resources/unsubscribe', async () => {
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    setup: (server) => {
      server.resource(resource, () => 'report');
      server.resource({ uri: 'file:///data/other.txt', name: 'other' }, () => 'other');
    },
  });
  const updates: ResourceUpdatedParams[] = [];
  const subscription = pair.session.subscribe$(resource.uri).subscribe((update) => updates.push(update));
  await settle();
  assert.deepEqual(requestsOf(pair.clientSent, 'resources/subscribe').map(paramsOf), [{ uri: resource.uri }]);

  pair.server.notifyResourceUpdated(resource.uri);
  pair.server.notifyResourceUpdated('file:///data/other.txt'); // nobody subscribed: nothing is sent
  pair.server.notifyResourceUpdated(resource.uri);
  await settle();
  assert.deepEqual(updates, [{ uri: resource.uri }, { uri: resource.uri }]);
  assert.equal(notificationsOf(pair.serverSent, 'notifications/resources/updated').length, 2);

  subscription.unsubscribe();
  await settle();
  assert.deepEqual(requestsOf(pair.clientSent, 'resources/unsubscribe').map(paramsOf), [{ uri: resource.uri }], 'unsubscribing told the server');
  pair.server.notifyResourceUpdated(resource.uri);
  await settle();
  assert.equal(notificationsOf(pair.serverSent, 'notifications/resources/updated').length, 2, 'the server no longer sends updates');
  assert.equal(updates.length, 2);
  await pair.finish();
});

test('client api - subscribe$ unsubscribed before the server accepted still leaves no subscription on the server', async () => {
  const pair = await clientPair({ protocolVersion: '2025-11-25', setup: (server) => server.resource(resource, () => 'report') });
  pair.session.subscribe$(resource.uri).subscribe().unsubscribe();
  await settle();
  pair.server.notifyResourceUpdated(resource.uri);
  await settle();
  assert.deepEqual(notificationsOf(pair.serverSent, 'notifications/resources/updated'), [], 'the server holds no subscription for a subscriber that left');
  await pair.finish();
});

test('client api - subscribe$ on a server without resource subscriptions fails with CapabilityNotNegotiated', async () => {
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    server: { capabilities: { resources: { subscribe: false } } },
    setup: (server) => server.resource(resource, () => 'report'),
  });
  const error = await new Promise<unknown>((resolve) => pair.session.subscribe$(resource.uri).subscribe({ error: resolve, complete: () => resolve(undefined) }));
  assert.ok(isLocalError(error, 'CapabilityNotNegotiated'), `got ${String(error)}`);
  assert.deepEqual(requestsOf(pair.clientSent, 'resources/subscribe'), []);
  await pair.finish();
});

test('client api - listChanged$ emits tools, prompts and resources as the catalog changes', async () => {
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    setup: (server) => {
      server.tool({ name: 'first' }, () => 'first');
      server.prompt({ name: 'greet' }, () => 'Hello');
      server.resource(resource, () => 'report');
    },
  });
  const changes: ListChange[] = [];
  pair.session.listChanged$.subscribe((change) => changes.push(change));
  const added = pair.server.tool({ name: 'second' }, () => 'second');
  await settle();
  assert.deepEqual(changes, ['tools'], 'registering a tool is announced');
  assert.deepEqual((await pair.session.listTools()).map((tool) => tool.name), ['first', 'second']);
  added.remove();
  pair.server.prompt({ name: 'bye' }, () => 'Bye');
  pair.server.resource({ uri: 'file:///data/new.txt', name: 'new' }, () => 'new');
  await settle();
  assert.deepEqual(changes, ['tools', 'tools', 'prompts', 'resources']);
  await pair.finish();
});

test('client api - logs$ receives notifications/message from server.log and ctx.log, at the level the client set', async () => {
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    setup: (server) =>
      server.tool({ name: 'noisy' }, (_args, ctx) => {
        ctx.log('debug', 'details');
        ctx.log('error', { failed: 'disk' }, 'fs');
        return 'ok';
      }),
  });
  const logs: LoggingMessageParams[] = [];
  pair.session.logs$.subscribe((message) => logs.push(message));
  pair.server.log('info', { hello: 'world' });
  await settle();
  await pair.session.callTool('noisy');
  assert.deepEqual(logs, [
    { level: 'info', data: { hello: 'world' } },
    { level: 'debug', data: 'details' },
    { level: 'error', data: { failed: 'disk' }, logger: 'fs' },
  ]);

  await pair.session.setLogLevel('warning');
  pair.server.log('info', 'filtered');
  pair.server.log('critical', 'kept');
  await pair.session.callTool('noisy');
  assert.deepEqual(logs.slice(3).map((message) => message.data), ['kept', { failed: 'disk' }]);
  await pair.finish();
});

// --- client-side outputSchema validation, against a hand-written server that breaks its own schema ---------

const countTool: Tool = {
  name: 'count',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
};

/** A low-level server whose `count` tool answers whatever `answer` says, schema or not. */
function rawToolServer(answer: () => CallToolResult): Accept {
  const requests = new Map<string, RequestHandler>([
    ['tools/list', () => ({ tools: [countTool] })],
    ['tools/call', () => answer()],
  ]);
  const acceptor = createSessionAcceptor({ serverInfo: { name: 'raw', version: '0.0.0' }, capabilities: { tools: {} }, handlers: { requests, notifications: new Map() } });
  return (transport, runtime) => acceptor.accept(transport, runtime);
}

test('client api - structuredContent that breaks the listed outputSchema rejects callTool with ProtocolViolation', async () => {
  const bad: CallToolResult = { content: [{ type: 'text', text: '{"n":"three"}' }], structuredContent: { n: 'three' } };
  const pair = await clientPair({ protocolVersion: '2025-11-25', accept: rawToolServer(() => bad) });

  assert.deepEqual(await pair.session.callTool('count'), bad, 'before a listing the schema is unknown: nothing to check');
  await pair.session.listTools();
  const error = await rejectionOf(pair.session.callTool('count'));
  assert.ok(isLocalError(error, 'ProtocolViolation'), `got ${String(error)}`);
  assert.match((error as Error).message, /count.*outputSchema/);

  const observed = await new Promise<unknown>((resolve) => pair.session.callTool$('count').subscribe({ error: resolve, complete: () => resolve(undefined) }));
  assert.ok(isLocalError(observed, 'ProtocolViolation'), 'callTool$ checks too');

  assert.deepEqual(await pair.session.callTool('count', {}, { validateOutput: false }), bad, 'validateOutput: false skips the check');
  await pair.finish();
});

test('client api - a tool with an outputSchema that answers without structuredContent is a ProtocolViolation; isError results pass', async () => {
  let answer: CallToolResult = { content: [{ type: 'text', text: '3' }] };
  const pair = await clientPair({ protocolVersion: '2025-11-25', accept: rawToolServer(() => answer) });
  await pair.session.listTools();
  assert.ok(isLocalError(await rejectionOf(pair.session.callTool('count')), 'ProtocolViolation'));
  answer = { content: [{ type: 'text', text: 'broken' }], isError: true };
  assert.deepEqual(await pair.session.callTool('count'), answer, 'an error result carries no structured content');
  answer = { content: [{ type: 'text', text: '{"n":3}' }], structuredContent: { n: 3 } };
  assert.deepEqual(await pair.session.callTool('count'), answer, 'a conforming result passes');
  await pair.finish();
});
