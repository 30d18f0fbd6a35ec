/**
 * The client reads the token of an answer's reply subject (`<inbox>.r.<token>`) from the subject bytes nats.js
 * received, against a real nats-server: the same token the subject's text names, nothing for the inbox's other
 * subjects or a token the client cannot have written, and without nats.js decoding the subject.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Msg, connect } from '@nats-io/transport-node';
import { ReplyTokens } from '../../../transports/nats/client/reply-token.ts';
import { startNatsServer } from '../../support/nats-server.ts';

/** Whether nats.js decoded the subject itself (its `msg.subject` caches what it decoded). */
const decodedByNats = (msg: Msg): boolean => (msg as unknown as { readonly _subject?: unknown })._subject !== undefined;

test('reply tokens - read from the subject bytes, as the subject text names them', async () => {
  await using nats = await startNatsServer({ jetstream: false });
  const nc = await connect({ servers: nats.url });
  try {
    const inbox = `_INBOX.spec${process.pid}`;
    const tokens = new ReplyTokens(`${inbox}.r.`);
    const received: Msg[] = [];
    const subscription = nc.subscribe(`${inbox}.>`, { callback: (error, msg) => void (error === null && received.push(msg)) });
    await nc.flush();
    const tails: ReadonlyArray<readonly [string, number]> = [
      ['r.0', 0], ['r.7', 7], ['r.1234567', 1234567], ['r.999999999999999', 999999999999999],
      // Not a token this client writes: a leading zero, a letter, too many digits, nothing.
      ['r.007', -1], ['r.12a', -1], ['r.1234567890123456', -1], ['r.x', -1],
      // The inbox's other subjects.
      ['n.3', -1], ['s', -1], ['q.r.5', -1], ['rr.5', -1],
    ];
    for (const [tail] of tails) nc.publish(`${inbox}.${tail}`, new Uint8Array(0));
    await nc.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    subscription.unsubscribe();
    assert.equal(received.length, tails.length);
    for (const [i, [tail, expected]] of tails.entries()) {
      const msg = received[i] as Msg;
      assert.equal(tokens.of(msg), expected, tail);
      assert.equal(decodedByNats(msg), false, `${tail}: read through msg.subject`);
      assert.equal(tokens.of({ subject: msg.subject } as unknown as Msg), expected, `${tail}: a message without the bytes`);
    }
    assert.equal(tokens.subject(42), `${inbox}.r.42`);
    assert.equal(tokens.of({ subject: tokens.subject(42) } as unknown as Msg), 42);
  } finally {
    await nc.close();
  }
});
