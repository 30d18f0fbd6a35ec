/**
 * THE end-to-end test: over the in-memory transport, a client calls a tool that elicits, lists roots,
 * samples, logs and reports progress; the client sees the progress values, the logs, and a result built from
 * every answer. Then the same call cancelled half-way: the handler's signal fires, the server's pending
 * request to the client is cancelled too, no result arrives, and nothing leaks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientRequestContext } from '../../actors/features/client-requests.ts';
import type { RequestEvent } from '../../actors/handler-types.ts';
import { isLocalError } from '../../core/errors.ts';
import type { CallToolResult, CreateMessageParams, SamplingMessageContentBlock, ElicitRequestFormParams, ElicitRequestedSchema, LoggingMessageParams, Root } from '../../core/protocol/index.ts';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import type { ClientSetup } from '../support/client-pair.ts';
import { type ClientPair, answersTo, clientPair, methodsOf, notificationsOf, paramsOf, requestsOf, settle } from '../support/client-pair.ts';
import { mapsOf, waitFor } from '../support/test-clock.ts';

const tripSchema: ElicitRequestedSchema = {
  type: 'object',
  properties: {
    destination: { type: 'string', title: 'Destination', minLength: 2 },
    nights: { type: 'integer', title: 'Nights', minimum: 1, maximum: 30, default: 3 },
  },
  required: ['destination'],
};

const outputSchema = {
  type: 'object',
  properties: { destination: { type: 'string' }, nights: { type: 'integer' }, folder: { type: 'string' }, plan: { type: 'string' }, model: { type: 'string' } },
  required: ['destination', 'nights', 'folder', 'plan', 'model'],
};

const tripRoots: readonly Root[] = [{ uri: 'file:///home/ada/trips', name: 'Trips' }];

/** What the tool handler went through; filled as it runs. */
interface Trace {
  signal?: AbortSignal;
  failure?: unknown;
  finished: boolean;
}

/** The server side: one tool that needs everything the client offers. */
function setupPlanner(trace: Trace) {
  return (server: ClientPair['server']): void => {
    server.tool({ name: 'plan_trip', description: 'Plans a trip with the user', outputSchema }, async (_args, ctx) => {
      trace.signal = ctx.signal;
      try {
        ctx.log('info', 'planning started', 'planner');
        ctx.progress({ progress: 1, total: 4, message: 'asking the user' });
        const answer = await ctx.elicit({ message: 'Where do you want to go?', requestedSchema: tripSchema });
        if (answer.action !== 'accept' || answer.content === undefined) return { content: [{ type: 'text', text: 'The user declined' }], isError: true };
        const destination = String(answer.content['destination']);
        const nights = Number(answer.content['nights']);
        ctx.progress({ progress: 2, total: 4, message: 'reading roots' });
        const [folder] = await ctx.roots();
        ctx.progress({ progress: 3, total: 4, message: 'asking the model' });
        const sampled = await ctx.sample({
          messages: [{ role: 'user', content: { type: 'text', text: `Plan ${nights} nights in ${destination}; save to ${folder?.uri}` } }],
          systemPrompt: 'You plan trips.',
          maxTokens: 200,
        });
        const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
        const plan = content?.type === 'text' ? content.text : '';
        ctx.log('notice', { model: sampled.model }, 'planner');
        ctx.progress({ progress: 4, total: 4, message: 'done' });
        trace.finished = true;
        return { structuredContent: { destination, nights, folder: folder?.uri ?? '', plan, model: sampled.model } };
      } catch (error) {
        trace.failure = error;
        throw error;
      }
    });
  };
}

/** The client side: a user who names a destination, a model that writes a plan. */
function cooperativeClient(seen: { elicited: ElicitRequestFormParams[]; sampled: CreateMessageParams[] }): ClientSetup {
  return {
    roots: tripRoots,
    elicitation: { form: (params) => (seen.elicited.push(params), { action: 'accept', content: { destination: 'Lisbon' } }) },
    sampling: async (params) => {
      seen.sampled.push(params);
      const prompt = params.messages[0]?.content;
      const block = prompt === undefined ? undefined : Array.isArray(prompt) ? prompt[0] : (prompt as SamplingMessageContentBlock);
      const text = block?.type === 'text' ? block.text : '?';
      return { role: 'assistant', content: { type: 'text', text: `Itinerary for: ${text}` }, model: 'trip-model-2', stopReason: 'endTurn' };
    },
  };
}

for (const revision of ['2025-06-18', '2025-11-25'] as const satisfies readonly LegacyRevision[]) {
  test(`end to end - a tool that elicits, lists roots, samples, logs and reports progress, seen whole by the client (${revision})`, async () => {
    const trace: Trace = { finished: false };
    const seen = { elicited: [] as ElicitRequestFormParams[], sampled: [] as CreateMessageParams[] };
    const pair = await clientPair({ protocolVersion: revision, client: cooperativeClient(seen), setup: setupPlanner(trace) });
    const logs: LoggingMessageParams[] = [];
    pair.session.logs$.subscribe((message) => logs.push(message));
    await pair.session.listTools(); // learn the outputSchema: the client checks the result too

    const events: RequestEvent<CallToolResult>[] = [];
    await new Promise<void>((resolve, reject) => pair.session.callTool$('plan_trip').subscribe({ next: (event) => events.push(event), error: reject, complete: resolve }));

    assert.deepEqual(events.slice(0, -1), [
      { type: 'progress', progress: 1, total: 4, message: 'asking the user' },
      { type: 'progress', progress: 2, total: 4, message: 'reading roots' },
      { type: 'progress', progress: 3, total: 4, message: 'asking the model' },
      { type: 'progress', progress: 4, total: 4, message: 'done' },
    ]);
    const plan = 'Itinerary for: Plan 3 nights in Lisbon; save to file:///home/ada/trips';
    const structured = { destination: 'Lisbon', nights: 3, folder: 'file:///home/ada/trips', plan, model: 'trip-model-2' };
    assert.deepEqual(events.at(-1), { type: 'result', result: { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] } },
      'the result is built from the elicited answer (with its default), the roots and the sampled text');
    assert.deepEqual(logs, [
      { level: 'info', data: 'planning started', logger: 'planner' },
      { level: 'notice', data: { model: 'trip-model-2' }, logger: 'planner' },
    ]);
    assert.equal(seen.elicited[0]?.message, 'Where do you want to go?');
    assert.deepEqual(seen.sampled[0]?.messages, [{ role: 'user', content: { type: 'text', text: 'Plan 3 nights in Lisbon; save to file:///home/ada/trips' } }]);
    assert.equal(trace.signal?.aborted, false);

    // On the wire, in order: everything the server did for the call, then its answer.
    const call = requestsOf(pair.clientSent, 'tools/call')[0];
    const fromServer = pair.serverSent.slice(pair.serverSent.findIndex((message) => message['method'] === 'notifications/message'));
    assert.deepEqual(fromServer.map((message) => message['method'] ?? `answer ${String(message['id'] === call?.['id'])}`), [
      'notifications/message', 'notifications/progress', 'elicitation/create', 'notifications/progress', 'roots/list',
      'notifications/progress', 'sampling/createMessage', 'notifications/message', 'notifications/progress', 'answer true',
    ]);
    const token = (paramsOf(call)['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
    assert.ok(notificationsOf(pair.serverSent, 'notifications/progress').every((message) => paramsOf(message)['progressToken'] === token));
    await pair.finish();
  });
}

/** A client whose user answers, but whose model (or form) never does until cancelled. */
function stallingClient(stallIn: 'sampling' | 'elicitation', stalled: ClientRequestContext[]): ClientSetup {
  const stall = (context: ClientRequestContext): Promise<never> => {
    stalled.push(context);
    return new Promise<never>((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason as Error)));
  };
  const cooperative = cooperativeClient({ elicited: [], sampled: [] });
  return {
    ...cooperative,
    ...(stallIn === 'sampling' ? { sampling: (_params, context) => stall(context) } : { elicitation: { form: (_params, context) => stall(context) } }),
  };
}

/** Asserts that nothing is left of the call on either side, and that the stalled client request was cancelled. */
function assertCancelledCleanly(pair: ClientPair, trace: Trace, stalled: readonly ClientRequestContext[], method: string, events: readonly RequestEvent<CallToolResult>[], ended: { value: boolean }): void {
  assert.equal(trace.signal?.aborted, true, "the handler's signal fired");
  assert.ok(isLocalError(trace.failure, 'RequestAborted'), `the handler's pending ${method} failed with RequestAborted, got ${String(trace.failure)}`);
  assert.equal(trace.finished, false);
  assert.ok(events.every((event) => event.type === 'progress'), 'no result reached the client');
  assert.equal(ended.value, false, 'the unsubscribed call neither completed nor errored');
  const [call] = requestsOf(pair.clientSent, 'tools/call');
  assert.equal(paramsOf(notificationsOf(pair.clientSent, 'notifications/cancelled')[0])['requestId'], call?.['id'], 'the client cancelled its call');
  assert.deepEqual(answersTo(pair.serverSent, call?.['id']), [], 'the server never answered the cancelled call');

  const [pending] = requestsOf(pair.serverSent, method);
  const serverCancels = notificationsOf(pair.serverSent, 'notifications/cancelled');
  assert.deepEqual(serverCancels.map((message) => paramsOf(message)['requestId']), [pending?.['id']], `the server cancelled its ${method} request`);
  assert.equal(stalled.length, 1);
  assert.equal(stalled[0]?.signal.aborted, true, `the client's ${method} handler was told to stop`);
  assert.deepEqual(answersTo(pair.clientSent, pending?.['id']), [], `the client did not answer the cancelled ${method}`);
  for (const session of [pair.session.session, pair.serverSession]) {
    assert.equal(mapsOf(session).incoming.size, 0, `${session.role}: no incoming request left`);
    assert.equal(mapsOf(session).outgoing.size, 0, `${session.role}: no outgoing request left`);
  }
  assert.equal(pair.server.sessions.size, 1, 'the session itself stays open');
  assert.equal(pair.serverSession.state, 'operating');
}

test('end to end - cancelled half-way while the handler waits in sampling: signal fires, sampling is cancelled, nothing leaks', async () => {
  const trace: Trace = { finished: false };
  const stalled: ClientRequestContext[] = [];
  const pair = await clientPair({ protocolVersion: '2025-11-25', client: stallingClient('sampling', stalled), setup: setupPlanner(trace) });
  const events: RequestEvent<CallToolResult>[] = [];
  const ended = { value: false };
  const subscription = pair.session.callTool$('plan_trip').subscribe({ next: (event) => events.push(event), error: () => (ended.value = true), complete: () => (ended.value = true) });

  await waitFor(() => stalled.length === 1, 'the client sampling handler to start');
  assert.ok(events.length >= 1 && events[0]?.type === 'progress', 'the first progress value arrived before the cancel');
  assert.equal(requestsOf(pair.serverSent, 'sampling/createMessage').length, 1, 'the handler waits in sampling');
  subscription.unsubscribe();
  await settle();

  assertCancelledCleanly(pair, trace, stalled, 'sampling/createMessage', events, ended);
  const sentAfterCancel = pair.serverSent.length;
  await settle();
  assert.equal(pair.serverSent.length, sentAfterCancel, 'the server stays quiet afterwards (no late progress, log or result)');
  await pair.finish();
});

test('end to end - cancelled at the very first progress value, racing the elicitation that follows it', async () => {
  const trace: Trace = { finished: false };
  const stalled: ClientRequestContext[] = [];
  const pair = await clientPair({ protocolVersion: '2025-11-25', client: stallingClient('elicitation', stalled), setup: setupPlanner(trace) });
  const events: RequestEvent<CallToolResult>[] = [];
  const ended = { value: false };
  const subscription = pair.session.callTool$('plan_trip').subscribe({
    next: (event) => {
      events.push(event);
      subscription.unsubscribe(); // at once, inside the first progress delivery
    },
    error: () => (ended.value = true),
    complete: () => (ended.value = true),
  });
  await settle();
  await settle();

  assert.deepEqual(events, [{ type: 'progress', progress: 1, total: 4, message: 'asking the user' }], 'exactly the first progress value, then nothing');
  assertCancelledCleanly(pair, trace, stalled, 'elicitation/create', events, ended);
  assert.deepEqual(requestsOf(pair.serverSent, 'roots/list'), [], 'the handler went no further');
  assert.ok(!methodsOf(pair.serverSent).includes('sampling/createMessage'));
  await pair.finish();
});

test('end to end - closing the client mid-call ends the handler, fails nothing twice, and the server forgets the session', async () => {
  const trace: Trace = { finished: false };
  const stalled: ClientRequestContext[] = [];
  const pair = await clientPair({ protocolVersion: '2025-11-25', client: stallingClient('sampling', stalled), setup: setupPlanner(trace) });
  let failure: unknown;
  pair.session.callTool('plan_trip').catch((error: unknown) => (failure = error));
  await waitFor(() => stalled.length === 1, 'the client sampling handler to start');

  await pair.session.close();
  await settle();
  // The closing client answers the sampling request it was still running (one error naming its shutdown), then
  // ends its session. Over memory the server sees the end first and aborts the handler; over a bus the answer may
  // come first and the handler ends by that error. Either way the handler ends and nothing is answered twice.
  // The close's effects follow on the server's own schedule: wait for them, boundedly, then check them all.
  const handlerEnded = (): boolean => trace.signal?.aborted === true || trace.failure !== undefined;
  await waitFor(() => handlerEnded() && pair.server.sessions.size === 0, 'the server to see the close', 5000);
  assert.ok(isLocalError(failure, 'ConnectionClosed'), `the pending call failed with ConnectionClosed, got ${String(failure)}`);
  assert.equal(trace.finished, false, 'the handler did not run to its end');
  if (trace.signal?.aborted !== true) {
    assert.match(String((trace.failure as { message?: unknown } | undefined)?.message), /shut down before sampling\/createMessage/, "the handler ended by the client's shutdown answer");
  }
  assert.equal(stalled[0]?.signal.aborted, true, "the client's sampling handler was stopped by the close");
  assert.equal(pair.serverSession.state, 'closed');
  assert.equal(pair.server.sessions.size, 0, 'the server forgot the session');
  assert.ok(answersTo(pair.serverSent, requestsOf(pair.clientSent, 'tools/call')[0]?.['id']).length <= 1, 'the call was answered at most once');
  assert.equal(answersTo(pair.clientSent, requestsOf(pair.serverSent, 'sampling/createMessage')[0]?.['id']).length, 1, 'the sampling request got exactly one answer');
  await pair.finish();
});
