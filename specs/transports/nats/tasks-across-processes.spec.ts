/**
 * Modern tasks across the processes of a queue group (FEATURES: tasks extension over NATS): real nats-server,
 * two real server processes (specs/support/nats-fixtures/task-server-process.ts) sharing a JetStream KV task
 * store, and rxmcp clients in the modern era.
 *
 * - A task started on one process is polled, given its input and finished through the other: the process
 *   running it leaves the queue group as soon as its input request is seen, so from then on every request
 *   reaches the other one, which reads the task from KV and forwards the input to the runner.
 * - A cancellation reaches the runner through the other process (the handler's signal aborts there).
 * - The runner is SIGKILLed: `tasks/get` of its task from the survivor fails it with the reason, `tasks/update`
 *   and `tasks/cancel` are refused with that error (nothing waits for the dead process), and the survivor's own
 *   task goes on.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { WireError } from '../../../core/errors.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import type { ElicitResult } from '../../../core/protocol/index.ts';
import { isNoRespondersError } from '../../../transports/nats/headers.ts';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { startNatsServer } from '../../support/nats-server.ts';
import { type ServerProcess, answerOf, startServerProcess, stopAll, until } from './nats-processes.ts';

const FIXTURE = fileURLToPath(new URL('../../support/nats-fixtures/task-server-process.ts', import.meta.url));
const NAME = 'tasks-x';

after(() => stopAll());

interface TaskProcess extends ServerProcess {
  readonly runnerId: string;
}

async function startTaskProcess(url: string, bucket: string): Promise<TaskProcess> {
  const started = await startServerProcess(url, NAME, {}, { fixture: FIXTURE, args: [bucket], startMs: 40_000 });
  const runnerId = started.lines().find((line) => line.startsWith('ready '))?.split(' ')[3];
  if (runnerId === undefined) throw new Error(`no runner id in ${started.output()}`);
  return Object.assign(started, { runnerId });
}

const accept = (name: string): ElicitResult & JsonObject => ({ action: 'accept', content: { name } });

/** The pid in an `ask` task's input request message (`name? <pid>`). */
function runnerPid(task: JsonObject): number | undefined {
  const requests = task['inputRequests'] as Record<string, { params?: { message?: string } }> | undefined;
  const message = requests === undefined ? undefined : Object.values(requests)[0]?.params?.message;
  return message === undefined ? undefined : Number(message.split(' ')[1]);
}

/** Waits until nats-server has dropped a dead runner: its relay subject has no responders. */
async function relayGone(nc: NatsConnection, bucket: string, runnerId: string): Promise<void> {
  await until(async () => {
    try {
      await nc.request(`mcp.tasks.${bucket}.${runnerId}`, new Uint8Array(0), { timeout: 500 });
      return false;
    } catch (error) {
      return isNoRespondersError(error);
    }
  }, 'the dead runner dropped by nats-server', 10_000);
}

async function rejection(promise: Promise<unknown>): Promise<WireError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WireError, `a wire error, not ${String(error)}`);
    return error;
  }
  assert.fail('expected an error answer');
}

describe('modern tasks across NATS processes (JetStream KV task store)', () => {
  test('a task started on one process is polled, given input and finished through the other', { timeout: 90_000 }, async () => {
    await using nats = await startNatsServer();
    const [a, b] = await Promise.all([startTaskProcess(nats.url, 'tasks_follow'), startTaskProcess(nats.url, 'tasks_follow')]);
    const byPid = new Map([a, b].map((process) => [process.pid, process]));
    const nc = await connect({ servers: nats.url });
    let asked: number | undefined;
    const client = createClient({
      name: 'tasks-x-client',
      version: '1.0.0',
      era: 'modern',
      // This client polls: the forwarded calls are the subject here (task-notices.spec.ts has the status
      // notifications across processes).
      tasks: { listen: false, minPollIntervalMs: 100 },
      elicitation: {
        form: async (params) => {
          asked = Number(params.message.split(' ')[1]);
          // The runner leaves the queue group: the answer, and every poll after it, reach the other process.
          await byPid.get(asked)?.command('leave', 10_000);
          return accept('Ada');
        },
      },
    });
    let session: ClientSession | undefined;
    try {
      session = await client.connect(createNatsClientTransport({ connection: nc, name: NAME }));
      const result = await session.callTool('ask', {}, { timeoutMs: 40_000 });
      const answer = answerOf(result);
      assert.ok(asked !== undefined && byPid.has(asked), 'the input request named its runner');
      assert.equal(answer.pid, asked, 'the handler ran on, in the process that started it');
      assert.equal(answer['name'], 'Ada', 'the answer forwarded to it arrived');
    } finally {
      await session?.close();
      await nc.close();
      await stopAll();
    }
  });

  test('the runner dies: tasks/get fails its task with the reason; tasks/update and tasks/cancel are refused', { timeout: 90_000 }, async () => {
    const bucket = 'tasks_death';
    await using nats = await startNatsServer();
    const processes = await Promise.all([startTaskProcess(nats.url, bucket), startTaskProcess(nats.url, bucket)]);
    const nc = await connect({ servers: nats.url });
    let session: ClientSession | undefined;
    try {
      session = await createClient({ name: 'tasks-x-raw', version: '1.0.0', era: 'modern', tasks: { listen: false }, elicitation: { form: () => accept('unused') } })
        .connect(createNatsClientTransport({ connection: nc, name: NAME }));
      const raw = session.session;
      // Seven tasks over two processes: one runs at least four of them. Each waits for its input.
      const runners = new Map<string, number>();
      for (let n = 0; n < 7; n++) {
        const created = await raw.request('tools/call', { name: 'ask', arguments: {} });
        assert.equal(created['resultType'], 'task');
        const taskId = created['taskId'] as string;
        let pid: number | undefined;
        await until(async () => (pid = runnerPid(await raw.request('tasks/get', { taskId }))) !== undefined, `task ${n} waiting for input`, 15_000);
        runners.set(taskId, pid as number);
      }
      const counts = [...runners.values()].reduce((map, pid) => map.set(pid, (map.get(pid) ?? 0) + 1), new Map<number, number>());
      const victimPid = [...counts].find(([, count]) => count >= 4)?.[0];
      const victim = processes.find((process) => process.pid === victimPid);
      assert.ok(victim !== undefined);
      const survivor = processes.find((process) => process !== victim)!;
      const [byGet, byUpdate, byCancel, cancelledAlive] = [...runners].filter(([, pid]) => pid === victim.pid).map(([taskId]) => taskId);
      const survivorTask = [...runners].find(([, pid]) => pid === survivor.pid)?.[0];

      // While the runner lives, but serves no requests: a cancellation reaches it through the survivor.
      await victim.command('leave', 20_000);
      assert.equal((await raw.request('tasks/cancel', { taskId: cancelledAlive }))['resultType'], 'complete');
      const cancelled = await raw.request('tasks/get', { taskId: cancelledAlive });
      assert.equal(cancelled['status'], 'cancelled');
      await until(() => victim.lines().includes('aborted'), 'the handler aborted in the runner', 10_000);

      await victim.kill();
      await relayGone(nc, bucket, victim.runnerId);

      const failed = await raw.request('tasks/get', { taskId: byGet });
      assert.equal(failed['status'], 'failed');
      assert.match(String(failed['statusMessage']), /server process running it is gone/);
      const error = failed['error'] as { code: number; message: string };
      assert.equal(error.code, -32603);
      assert.match(error.message, /server process running it is gone/);
      assert.equal(failed['inputRequests'], undefined);

      const update = await rejection(raw.request('tasks/update', { taskId: byUpdate, inputResponses: { 'elicitation-1': accept('Bob') } }));
      assert.equal(update.code, -32603);
      assert.match(update.message, /server process running it is gone/);
      const cancel = await rejection(raw.request('tasks/cancel', { taskId: byCancel }));
      assert.match(cancel.message, /server process running it is gone/);
      for (const taskId of [byUpdate, byCancel]) assert.equal((await raw.request('tasks/get', { taskId }))['status'], 'failed', 'failed in the store too');
      // Failed once and for all: a repeated get (another writer would be refused alike) does not move it.
      const again = await raw.request('tasks/get', { taskId: byGet });
      assert.equal(again['lastUpdatedAt'], failed['lastUpdatedAt']);

      // The survivor's own task goes on.
      if (survivorTask !== undefined) {
        await raw.request('tasks/update', { taskId: survivorTask, inputResponses: { 'elicitation-1': accept('Cy') } });
        let done: JsonObject = {};
        await until(async () => (done = await raw.request('tasks/get', { taskId: survivorTask }))['status'] === 'completed', 'the survivor task completed', 15_000);
        const text = ((done['result'] as { content: { text: string }[] }).content[0]?.text) ?? '';
        assert.deepEqual(JSON.parse(text), { pid: survivor.pid, name: 'Cy' });
      }
    } finally {
      await session?.close();
      await nc.close();
      await stopAll();
    }
  });
});
