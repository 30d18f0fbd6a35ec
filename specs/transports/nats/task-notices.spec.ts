/**
 * Task notices across processes (transports/nats/task-notices.ts), against a real nats-server: servers in this
 * process, each with its own NATS connection and its own JetStream task store on one bucket, as separate
 * processes would have.
 *
 * - The feed itself: a notice reaches every other member following its task once (another server on the same
 *   store without a round trip, another process's store over NATS), never its publisher, and nothing once no
 *   interest in the task is left.
 * - A `subscriptions/listen` served by A hears `notifications/tasks` of a task whose handler runs on B: B alone
 *   served the call, then left the queue group (it keeps running the task), so A serves the listen.
 * - One task's status reaches its owner's listens on three processes (each serves a name of its own, so each
 *   listen is known to be on its process; the store is what they share), while another principal's listen,
 *   naming the same task, is agreed nothing and hears nothing; a notice published with another owner than the
 *   listener, or not well formed, is told to nobody.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import type { Subscription } from 'rxjs';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import type { AuthInfo } from '../../../core/auth.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { createServer } from '../../../server/create-server.ts';
import { type JetStreamTaskStore, type NatsServing, createIdentitySigner, createJetStreamTaskStore, createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type GatewayKeys, gatewayKeys } from './identity-keys.ts';
import { sleep, until } from './nats-processes.ts';

const BUCKET = 'notice_tasks';
const WAIT = 10_000;
/** How long a listen that should hear nothing is watched. */
const SILENCE_MS = 1000;

interface Heard {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

interface Process {
  readonly label: string;
  readonly serving: NatsServing;
  readonly store: JetStreamTaskStore;
  /** Lets the running `hold` tasks of this process finish. */
  release(): void;
}

const alice: AuthInfo = { principal: 'alice', scopes: [], claims: {} };
const mallory: AuthInfo = { principal: 'mallory', scopes: [], claims: {} };

let nats: NatsServerProcess;
let keys: GatewayKeys;
const connections: NatsConnection[] = [];
const processes: Process[] = [];
const sessions: ClientSession[] = [];
const subscriptions: Subscription[] = [];

async function open(label: string): Promise<NatsConnection> {
  const connection = await connect({ servers: nats.url, name: label });
  connections.push(connection);
  return connection;
}

/** A modern server serving `name`, whose tool `hold` runs as a task until {@link Process.release}. */
async function serve(label: string, name: string): Promise<Process> {
  const connection = await open(label);
  const store = await createJetStreamTaskStore({ connection, bucket: BUCKET, storage: 'memory', recheckMs: 300 });
  let releases: Array<() => void> = [];
  const server = createServer({ name: `notices-${label}`, version: '1.0.0', eras: 'modern', modern: { tasks: { store, pollIntervalMs: 200 } } });
  server.tool({ name: 'hold', execution: { taskSupport: 'required' } }, async () => {
    await new Promise<void>((resolve) => releases.push(resolve));
    return JSON.stringify({ ranOn: label });
  });
  const serving = await serveNats(server, { connection, name, identity: { keys: [keys.publicJwk] } });
  const process: Process = {
    label,
    serving,
    store,
    release: () => {
      const waiting = releases;
      releases = [];
      for (const resolve of waiting) resolve();
    },
  };
  processes.push(process);
  return process;
}

/** A modern client of `name` acting for `who` (its identity signed by the gateway key the servers trust). */
async function clientOf(name: string, who: AuthInfo): Promise<ClientSession> {
  const assertion = await createIdentitySigner({ key: keys.privateJwk }).assertionFor(who, `mcp.${name}`);
  const connection = await open(`client-${who.principal}-${name}`);
  const session = await createClient({ name: `notices-client-${who.principal}`, version: '1.0.0', era: 'modern', tasks: { listen: false } }).connect(
    createNatsClientTransport({ connection, name, identity: () => assertion }),
  );
  sessions.push(session);
  return session;
}

/** Starts a `hold` task and gives its id. */
async function startTask(session: ClientSession): Promise<string> {
  const created = await session.session.request('tools/call', { name: 'hold', arguments: {} });
  assert.equal(created['resultType'], 'task', 'the call became a task');
  return created['taskId'] as string;
}

/** Opens a listen for `taskIds`, waits for its acknowledgement, and gives what it heard so far and after. */
async function listen(session: ClientSession, taskIds: readonly string[]): Promise<{ readonly heard: Heard[]; readonly agreed: unknown }> {
  const heard: Heard[] = [];
  subscriptions.push(session.listen$({ taskIds: [...taskIds] }).subscribe({ next: (notification) => void heard.push(notification), error: () => undefined }));
  await until(() => heard.some((n) => n.method === 'notifications/subscriptions/acknowledged'), 'the listen is acknowledged', WAIT);
  const agreed = (heard[0]?.params['notifications'] as { taskIds?: unknown } | undefined)?.taskIds;
  return { heard, agreed };
}

function statuses(heard: readonly Heard[], taskId: string): unknown[] {
  return heard.filter((n) => n.method === 'notifications/tasks' && n.params['taskId'] === taskId).map((n) => n.params['status']);
}

describe('NATS: task notices reach listens on every process', { timeout: 90_000 }, () => {
  before(async () => {
    nats = await startNatsServer();
    keys = await gatewayKeys('notices');
  });

  after(async () => {
    for (const subscription of subscriptions) subscription.unsubscribe();
    await Promise.allSettled(sessions.map((session) => session.close()));
    for (const process of processes) process.release();
    await Promise.allSettled(processes.map((process) => process.serving.close('end', { drainMs: 0 })));
    for (const process of processes) process.store.close();
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await nats.dispose();
  });

  test('the feed: a notice is told once to every other member following its task, here or elsewhere, and only while followed', { timeout: 30_000 }, async () => {
    const here = await createJetStreamTaskStore({ connection: await open('feed-here'), bucket: BUCKET, storage: 'memory' });
    const elsewhere = await createJetStreamTaskStore({ connection: await open('feed-elsewhere'), bucket: BUCKET, storage: 'memory' });
    try {
      const feedHere = here.relay.notices;
      const feedElsewhere = elsewhere.relay.notices;
      assert.ok(feedHere !== undefined && feedElsewhere !== undefined);
      const heard = { first: [] as string[], second: [] as string[], remote: [] as string[] };
      // Two members on one store (two servers of one process), one on another store (another process).
      const first = feedHere.join((notice) => void heard.first.push(notice.method));
      const second = feedHere.join((notice) => void heard.second.push(notice.method));
      feedElsewhere.join((notice) => void heard.remote.push(`${notice.owner} ${notice.method}`));
      const taskId = '6f1c1c3e-0000-4000-8000-000000000001';
      const stops = [feedHere.follow(taskId), feedHere.follow(taskId), feedElsewhere.follow(taskId)];
      // Each subscription reaches nats-server before anything is published.
      await Promise.all(connections.slice(-2).map((connection) => connection.flush()));
      first.publish({ owner: 'principal:alice', taskId, method: 'notifications/tasks', params: { taskId, status: 'working' } });
      await until(() => heard.remote.length === 1, 'the other process hears the notice', WAIT);
      await sleep(300);
      assert.deepEqual(heard.first, [], 'the publisher is not told its own notice');
      assert.deepEqual(heard.second, ['notifications/tasks'], 'the other member here is told once, without a round trip');
      assert.deepEqual(heard.remote, ['principal:alice notifications/tasks'], 'the other process is told once');
      // One of the two interests here ends: the task is still followed here.
      stops[0]?.();
      second.publish({ owner: 'principal:alice', taskId, method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
      await until(() => heard.remote.length === 2, 'still followed elsewhere', WAIT);
      // No interest left anywhere: nothing is heard.
      stops[1]?.();
      stops[2]?.();
      await Promise.all(connections.slice(-2).map((connection) => connection.flush()));
      first.publish({ owner: 'principal:alice', taskId, method: 'notifications/tasks', params: { taskId, status: 'completed' } });
      await sleep(300);
      assert.deepEqual(heard.second, ['notifications/tasks'], 'not followed here any more');
      assert.deepEqual(heard.remote, ['principal:alice notifications/tasks', 'principal:alice notifications/progress'], 'nor there');
      assert.deepEqual(heard.first, ['notifications/progress'], "the first member heard the second's notice while it followed the task");
    } finally {
      here.close();
      elsewhere.close();
    }
  });

  test('a listen on A hears the status of a task whose handler runs on B', { timeout: 60_000 }, async () => {
    const name = 'notices-ab';
    const b = await serve('B', name);
    const client = await clientOf(name, alice);
    // B is the only process: the call runs there.
    const taskId = await startTask(client);
    const a = await serve('A', name);
    // B leaves the queue group and keeps running its task: from now on A serves every request.
    await b.serving.close('handover', { drainMs: 0 });
    const { heard, agreed } = await listen(client, [taskId]);
    assert.deepEqual(agreed, [taskId], "A found the task in the shared store and agreed to tell of it");
    assert.deepEqual(statuses(heard, taskId), [], 'nothing told before the task moves');

    b.release();
    await until(() => statuses(heard, taskId).includes('completed'), "A's listen hears B's task complete", WAIT);
    const completed = heard.find((n) => n.method === 'notifications/tasks' && n.params['status'] === 'completed');
    const result = completed?.params['result'] as { content?: Array<{ text?: string }> } | undefined;
    assert.deepEqual(JSON.parse(result?.content?.[0]?.text ?? 'null'), { ranOn: 'B' }, 'the status carries the result B stored');
    await sleep(300);
    assert.deepEqual(statuses(heard, taskId), ['completed'], 'told once');
    assert.ok(a.serving.processId !== b.serving.processId);
  });

  test("a task's status reaches its owner's listens on three processes, and no other principal's", { timeout: 60_000 }, async () => {
    const [a, b, c] = await Promise.all([serve('one', 'notices-1'), serve('two', 'notices-2'), serve('three', 'notices-3')]);
    const [onA, onB, onC, malloryOnC] = await Promise.all([clientOf('notices-1', alice), clientOf('notices-2', alice), clientOf('notices-3', alice), clientOf('notices-3', mallory)]);
    const taskId = await startTask(onA);
    const malloryTask = await startTask(malloryOnC);

    const listens = await Promise.all([listen(onA, [taskId]), listen(onB, [taskId]), listen(onC, [taskId])]);
    for (const { agreed } of listens) assert.deepEqual(agreed, [taskId], "each of alice's listens is agreed her task");
    // Mallory names alice's task and her own: only her own is agreed.
    const intruder = await listen(malloryOnC, [taskId, malloryTask]);
    assert.deepEqual(intruder.agreed, [malloryTask], "mallory's listen is not agreed alice's task");

    // A notice published on the feed that names another owner than the listener, or is not a task's, is told
    // to nobody: mallory follows her task, and hears neither.
    const forger = await open('forger');
    const forge = (notice: JsonObject): void => forger.publish(`mcp.tasks.${BUCKET}.notices.${malloryTask}`, new TextEncoder().encode(JSON.stringify(notice)));
    forge({ origin: 'elsewhere', owner: 'principal:alice', taskId: malloryTask, method: 'notifications/tasks', params: { taskId: malloryTask, status: 'completed' } });
    forge({ origin: 'elsewhere', owner: 'principal:mallory', taskId: malloryTask, method: 'notifications/tools/list_changed', params: {} });
    forge({ origin: 'elsewhere', owner: 'principal:mallory', taskId, method: 'notifications/tasks', params: { taskId, status: 'completed' } });
    await forger.flush();

    a.release();
    for (const [index, { heard }] of listens.entries()) {
      await until(() => statuses(heard, taskId).includes('completed'), `alice's listen on process ${index + 1} hears the task complete`, WAIT);
    }
    await sleep(SILENCE_MS);
    for (const { heard } of listens) assert.deepEqual(statuses(heard, taskId), ['completed'], 'each listen was told once');
    const told = intruder.heard.slice(1).map((n) => `${n.method} ${String(n.params['taskId'])}`);
    assert.deepEqual(told, [], 'mallory heard nothing: not alice’s task, not the forged notices');
    assert.equal(b.serving.processId === c.serving.processId, false);
  });
});
