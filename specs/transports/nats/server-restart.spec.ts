/**
 * The nats-server itself dies under load and comes back (same port, same JetStream file store). Clients and
 * server processes hold NATS connections that reconnect. Nothing may hang: every call ends, with its result or
 * a clear error, inside its bound; once every connection is back, calls succeed again in both eras; legacy
 * sessions go on with the same session id and no new initialize, and their records (JetStream KV on file)
 * survived the restart: a process that dies afterwards has its sessions taken over from those records.
 *
 * What a request sent during the outage meets: nats.js discards what was published while it was disconnected
 * (it resets its outbound buffer on every reconnect attempt), so neither the request nor any answer arrives,
 * and the client ends it by its silence bound (PeerUnresponsive), like a call stranded on the dead server.
 *
 * @serial: kills the nats-server and starts it again on the same port (free to any other process meanwhile), and bounds each broken call's failure in wall-clock time
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import {
  type NatsClient,
  type Outcome,
  type ServerProcess,
  awaitGoneFromNats,
  connectClient,
  describeOutcome,
  natsConnection,
  sleep,
  startLoad,
  startServerProcess,
  stopAll,
  timedCall,
  until,
} from './nats-processes.ts';

const NAME = 'restart';
const KEEPALIVE_MS = 200;
const SILENCE_MS = 1500;
const CALL_TIMEOUT_MS = 5000;
/** The longest slow call of the load. */
const SLOW_MAX_MS = 300;
/** How late a call the outage broke may fail: its own run, silenceMs, the client's silence check period, scheduling. */
const FAIL_BOUND_MS = SLOW_MAX_MS + SILENCE_MS + 1000;
/** How long nats-server stays dead. */
const OUTAGE_MS = 2500;
const CLEAR_ERRORS = new Set(['PeerUnresponsive', 'TransportFailed', 'ConnectionClosed']);

let nats: NatsServerProcess;
let connection: NatsConnection;
const clients: NatsClient[] = [];

/** Events of a NATS connection, with when they happened. */
function watchStatus(watched: NatsConnection): { readonly events: { readonly type: string; readonly at: number }[] } {
  const events: { type: string; at: number }[] = [];
  void (async () => {
    for await (const status of watched.status()) events.push({ type: status.type, at: Date.now() });
  })();
  return { events };
}

describe('NATS: nats-server killed and restarted under load', { timeout: 60_000 }, () => {
  before(async () => {
    nats = await startNatsServer();
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await connection?.close().catch(() => undefined);
    await stopAll();
    await nats.dispose();
  });

  test('no call hangs, traffic resumes, legacy sessions and their records survive', { timeout: 50_000 }, async (t) => {
    const processes: ServerProcess[] = await Promise.all([0, 1].map(() => startServerProcess(nats.url, NAME, { KEEPALIVE_MS: String(KEEPALIVE_MS) })));
    connection = await natsConnection(nats.url, 'restart-clients');
    const status = watchStatus(connection);
    const modern = await connectClient(connection, NAME, 'modern', SILENCE_MS);
    const legacy = await Promise.all(Array.from({ length: 4 }, () => connectClient(connection, NAME, 'legacy', SILENCE_MS)));
    clients.push(modern, ...legacy);
    const owners: number[] = [];
    for (const client of legacy) {
      const outcome = await timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS);
      assert.ok(outcome.ok, describeOutcome(outcome));
      owners.push(outcome.pid);
    }
    const sessionIds = legacy.map((client) => client.transport.sessionId as string);
    t.diagnostic(`legacy owners ${owners.join(',')}`);

    // Both eras at once: 4 modern workers, and 4 legacy workers taking turns over the sessions.
    const call = (client: NatsClient, n: number): Promise<Outcome> =>
      n % 2 === 0 ? timedCall(client.session, 'echo', { text: `call ${n}` }, CALL_TIMEOUT_MS) : timedCall(client.session, 'slow', { ms: SLOW_MAX_MS - ((n * 53) % 200) }, CALL_TIMEOUT_MS);
    const modernLoad = startLoad(4, 3000, 30_000, (n) => call(modern, n));
    const legacyLoad = startLoad(4, 3000, 30_000, (n) => call(legacy[n % legacy.length] as NatsClient, n));
    try {
      await sleep(800);
      const killedAt = Date.now();
      await nats.kill();
      await sleep(OUTAGE_MS);
      await nats.start();
      const restartedAt = Date.now();
      // Traffic can resume once every connection is back: the client's and both server processes'.
      await until(
        () => status.events.some((e) => e.type === 'reconnect') && processes.every((p) => p.lines().includes('nats reconnect')),
        'every NATS connection reconnected',
        10_000,
      );
      const resumedAt = Date.now();
      t.diagnostic(`killed at 0, restarted at ${restartedAt - killedAt} ms, every connection back at ${resumedAt - killedAt} ms`);
      await sleep(2000);
      modernLoad.stop();
      legacyLoad.stop();
      await Promise.all([modernLoad.done, legacyLoad.done]);

      for (const [era, load] of [['modern', modernLoad], ['legacy', legacyLoad]] as const) {
        const outcomes = load.outcomes;
        const failed = outcomes.filter((o) => !o.ok);
        const later = outcomes.filter((o) => o.sentAt > resumedAt);
        t.diagnostic(`${era}: ${outcomes.length} calls, ${failed.length} failed, ${later.length} sent after every connection was back`);
        for (const o of failed) t.diagnostic(`${era} failed (sent at ${o.sentAt - killedAt} ms): ${describeOutcome(o)}`);
        // Nothing hung: every call ended before its own timeout, with a result or a clear error.
        for (const o of outcomes) assert.ok(o.ms < CALL_TIMEOUT_MS, `${era}: no call waited for its timeout: ${describeOutcome(o)}`);
        for (const o of failed) {
          assert.ok(CLEAR_ERRORS.has(o.code), `${era}: a call the outage broke fails with a clear error: ${describeOutcome(o)}`);
          assert.ok(o.ms <= FAIL_BOUND_MS, `${era}: a call the outage broke fails within the silence bound: ${describeOutcome(o)}`);
        }
        assert.ok(outcomes.some((o) => o.ok && o.sentAt + o.ms < killedAt), `${era}: calls succeeded before the kill`);
        assert.ok(later.length >= 10, `${era}: enough calls after the restart to mean something (${later.length})`);
        assert.deepEqual(later.filter((o) => !o.ok).map(describeOutcome), [], `${era}: every call sent once the connections were back succeeded`);
      }

      // Legacy sessions: the same ids, no new initialize, each served by one process. (Normally its owner; a
      // session may legitimately have moved if a request of it came while its owner was still reconnecting, but
      // then every answer must come from the new owner: answers from two processes are the split brain of
      // partition-takeover.spec.ts.)
      const servedBy: number[] = [];
      for (const [i, client] of legacy.entries()) {
        const pids = new Set<number>();
        for (let n = 0; n < 5; n++) {
          const outcome = await timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS);
          assert.ok(outcome.ok, `legacy session ${i} works after the restart: ${describeOutcome(outcome)}`);
          pids.add(outcome.pid);
        }
        assert.equal(pids.size, 1, `legacy session ${i} is served by one process after the restart (answers from ${[...pids].join(' and ')})`);
        servedBy.push([...pids][0] as number);
        assert.equal(client.transport.sessionId, sessionIds[i], `legacy session ${i} keeps its id`);
        assert.deepEqual(client.sent.filter((method) => method === 'initialize'), ['initialize'], `legacy session ${i} never initialized again`);
      }
      t.diagnostic(`legacy sessions served after the restart by ${servedBy.join(',')} (before: ${owners.join(',')})`);
      assert.deepEqual(modern.sent.filter((method) => method === 'server/discover'), ['server/discover'], 'the modern client did not reconnect at the MCP level');

      // The records survived the restart: they are in the KV bucket, and a takeover works from them.
      const kv = await new Kvm(connection).create(`mcp_sessions_${NAME}`);
      for (const [i, sessionId] of sessionIds.entries()) {
        const entry = await kv.get(sessionId);
        assert.ok(entry !== null && entry.operation === 'PUT', `the record of legacy session ${i} survived the restart`);
      }
      const victim = processes.find((p) => servedBy.includes(p.pid)) as ServerProcess;
      await victim.kill();
      // The child's exit is not nats-server dropping its subscriptions: a call sent before that would still be
      // routed to the dead process's queue subscription and wait for its silence bound.
      await awaitGoneFromNats(connection, NAME, victim.processId);
      for (const [i, client] of legacy.entries()) {
        const outcome = await timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS);
        assert.ok(outcome.ok, `legacy session ${i} works after its owner died: ${describeOutcome(outcome)}`);
        assert.notEqual(outcome.pid, victim.pid, `legacy session ${i} is served by the survivor`);
        assert.deepEqual(client.sent.filter((method) => method === 'initialize'), ['initialize'], `legacy session ${i} never initialized again`);
      }
    } finally {
      modernLoad.stop();
      legacyLoad.stop();
      await Promise.all([modernLoad.done, legacyLoad.done]);
    }
  });
});
