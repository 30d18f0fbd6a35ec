/**
 * The least-privilege permission sets of natsPermissions (docs/nats-binding.md, "Permissions") against a real
 * nats-server whose users hold exactly those: a server process, a gateway and plain clients each do their job
 * (both eras, straight and through the gateway); a role missing one permission is refused with an error that
 * says so, at once, never a hang. Tasks across processes: two real server processes sharing a JetStream task
 * store run a task with exactly the server permissions that name the store; a server user without them cannot
 * open it; no client (even one allowed every other subject) may publish a forwarded task call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createGateway, type Gateway } from '../../../cli/gateway/gateway.ts';
import { createClient } from '../../../client/create-client.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import type { ListeningServer } from '../../../transports/http/index.ts';
import { createStreamableHttpClientTransport } from '../../../transports/http/index.ts';
import { JetStreamEventStore, type NatsPermissions, type NatsServing, createNatsClientTransport, natsConnectionOptions, natsPermissions, serveNats } from '../../../transports/nats/index.ts';
import { connectionState } from '../../../transports/nats/connection-state.ts';
import type { StoredEvent } from '../../../transports/http/index.ts';
import type { ElicitResult } from '../../../core/protocol/index.ts';
import { within } from '../../support/harness.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { TestClock } from '../../support/test-clock.ts';
import { type ServerProcess, answerOf, startServerProcess, stopAll } from './nats-processes.ts';

const NAME = 'perm';
const CLIENT_INBOX = '_INBOX.client';
/** The served name of the task processes (their own queue group: they serve other tools than the spec's server). */
const TASK_NAME = 'perm-tasks';
const TASK_BUCKET = 'perm_tasks';
const TASK_FIXTURE = fileURLToPath(new URL('../../support/nats-fixtures/task-server-process.ts', import.meta.url));

/** A nats-server user holding `permissions`, in the server's configuration syntax (JSON is valid there). */
function user(name: string, permissions: NatsPermissions): string {
  return JSON.stringify({ user: name, password: `${name}-secret`, permissions });
}

/** `permissions` less every subject that `drop` matches, in `side` (never all of them: an empty list allows everything). */
function without(permissions: NatsPermissions, side: 'publish' | 'subscribe', drop: (subject: string) => boolean): NatsPermissions {
  return { ...permissions, [side]: { allow: permissions[side].allow.filter((subject) => !drop(subject)) } };
}

describe('nats permissions', () => {
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  let serving: NatsServing;
  let server: McpServer;
  let gateway: Gateway;
  let listening: ListeningServer;

  const serverRole = natsPermissions('server', { name: NAME });
  const gatewayRole = natsPermissions('gateway', { name: NAME });
  const clientRole = natsPermissions('client', { name: NAME, inboxPrefix: CLIENT_INBOX });
  const taskStore = { bucket: TASK_BUCKET };
  const taskServerRole = natsPermissions('server', { name: TASK_NAME, taskStore });
  const taskClientRole = natsPermissions('client', { name: TASK_NAME, inboxPrefix: CLIENT_INBOX, taskStore });

  const open = async (name: string, inboxPrefix?: string): Promise<NatsConnection> => {
    const made = await connect(natsConnectionOptions({ user: name, password: `${name}-secret` }, { servers: nats.url, ...(inboxPrefix === undefined ? {} : { inboxPrefix }) }));
    connections.push(made);
    return made;
  };

  /** A task server process (specs/support/nats-fixtures/task-server-process.ts) connected as `name`. */
  async function startTaskProcess(name: string): Promise<ServerProcess & { readonly runnerId: string }> {
    const started = await startServerProcess(nats.url, TASK_NAME, { NATS_USER: name, NATS_PASSWORD: `${name}-secret` }, { fixture: TASK_FIXTURE, args: [TASK_BUCKET], startMs: 40_000 });
    const runnerId = started.lines().find((line) => line.startsWith('ready '))?.split(' ')[3];
    if (runnerId === undefined) throw new Error(`no runner id in ${started.output()}`);
    return Object.assign(started, { runnerId });
  }

  before(async () => {
    nats = await startNatsServer({
      config: () => `authorization { users = [
        ${user('server', serverRole)},
        ${user('gateway', gatewayRole)},
        ${user('client', clientRole)},
        ${user('mute-client', without(clientRole, 'publish', (subject) => subject.includes('.call.')))},
        ${user('deaf-client', { ...clientRole, subscribe: { allow: ['_INBOX.someone-else.>'] } })},
        ${user('server-no-calls', without(serverRole, 'subscribe', (subject) => subject.includes('.call.')))},
        ${user('server-no-kv', without(serverRole, 'publish', (subject) => subject.startsWith('$JS.') || subject.startsWith('$KV.')))},
        ${user('task-server', taskServerRole)},
        ${user('task-server-bare', natsPermissions('server', { name: TASK_NAME }))},
        ${user('task-client', taskClientRole)},
        ${user('greedy-client', { ...taskClientRole, publish: { ...taskClientRole.publish, allow: ['>'] } })}
      ] }`,
    });
    server = createServer({ name: 'perm-spec', version: '0.0.0' });
    server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: String(args['text']) }] }));
    serving = await serveNats(server, { connection: await open('server'), name: NAME });
    gateway = await createGateway({ connection: await open('gateway'), name: NAME });
    listening = await gateway.http.listen(0, '127.0.0.1');
  });

  after(async () => {
    await stopAll();
    await listening.close();
    await gateway.close();
    await serving.close('end');
    await server.close();
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats.dispose();
  });

  test('nats permissions - each role works with exactly its permissions: a client on NATS and through the gateway, both eras', async () => {
    const connection = await open('client', CLIENT_INBOX);
    for (const era of ['legacy', 'modern'] as const) {
      const session = await within(createClient({ name: 'c', version: '0', era }).connect(createNatsClientTransport({ connection, name: NAME, inboxPrefix: CLIENT_INBOX })), 5000);
      assert.deepEqual((await within(session.callTool('echo', { text: era }), 5000)).content, [{ type: 'text', text: era }]);
      await session.close();
      const viaGateway = await within(createClient({ name: 'c', version: '0', era }).connect(createStreamableHttpClientTransport(listening.url)), 5000);
      assert.deepEqual((await within(viaGateway.callTool('echo', { text: `gw ${era}` }), 5000)).content, [{ type: 'text', text: `gw ${era}` }]);
      await viaGateway.close();
    }
  });

  test("nats permissions - the gateway's event store follows and replays its stream with the gateway's permissions (no consumer; its doorbell may subscribe)", async () => {
    const connection = await open('gateway');
    const refusals: string[] = [];
    connectionState(connection).onRefused((refusal) => void refusals.push(`${refusal.operation} ${refusal.subject}`));
    // The store the gateway uses, on its clock: the follow's poll never fires, so only its doorbell can deliver.
    const clock = new TestClock();
    const options = { stream: `MCP_GATEWAY_EVENTS_${NAME}`, subjectPrefix: `mcp-gw.${NAME}.events`, producerCheckMs: false } as const;
    const store = await JetStreamEventStore.create(connection, { ...options, clock });
    // Another replica appends.
    const other = await JetStreamEventStore.create(await open('gateway'), options);
    try {
      const priming = await store.append('perm-session', 'p1', null);
      const seen: StoredEvent[] = [];
      const following = store.follow('perm-session', priming)?.subscribe({ next: (event) => void seen.push(event) });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const id = await other.append('perm-session', 'p1', '{"n":1}');
      for (let waited = 0; seen.length === 0 && waited < 3000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(seen, [{ id, message: '{"n":1}' }], 'the doorbell rang');
      assert.deepEqual((await store.replayAfter('perm-session', priming))?.events, [{ id, message: '{"n":1}' }]);
      assert.deepEqual(refusals, [], 'nothing refused');
      following?.unsubscribe();
    } finally {
      await store.close();
      await other.close();
    }
  });

  test('nats permissions - a client that may not publish to the call subjects is refused at once, naming the subject', async () => {
    const connection = await open('mute-client', CLIENT_INBOX);
    const started = Date.now();
    const failure = await within(createClient({ name: 'c', version: '0', era: 'legacy' }).connect(createNatsClientTransport({ connection, name: NAME, inboxPrefix: CLIENT_INBOX, silenceMs: 60_000 })).then(
      () => undefined,
      (error: unknown) => error as Error,
    ), 5000);
    assert.ok(failure !== undefined);
    assert.match(failure.message, /may not publish to mcp\.perm\.call\.initialize/);
    assert.ok(Date.now() - started < 5000, 'long before the silence limit');
  });

  test('nats permissions - a client that may not subscribe to its inbox is refused, saying where', async () => {
    const connection = await open('deaf-client', CLIENT_INBOX);
    const failure = await within(createClient({ name: 'c', version: '0', era: 'modern' }).connect(createNatsClientTransport({ connection, name: NAME, inboxPrefix: CLIENT_INBOX, silenceMs: 60_000 })).then(
      () => undefined,
      (error: unknown) => error as Error,
    ), 5000);
    assert.ok(failure !== undefined);
    assert.match(`${failure.message} ${failure.cause instanceof Error ? failure.cause.message : ''}`, /refused the subscription to this client's inbox/);
  });

  test('nats permissions - a server process without its subscriptions or its KV bucket does not start, and says why', async () => {
    const other = createServer({ name: 'perm-spec-2', version: '0.0.0' });
    try {
      await assert.rejects(within(serveNats(other, { connection: await open('server-no-calls'), name: NAME }), 5000), /NATS refused the subscriptions serving mcp\.perm needs: .*Permissions Violation for Subscription to "mcp\.perm\.call\.>"/);
      await assert.rejects(within(serveNats(other, { connection: await open('server-no-kv'), name: NAME }), 5000), /Permissions Violation for Publish to "\$JS\.API/);
    } finally {
      await other.close();
    }
  });

  test('nats permissions - two server processes with exactly the task store permissions run a task across them', { timeout: 90_000 }, async () => {
    const [a, b] = await Promise.all([0, 1].map(() => startTaskProcess('task-server')));
    const byPid = new Map([a, b].map((process) => [process?.pid, process]));
    const connection = await open('task-client', CLIENT_INBOX);
    let asked: number | undefined;
    const client = createClient({
      name: 'perm-tasks-client',
      version: '0',
      era: 'modern',
      // Status notifications come only from the runner's process: this client polls.
      tasks: { listen: false, minPollIntervalMs: 100 },
      elicitation: {
        form: async (params) => {
          asked = Number(params.message.split(' ')[1]);
          // The runner leaves the queue group: the answer, and every poll after it, reach the other process,
          // which reads the task from the bucket and forwards the answer to the runner's subject.
          await byPid.get(asked)?.command('leave', 10_000);
          return { action: 'accept', content: { name: 'Ada' } } satisfies ElicitResult;
        },
      },
    });
    const session = await within(client.connect(createNatsClientTransport({ connection, name: TASK_NAME, inboxPrefix: CLIENT_INBOX })), 10_000);
    try {
      const answer = answerOf(await session.callTool('ask', {}, { timeoutMs: 40_000 }));
      assert.ok(asked !== undefined && byPid.has(asked), 'the input request named its runner');
      assert.equal(answer.pid, asked, 'the task ran on in the process that started it');
      assert.equal(answer['name'], 'Ada', 'the answer forwarded to it arrived');
    } finally {
      await session.close();
    }
  });

  test('nats permissions - a server user without the task store entries cannot open it, and says why', { timeout: 60_000 }, async () => {
    await assert.rejects(startTaskProcess('task-server-bare'), /Permissions Violation for Publish to "\$JS\.API\.STREAM\.INFO\.KV_perm_tasks"/);
  });

  test('nats permissions - only server processes may publish forwarded task calls: clients are denied, even with every other subject', { timeout: 60_000 }, async () => {
    assert.deepEqual(taskClientRole.publish.deny, [`mcp.tasks.${TASK_BUCKET}.>`]);
    assert.deepEqual(natsPermissions('gateway', { name: TASK_NAME, taskStore }).publish.deny, [`mcp.tasks.${TASK_BUCKET}.>`]);
    const runner = await startTaskProcess('task-server');
    const call = new TextEncoder().encode(JSON.stringify({ op: 'cancel', owner: 'anonymous', taskId: '00000000-0000-4000-8000-000000000000' }));
    const subject = `mcp.tasks.${TASK_BUCKET}.${runner.runnerId}`;
    // The runner answers a server process there (it has no such task) ...
    const served = await (await open('task-server')).request(subject, call, { timeout: 5000 });
    assert.deepEqual(JSON.parse(new TextDecoder().decode(served.data)), { ok: false });
    // ... but a client's call never gets there: NATS refuses the publish.
    for (const name of ['task-client', 'greedy-client']) {
      const started = Date.now();
      await assert.rejects((await open(name, CLIENT_INBOX)).request(subject, call, { timeout: 5000 }), /Permissions Violation for Publish to "mcp\.tasks\.perm_tasks\./, name);
      assert.ok(Date.now() - started < 4000, `${name}: refused at once, not timed out`);
    }
  });
});
