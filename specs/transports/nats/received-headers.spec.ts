/**
 * How the binding reads and writes NATS headers on its hot paths, against a real nats-server: a received
 * message's header block is read once, straight from the block nats.js received (not through its `msg.headers`),
 * and answers exactly what nats.js would; status messages and hand-made messages go through nats.js; shared
 * header sets are encoded once and cannot change; a server reads each distinct block once (header-blocks.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Msg, type MsgHdrs, connect, headers as natsHeaders } from '@nats-io/transport-node';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { checkStandardHeaders, type MirroredMessage, PROTOCOL_VERSION_META_KEY } from '../../../core/protocol/header-mirror.ts';
import { HeaderBlocks } from '../../../transports/nats/header-blocks.ts';
import { headerOf, ReceivedHeaders, SealedHeaders } from '../../../transports/nats/headers.ts';
import { startNatsServer } from '../../support/nats-server.ts';

/** Whether nats.js decoded the message's headers itself (its `msg.headers` caches what it decoded). */
const decodedByNats = (msg: Msg): boolean => (msg as unknown as { readonly _headers?: unknown })._headers !== undefined;

test('received headers - read from the block as nats.js reads them, without nats.js decoding them', async () => {
  await using nats = await startNatsServer({ jetstream: false });
  const nc = await connect({ servers: nats.url });
  try {
    const received: Msg[] = [];
    const subscription = nc.subscribe('hdr.>', { callback: (error, msg) => void (error === null && received.push(msg)) });
    const sent: Array<MsgHdrs | undefined> = [];
    const withHeaders = (entries: ReadonlyArray<readonly [string, string]>): MsgHdrs => {
      const made = natsHeaders();
      for (const [name, value] of entries) made.append(name, value);
      return made;
    };
    sent.push(undefined);
    sent.push(withHeaders([['Mcp-Method', 'tools/call'], ['Mcp-Name', 'echo'], ['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Lane', 'abc_DEF-123']]));
    // Two values of one name (the first counts), an empty value, a value with inner spaces and a colon, names that
    // differ only in case (both kept, the exact one found by get; the last one by the case-insensitive lookup).
    sent.push(withHeaders([['Mcp-Session-Id', 'first'], ['Mcp-Session-Id', 'second'], ['Mcp-Frame', ''], ['X-Note', 'a b: c'], ['mcp-name', 'lower'], ['Mcp-Name', 'upper']]));
    sent.push(withHeaders([['Mcp-Identity', `eyJ${'x'.repeat(900)}.${'y'.repeat(300)}`], ['Content-Type', 'application/msgpack']]));
    for (const [i, headers] of sent.entries()) nc.publish(`hdr.${i}`, new Uint8Array([i]), headers === undefined ? undefined : { headers });
    await nc.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    subscription.unsubscribe();
    assert.equal(received.length, sent.length);

    const names = ['Mcp-Method', 'Mcp-Name', 'mcp-name', 'MCP-Protocol-Version', 'Mcp-Lane', 'Mcp-Session-Id', 'Mcp-Frame', 'X-Note', 'Mcp-Identity', 'Content-Type', 'Absent'];
    for (const msg of received) {
      const read = ReceivedHeaders.of(msg);
      // The fast path was taken: nats.js's own decoding never ran (were it to change its message, this says so).
      assert.equal(decodedByNats(msg), false, `${msg.subject}: read through msg.headers`);
      assert.equal(read.code, 0);
      for (const name of names) assert.equal(read.get(name), headerOf(msg.headers, name), `${msg.subject}: ${name}`);
      // The case-insensitive lookup (the mirror checks), against a fold of what nats.js decoded.
      const folded = new Map<string, string>();
      for (const [name, values] of msg.headers ?? []) if (values[0] !== undefined) folded.set(name.toLowerCase(), values[0]);
      for (const name of names) assert.equal(read.lookup(name.toLowerCase()), folded.get(name.toLowerCase()), `${msg.subject}: lookup ${name}`);
    }
    const mixed = ReceivedHeaders.of(received[2] as Msg);
    assert.equal(mixed.get('Mcp-Session-Id'), 'first', 'the first of two values');
    assert.equal(mixed.get('Mcp-Frame'), undefined, 'an empty value reads as absent');
    assert.equal(mixed.lookup('mcp-frame'), '', 'but the mirror checks see it');
    assert.equal(mixed.get('X-Note'), 'a b: c');
    assert.equal(mixed.get('mcp-name'), 'lower');
    assert.equal(mixed.get('Mcp-Name'), 'upper');
  } finally {
    await nc.close();
  }
});

test('received headers - a status message (no responders) and a hand-made message go through nats.js', async () => {
  await using nats = await startNatsServer({ jetstream: false });
  const nc = await connect({ servers: nats.url });
  try {
    const inbox = `_INBOX.spec-${process.pid}`;
    const status = new Promise<Msg>((resolve) => nc.subscribe(inbox, { max: 1, callback: (error, msg) => void (error === null && resolve(msg)) }));
    await nc.flush();
    nc.publish('nobody.listens.here', new Uint8Array(0), { reply: inbox });
    const noResponders = ReceivedHeaders.of(await status);
    assert.equal(noResponders.code, 503);

    const headers = natsHeaders();
    headers.set('Mcp-Lane', 'by-hand');
    const byHand = ReceivedHeaders.of({ headers, subject: 'x', data: new Uint8Array(0) } as unknown as Msg);
    assert.equal(byHand.get('Mcp-Lane'), 'by-hand');
    assert.equal(byHand.lookup('mcp-lane'), 'by-hand');
    assert.equal(ReceivedHeaders.of({ subject: 'x', data: new Uint8Array(0) } as unknown as Msg).get('Mcp-Lane'), undefined);
  } finally {
    await nc.close();
  }
});

test('sealed headers - encoded once, the same bytes as nats.js would send, and unchangeable', async () => {
  const sealed = new SealedHeaders({ 'Mcp-Method': 'tools/call', 'Content-Type': 'application/msgpack' });
  const plain = natsHeaders();
  plain.set('Mcp-Method', 'tools/call');
  plain.set('Content-Type', 'application/msgpack');
  assert.deepEqual(sealed.encode(), (plain as unknown as { encode(): Uint8Array }).encode());
  assert.equal(sealed.encode(), sealed.encode(), 'one encoding, reused');
  assert.throws(() => sealed.set('Mcp-Method', 'x'), TypeError);
  assert.throws(() => sealed.append('Mcp-Other', 'x'), TypeError);
  assert.throws(() => sealed.delete('Mcp-Method'), TypeError);
  assert.equal(sealed.get('Mcp-Method'), 'tools/call');

  await using nats = await startNatsServer({ jetstream: false });
  const nc = await connect({ servers: nats.url });
  try {
    const got = new Promise<Msg>((resolve) => nc.subscribe('sealed', { max: 1, callback: (error, msg) => void (error === null && resolve(msg)) }));
    await nc.flush();
    nc.publish('sealed', new Uint8Array([1]), { headers: sealed });
    nc.publish('sealed', new Uint8Array([2]), { headers: sealed });
    const msg = await got;
    assert.equal(ReceivedHeaders.of(msg).get('Content-Type'), 'application/msgpack');
    assert.equal(ReceivedHeaders.of(msg).get('Mcp-Method'), 'tools/call');
  } finally {
    await nc.close();
  }
});

test('header blocks - a server reads each distinct block once; the standard-header check is remembered per request shape', async () => {
  await using nats = await startNatsServer({ jetstream: false });
  const nc = await connect({ servers: nats.url });
  try {
    const received: Msg[] = [];
    const subscription = nc.subscribe('blocks.>', { callback: (error, msg) => void (error === null && received.push(msg)) });
    const set = (entries: Readonly<Record<string, string>>): MsgHdrs => {
      const made = natsHeaders();
      for (const [name, value] of Object.entries(entries)) made.set(name, value);
      return made;
    };
    const call = { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Lane': 'lane-1' };
    // The same block three times (two made apart, one shared), another block, a message without headers.
    const shared = set(call);
    const sends: Array<MsgHdrs | undefined> = [set(call), shared, shared, set({ ...call, 'Mcp-Name': 'other' }), undefined];
    for (const [i, headers] of sends.entries()) nc.publish(`blocks.${i}`, new Uint8Array([i]), headers === undefined ? undefined : { headers });
    await nc.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    subscription.unsubscribe();
    assert.equal(received.length, sends.length);

    const blocks = new HeaderBlocks();
    const [a, b, c, other, none] = received.map((msg) => blocks.of(msg)) as [ReceivedHeaders, ReceivedHeaders, ReceivedHeaders, ReceivedHeaders, ReceivedHeaders];
    assert.equal(a, b, 'the same bytes: the reader already made');
    assert.equal(b, c);
    assert.notEqual(a, other, 'other bytes: a reader of their own');
    for (const [i, read] of [a, b, c, other, none].entries()) {
      const msg = received[i] as Msg;
      for (const name of ['Mcp-Method', 'Mcp-Name', 'MCP-Protocol-Version', 'Mcp-Lane', 'Absent']) assert.equal(read.get(name), headerOf(msg.headers, name), `${msg.subject}: ${name}`);
    }
    assert.equal(none.get('Mcp-Method'), undefined);
    assert.equal(new HeaderBlocks().of(received[4] as Msg), ReceivedHeaders.of(received[4] as Msg), 'no headers: one shared empty reader');

    // The remembered check answers as checkStandardHeaders would, for each request shape in turn (a hit, then
    // bodies that disagree with the same headers, then the first shape again).
    const request = (name: unknown, version: unknown, method = 'tools/call'): MirroredMessage => ({ method, params: { name, arguments: {}, _meta: { [PROTOCOL_VERSION_META_KEY]: version } } as JsonObject });
    const shapes = [request('echo', '2026-07-28'), request('echo', '2026-07-28'), request('other', '2026-07-28'), request('echo', '2025-11-25'), request(7, '2026-07-28'), request('echo', undefined), request('echo', '2026-07-28', 'tools/list'), request('echo', '2026-07-28')];
    for (const shape of shapes) assert.deepEqual(a.checkStandard(shape), checkStandardHeaders(a.lookup, shape), JSON.stringify(shape));
    assert.equal(a.checkStandard(shapes[0] as MirroredMessage), undefined, 'the headers agree with the first shape');
    assert.equal(a.checkStandard(request('other', '2026-07-28'))?.header, 'Mcp-Name', 'a body naming another tool is caught after a remembered pass');
  } finally {
    await nc.close();
  }
});
