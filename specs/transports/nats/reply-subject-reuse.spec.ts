/**
 * The NATS client reuses the reply subject of a request that got its own answer (so nats-server's per-connection
 * memory of where a subject goes keeps serving a client's answers), and only such a one: a request that ended any
 * other way keeps its subject out of use, and what still comes to a reused subject for an earlier request (a second
 * answer, a late notification) never passes for the new request's answer.
 *
 * Against a real nats-server, with a hand-driven responder on the call subjects standing in for a server process,
 * so the spec decides what is answered, when, and on which subject.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Msg, headers } from '@nats-io/transport-node';
import { ReplyTokens } from '../../../transports/nats/client/reply-token.ts';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { eventually } from '../../support/harness.ts';
import { SERVER_NAME, handAnswered, natsFixture, watchFrames } from './nats-fixture.ts';

const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const call = (id: number | string): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: envelope } });
const answer = (id: number | string, text: string): Uint8Array => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], resultType: 'complete' } }));

test('reply tokens - fresh ones count up, given-back ones are reused last first, and at most 4,096 are kept', () => {
  const tokens = new ReplyTokens('_INBOX.x.r.');
  assert.deepEqual([tokens.take(), tokens.take(), tokens.take()], [0, 1, 2]);
  tokens.release(0);
  tokens.release(2);
  assert.deepEqual([tokens.take(), tokens.take(), tokens.take()], [2, 0, 3]);
  const many = new ReplyTokens('_INBOX.y.r.');
  const taken = Array.from({ length: 5000 }, () => many.take());
  for (const token of taken) many.release(token);
  const reused = Array.from({ length: 4097 }, () => many.take());
  assert.equal(new Set(reused.slice(0, 4096)).size, 4096, 'the kept tokens come back once each');
  assert.equal(reused[4096], 5000, 'past the kept ones, a never-used token');
});

test('nats client - a request answered in full gives its reply subject to the next; one that ended otherwise does not', async () => {
  await using fixture = await natsFixture({ jetstream: false });
  const seen = await handAnswered(await fixture.connection());
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: 300 });
  const { frames, messages } = watchFrames(transport);
  const request = async (id: number): Promise<Msg> => {
    const before = seen.length;
    await transport.send({ payload: call(id) as never });
    await eventually(() => seen.length > before, 2000, `request ${id} at the responder`);
    return seen[seen.length - 1] as Msg;
  };

  try {
    // Answered one after another: every request goes out with the same reply subject.
    const replies: string[] = [];
    for (const id of [1, 2, 3]) {
      const msg = await request(id);
      replies.push(msg.reply as string);
      msg.respond(answer(id, `answer ${id}`));
      await eventually(() => messages().some((message) => message['id'] === id), 2000, `the answer to ${id}`);
    }
    assert.equal(new Set(replies).size, 1, `one reply subject for answered requests in turn: ${replies.join(', ')}`);

    // Unanswered until the client's silence limit: its subject is not handed out again, and a late answer there
    // reaches nobody as an answer.
    const silent = await request(4);
    await eventually(() => frames.some((frame) => frame.type === 'undeliverable'), 2000, 'the silence limit of request 4');
    const next = await request(5);
    assert.notEqual(next.reply, silent.reply, 'a request that timed out keeps its reply subject out of use');
    silent.respond(answer(4, 'too late'));
    next.respond(answer(5, 'answer 5'));
    await eventually(() => messages().some((message) => message['id'] === 5), 2000, 'the answer to 5');
    assert.equal(messages().some((message) => message['id'] === 4), false, 'the late answer to 4 is dropped');

    // Request 5's subject is reused by 6. A second answer to 5 arriving there now is not 6's answer: 6 stays in
    // flight and gets its own.
    const sixth = await request(6);
    assert.equal(sixth.reply, next.reply, 'the subject of the answered request 5 is reused');
    sixth.respond(answer(5, 'a second answer to 5'));
    sixth.respond(answer(6, 'answer 6'));
    await eventually(() => messages().some((message) => message['id'] === 6), 2000, 'the answer to 6');
    const six = messages().filter((message) => message['id'] === 6);
    assert.deepEqual(six.map((message) => (message['result'] as { content: Array<{ text: string }> }).content[0]?.text), ['answer 6']);
    const seventh = await request(7);
    assert.equal(seventh.reply, sixth.reply, 'request 6 ended with its own answer, not with the stray one');
    seventh.respond(answer(7, 'answer 7'));
    await eventually(() => messages().some((message) => message['id'] === 7), 2000, 'the answer to 7');
  } finally {
    await transport.close();
  }
});

test('nats client - a cancelled modern request keeps its reply subject out of use', async () => {
  await using fixture = await natsFixture({ jetstream: false });
  const seen = await handAnswered(await fixture.connection());
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME });
  const { messages } = watchFrames(transport);
  try {
    await transport.send({ payload: call('a') as never });
    await eventually(() => seen.length === 1, 2000, 'request a at the responder');
    await transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a', _meta: envelope } } as never });
    await transport.send({ payload: call('b') as never });
    await eventually(() => seen.length === 2, 2000, 'request b at the responder');
    const [first, second] = seen as [Msg, Msg];
    assert.notEqual(second.reply, first.reply);
    // The cancelled request's server answers anyway: the client was told nothing more comes for it, and b is not
    // ended by it.
    first.respond(answer('a', 'answered after the cancel'));
    second.respond(answer('b', 'answer b'));
    await eventually(() => messages().some((message) => message['id'] === 'b'), 2000, 'the answer to b');
    assert.equal(messages().some((message) => message['id'] === 'a'), false);
  } finally {
    await transport.close();
  }
});

test('nats client - a request ended by an id-less refusal, or cancelled in a legacy session, keeps its reply subject out of use', async () => {
  await using fixture = await natsFixture({ jetstream: false });
  const seen = await handAnswered(await fixture.connection(), `mcp.${SERVER_NAME}.>`);
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME });
  const { messages } = watchFrames(transport);
  const requests = (): Msg[] => seen.filter((msg) => msg.reply?.includes('.r.') === true);
  try {
    // A legacy session: the responder answers initialize with a session id, and requests go to its subject.
    await transport.send({ payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } } } as never });
    await eventually(() => requests().length === 1, 2000, 'initialize at the responder');
    const hello = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '0' } } }));
    const withSession = headers();
    withSession.set('Mcp-Session-Id', 'sess1');
    (requests()[0] as Msg).respond(hello, { headers: withSession });
    await eventually(() => transport.sessionId === 'sess1', 2000, 'the session');

    // Refused without an id: the request ends, its subject stays out of use.
    await transport.send({ payload: { jsonrpc: '2.0', id: 1, method: 'ping' } as never });
    await eventually(() => requests().length === 2, 2000, 'request 1');
    const refused = requests()[1] as Msg;
    assert.equal(refused.subject, `mcp.${SERVER_NAME}.s.sess1`);
    assert.equal(refused.reply, requests()[0]?.reply, 'initialize was answered in full: its subject is reused');
    refused.respond(Buffer.from(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'refused' } })));
    await eventually(() => messages().some((message) => 'error' in message), 2000, 'the refusal');

    // Cancelled: the server's last words may still come, so its subject stays out of use too.
    await transport.send({ payload: { jsonrpc: '2.0', id: 2, method: 'ping' } as never });
    await eventually(() => requests().length === 3, 2000, 'request 2');
    await transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } } as never });
    const cancelled = requests()[2] as Msg;
    cancelled.respond(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 2, result: {} })));
    await eventually(() => messages().some((message) => message['id'] === 2), 2000, 'the answer to the cancelled request');

    await transport.send({ payload: { jsonrpc: '2.0', id: 3, method: 'ping' } as never });
    await eventually(() => requests().length === 4, 2000, 'request 3');
    const third = requests()[3] as Msg;
    assert.notEqual(third.reply, refused.reply, 'the refused request keeps its subject out of use');
    assert.notEqual(third.reply, cancelled.reply, 'the cancelled request keeps its subject out of use');
  } finally {
    await transport.close();
  }
});
