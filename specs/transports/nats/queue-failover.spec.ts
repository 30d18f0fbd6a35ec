/**
 * Failover between real server processes serving one name on a real nats-server: a process is SIGKILLed
 * under load.
 * - Modern era: requests spread over the queue group; once the death is visible every new request goes to a
 *   survivor; requests that were running on the dead process end with a clear error within the client's
 *   silence bound, never a hang.
 * - Legacy era: sessions are pinned to the process that answered initialize; the sessions of the dead one are
 *   taken over by survivors at their next request, without a new initialize; the request that was running on
 *   the dead process fails with PeerUnresponsive within silenceMs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
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

const KEEPALIVE_MS = 200;
const SILENCE_MS = 1500;
/**
 * How late a silent request may fail: silenceMs, plus the client's silence check period, plus scheduling (generous:
 * a loaded CI machine was seen to need more than a second; the spec is about failing, not about how fast).
 */
const SILENCE_BOUND_MS = SILENCE_MS + 3000;
const CALL_TIMEOUT_MS = 8000;
const CLEAR_ERRORS = new Set(['PeerUnresponsive', 'TransportFailed']);

let nats: NatsServerProcess;
const connections: NatsConnection[] = [];
const clients: NatsClient[] = [];

const NAME = 'failover';
/** The processes serving NAME; a test that kills one leaves the survivors to the next. */
let processes: ServerProcess[] = [];

/** Three living processes (starting only as many as are missing: a start costs seconds). */
async function threeProcesses(): Promise<ServerProcess[]> {
  const living = processes.filter((p) => !p.dead());
  const started = await Promise.all(Array.from({ length: 3 - living.length }, () => startServerProcess(nats.url, NAME, { KEEPALIVE_MS: String(KEEPALIVE_MS) })));
  processes = [...living, ...started];
  return processes;
}

async function clientConnection(label: string): Promise<NatsConnection> {
  const connection = await natsConnection(nats.url, label);
  connections.push(connection);
  return connection;
}

describe('NATS queue failover: a server process dies under load', { timeout: 60_000 }, () => {
  before(async () => {
    nats = await startNatsServer();
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await stopAll();
    await nats.dispose();
  });

  test('modern era: new requests go to survivors, requests on the dead process end clearly', { timeout: 40_000 }, async (t) => {
    const processes = await threeProcesses();
    const connection = await clientConnection('modern-client');
    const client = await connectClient(connection, NAME, 'modern', SILENCE_MS);
    clients.push(client);

    // Echoes and slow calls (150..550 ms, several keepalives each), so calls are in flight on every process.
    const load = startLoad(8, 2000, 20_000, (n) =>
      n % 3 === 0 ? timedCall(client.session, 'echo', { text: `call ${n}` }, CALL_TIMEOUT_MS) : timedCall(client.session, 'slow', { ms: 150 + ((n * 37) % 400) }, CALL_TIMEOUT_MS),
    );
    try {
      await until(() => load.outcomes.length >= 30 && new Set(load.outcomes.flatMap((o) => (o.ok ? [o.pid] : []))).size >= 2, 'two processes answered', 10_000);
      const before = new Set(load.outcomes.flatMap((o) => (o.ok ? [o.pid] : [])));
      // The victim is one that answered, so calls are likely in flight on it.
      const victim = processes.find((p) => before.has(p.pid)) as ServerProcess;
      const killedAt = Date.now();
      await victim.kill();
      // Visible: the child's 'exit' event, and nats-server no longer routes to it (it answers its ping subject with
      // no responders; that takes a few ms at most, but the two events come from different processes).
      await awaitGoneFromNats(connection, NAME, victim.processId);
      const visibleAt = Date.now();
      // Long enough for the calls stranded on the victim to reach their silence bound, and for plenty of new calls.
      await sleep(SILENCE_BOUND_MS + 500);
      load.stop();
      await load.done;

      const outcomes = load.outcomes;
      const failed = outcomes.filter((o): o is Outcome & { ok: false } => !o.ok);
      const after = outcomes.filter((o) => o.sentAt > visibleAt);
      const finishedBefore = outcomes.filter((o) => o.sentAt + o.ms < killedAt);
      const stranded = outcomes.filter((o) => o.sentAt < killedAt && o.sentAt + o.ms >= killedAt);
      t.diagnostic(`${outcomes.length} calls; ${finishedBefore.length} finished before the kill over pids ${[...before].join(',')}; victim ${victim.pid}; ${stranded.length} in flight (on any process) at the kill; ${failed.length} failed; ${after.length} sent after the kill was visible (${visibleAt - killedAt} ms after the kill)`);
      for (const o of failed) t.diagnostic(`failed: ${describeOutcome(o)}`);

      assert.ok(before.size >= 2, `the load spread over at least two processes before the kill (${[...before].join(',')})`);
      assert.ok(after.length >= 20, `enough calls were sent after the kill to mean something (${after.length})`);
      const badAfter = after.filter((o) => !o.ok || o.pid === victim.pid);
      assert.deepEqual(badAfter.map(describeOutcome), [], 'every call sent after the kill was visible succeeded on a survivor');
      for (const o of failed) {
        assert.ok(o.sentAt <= visibleAt, `only calls sent before the kill was visible fail: ${describeOutcome(o)}`);
        assert.ok(CLEAR_ERRORS.has(o.code), `a stranded call fails with a clear error: ${describeOutcome(o)}`);
        assert.ok(o.sentAt + o.ms - killedAt <= SILENCE_BOUND_MS, `a stranded call fails within silenceMs of the kill: ${describeOutcome(o)}`);
      }
      // Nothing hung: every call finished well inside its own timeout.
      for (const o of outcomes) assert.ok(o.ms < CALL_TIMEOUT_MS, `no call waited for its timeout: ${describeOutcome(o)}`);
      assert.equal(client.sent.filter((method) => method === 'server/discover').length, 1, 'the client did not reconnect');
    } finally {
      load.stop();
      await load.done;
    }
  });

  test('legacy era: sessions of the dead process are taken over without a new initialize', { timeout: 40_000 }, async (t) => {
    const processes = await threeProcesses();
    const connection = await clientConnection('legacy-clients');
    const sessions = await Promise.all(Array.from({ length: 6 }, () => connectClient(connection, NAME, 'legacy', SILENCE_MS)));
    clients.push(...sessions);

    // Who owns each session: the process that answered initialize, every time.
    const owners: number[] = [];
    for (const [i, client] of sessions.entries()) {
      const first = await timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS);
      const second = await timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS);
      assert.ok(first.ok && second.ok, `session ${i} answers: ${describeOutcome(first)}; ${describeOutcome(second)}`);
      assert.equal(second.pid, first.pid, `session ${i} is pinned to one process`);
      owners.push(first.pid);
    }
    const sessionIds = sessions.map((client) => client.transport.sessionId);
    assert.ok(sessionIds.every((id) => typeof id === 'string' && id.length > 0), 'every session has an id');
    // The victim is the process that owns the most sessions (at least one).
    const counts = processes.map((p) => owners.filter((pid) => pid === p.pid).length);
    const victim = processes[counts.indexOf(Math.max(...counts))] as ServerProcess;
    const orphans = owners.flatMap((pid, i) => (pid === victim.pid ? [i] : []));
    t.diagnostic(`owners ${owners.join(',')}; victim ${victim.pid} owns sessions ${orphans.join(',')}`);

    // A request in flight on the victim at the kill.
    const stranded = sessions[orphans[0] as number] as NatsClient;
    const slow = timedCall(stranded.session, 'slow', { ms: 10_000 }, 15_000);
    // Long enough for it to run there (several keepalives).
    await sleep(3 * KEEPALIVE_MS);
    const killedAt = Date.now();
    await victim.kill();

    const outcome: Outcome = await slow;
    t.diagnostic(`in flight at the kill: ${describeOutcome(outcome)}`);
    assert.ok(!outcome.ok, 'the request running on the dead process does not succeed');
    assert.equal(outcome.code, 'PeerUnresponsive', `it fails with PeerUnresponsive: ${describeOutcome(outcome)}`);
    assert.ok(outcome.sentAt + outcome.ms - killedAt <= SILENCE_BOUND_MS, `it fails within silenceMs of the kill: ${describeOutcome(outcome)}`);

    // Every session goes on, all at once, three requests each: the survivors race to adopt each orphan, and
    // exactly one of them must end up serving it.
    const later = await Promise.all(sessions.map((client) => Promise.all([0, 1, 2].map(() => timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS)))));
    const again = await Promise.all(sessions.map((client) => timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS)));
    t.diagnostic(`after the kill: ${later.map((outcomes) => outcomes.map((o) => (o.ok ? o.pid : o.code)).join('/')).join(', ')}`);
    for (const [i, client] of sessions.entries()) {
      const concurrent = later[i] as Outcome[];
      const next = again[i] as Outcome;
      for (const o of [...concurrent, next]) assert.ok(o.ok, `session ${i} answers after the kill: ${describeOutcome(o)}`);
      const pids = new Set(concurrent.map((o) => (o.ok ? o.pid : 0)));
      assert.equal(pids.size, 1, `session ${i} is served by one process after the kill (${[...pids].join(',')})`);
      const pid = [...pids][0];
      assert.notEqual(pid, victim.pid, `session ${i} is served by a living process`);
      if (owners[i] !== victim.pid) assert.equal(pid, owners[i], `session ${i} (not the victim's) stays with its process`);
      assert.equal(next.ok ? next.pid : 0, pid, `session ${i} is pinned to its new owner`);
      assert.equal(client.transport.sessionId, sessionIds[i], `session ${i} keeps its id`);
      assert.deepEqual(client.sent.filter((method) => method === 'initialize'), ['initialize'], `session ${i} never initialized again`);
    }
  });
});
