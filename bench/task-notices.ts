/**
 * Task notices across processes (transports/nats/task-notices.ts): what one delivered notification costs when a
 * task runs on one process and its listens are on others. A benchmark, not a test: it reports, it never fails on
 * a figure.
 *
 *   node --import tsx bench/task-notices.ts [--subscribers=2] [--listeners=1,10,100] [--notices=2000] [--rounds=3]
 *
 * Its own `nats-server` (specs/support/nats-server.ts: 127.0.0.1, a free port, JetStream), stopped at the end. One
 * runner process and `--subscribers` subscriber processes (bench/task-notices-server.ts), each serving a name of
 * its own and sharing one JetStream KV task store. Per level of `--listeners` (listens per subscriber process) and
 * per round: one client on the runner starts an `emit` task (modern era, tasks extension, log level `info`); one
 * client per subscriber process opens that many `subscriptions/listen` streams naming the task, all acknowledged
 * before anything is measured; then the runner's task logs `--notices` messages, each published once on the
 * task's notice subject, heard by every subscriber process (one NATS subscription each, however many listens)
 * and told to each of its listens. Counted until every listen has every message (or nothing arrives for 2 s).
 *
 * Figures per delivered notification (deliveries = notices × subscribers × listeners): CPU µs of the runner (the
 * publisher), of the subscriber processes together, of nats-server and of this process (the clients), from
 * /proc/<pid>/stat (10 ms ticks) and `process.cpuUsage()`; deliveries/s by the wall clock; medians over the rounds.
 * Everything shares the machine's cores.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { join } from 'node:path';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { Subscription as RxSubscription } from 'rxjs';
import { createClient } from '../index.ts';
import type { ClientSession } from '../client/session-api.ts';
import { startNatsServer } from '../specs/support/nats-server.ts';
import { createNatsClientTransport } from '../transports/nats/index.ts';
import { argInt, argValue, emitResult, fmt, isMain, median, repoRoot } from './lib.ts';
import { Program, processCpuUs } from './transport-lib.ts';

const BUCKET = 'bench_task_notices';

export interface TaskNoticeFigure {
  readonly subscribers: number;
  readonly listenersPerSubscriber: number;
  readonly notices: number;
  readonly expected: number;
  readonly delivered: number;
  readonly deliveriesPerSecond: number;
  readonly publisherCpuUsPerDelivery: number;
  readonly subscribersCpuUsPerDelivery: number;
  readonly natsCpuUsPerDelivery: number;
  readonly clientCpuUsPerDelivery: number;
}

function startProcess(url: string, name: string): Program {
  const args = ['--import', 'tsx', join(repoRoot, 'bench/task-notices-server.ts'), `--url=${url}`, `--name=${name}`, `--bucket=${BUCKET}`];
  return new Program(spawn(process.execPath, args, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] }));
}

function openClient(nc: NatsConnection, name: string): Promise<ClientSession> {
  return createClient({ name: 'task-notices-bench-client', version: '1.0.0', era: 'modern', tasks: { listen: false } }).connect(createNatsClientTransport({ connection: nc, name }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `count()` reaches `target`, or stops growing for `stallMs`; gives the wall time to the last one. */
async function untilCounted(count: () => number, target: number, stallMs: number): Promise<number> {
  const started = process.hrtime.bigint();
  let last = count();
  let lastAt = process.hrtime.bigint();
  while (count() < target) {
    await sleep(2);
    if (count() !== last) {
      last = count();
      lastAt = process.hrtime.bigint();
    } else if (Number(process.hrtime.bigint() - lastAt) / 1e6 > stallMs) {
      break;
    }
  }
  return Number((count() < target ? lastAt : process.hrtime.bigint()) - started) / 1e6;
}

interface Round {
  readonly delivered: number;
  readonly wallMs: number;
  readonly publisherUs: number;
  readonly subscribersUs: number;
  readonly natsUs: number;
  readonly clientUs: number;
}

async function round(runner: { program: Program; client: ClientSession }, subscribers: ReadonlyArray<{ program: Program; client: ClientSession }>, listeners: number, notices: number, natsPid: number): Promise<Round> {
  const created = await runner.client.session.request('tools/call', { name: 'emit', arguments: { count: notices } });
  if (created['resultType'] !== 'task') throw new Error(`emit did not become a task: ${JSON.stringify(created)}`);
  const taskId = String(created['taskId']);
  let delivered = 0;
  let acknowledged = 0;
  const subs = new RxSubscription();
  try {
    for (const { client } of subscribers) {
      for (let i = 0; i < listeners; i++) {
        subs.add(client.listen$({ taskIds: [taskId] }).subscribe({
          next: (note) => {
            if (note.method === 'notifications/message') delivered++;
            else if (note.method === 'notifications/subscriptions/acknowledged') acknowledged++;
          },
          error: (error: unknown) => console.error(`listen failed: ${String(error)}`),
        }));
      }
    }
    const listens = listeners * subscribers.length;
    await untilCounted(() => acknowledged, listens, 10_000);
    if (acknowledged < listens) throw new Error(`only ${acknowledged} of ${listens} listens were acknowledged`);
    await sleep(200);
    const cpu0 = process.cpuUsage();
    const publisher0 = processCpuUs(runner.program.pid);
    const subscribers0 = subscribers.map(({ program }) => processCpuUs(program.pid));
    const nats0 = processCpuUs(natsPid);
    const expected = notices * listens;
    const counting = untilCounted(() => delivered, expected, 2_000);
    await runner.program.command('go');
    const wallMs = await counting;
    const cpu = process.cpuUsage(cpu0);
    return {
      delivered,
      wallMs,
      publisherUs: processCpuUs(runner.program.pid) - publisher0,
      subscribersUs: subscribers.reduce((sum, { program }, index) => sum + processCpuUs(program.pid) - (subscribers0[index] ?? 0), 0),
      natsUs: processCpuUs(natsPid) - nats0,
      clientUs: cpu.user + cpu.system,
    };
  } finally {
    subs.unsubscribe();
  }
}

if (isMain(import.meta.url)) {
  const subscriberCount = argInt('subscribers', 2);
  const levels = (argValue('listeners') ?? '1,10,100').split(',').map(Number);
  const notices = argInt('notices', 2_000);
  const rounds = argInt('rounds', 3);
  const started = Date.now();
  const loadBefore = os.loadavg();
  const nats = await startNatsServer();
  const nc = await connect({ servers: nats.url, name: 'task-notices-clients' });
  const programs: Program[] = [];
  const sessions: ClientSession[] = [];
  try {
    const names = Array.from({ length: subscriberCount + 1 }, (_, index) => `task-notices-${index}`);
    // One at a time: the first opens the store's bucket, the others find it.
    for (const name of names) {
      const program = startProcess(nats.url, name);
      programs.push(program);
      await program.ready;
    }
    for (const name of names) sessions.push(await openClient(nc, name));
    const [runnerClient, ...subscriberClients] = sessions;
    const [runnerProgram, ...subscriberPrograms] = programs;
    if (runnerClient === undefined || runnerProgram === undefined) throw new Error('no runner');
    await runnerClient.setLogLevel('info');
    const runner = { program: runnerProgram, client: runnerClient };
    const subscribers = subscriberPrograms.map((program, index) => ({ program, client: subscriberClients[index] as ClientSession }));
    const figures: TaskNoticeFigure[] = [];
    for (const listeners of levels) {
      const results: Round[] = [];
      for (let r = 0; r < rounds; r++) results.push(await round(runner, subscribers, listeners, notices, nats.pid ?? -1));
      const expected = notices * listeners * subscriberCount;
      const per = (pick: (result: Round) => number): number => median(results.map((result) => pick(result) / Math.max(1, result.delivered)));
      const figure: TaskNoticeFigure = {
        subscribers: subscriberCount,
        listenersPerSubscriber: listeners,
        notices,
        expected,
        delivered: Math.min(...results.map((result) => result.delivered)),
        deliveriesPerSecond: median(results.map((result) => (result.delivered * 1000) / result.wallMs)),
        publisherCpuUsPerDelivery: per((result) => result.publisherUs),
        subscribersCpuUsPerDelivery: per((result) => result.subscribersUs),
        natsCpuUsPerDelivery: per((result) => result.natsUs),
        clientCpuUsPerDelivery: per((result) => result.clientUs),
      };
      figures.push(figure);
      console.log(
        `${notices} notices to ${subscriberCount} × ${listeners} listens: ${figure.delivered} of ${expected} delivered (fewest of ${rounds} rounds), ` +
          `${fmt(figure.deliveriesPerSecond, 0)}/s; per delivery ${fmt(figure.publisherCpuUsPerDelivery, 1)} µs publisher, ` +
          `${fmt(figure.subscribersCpuUsPerDelivery, 1)} µs subscribers, ${fmt(figure.natsCpuUsPerDelivery, 1)} µs nats-server, ${fmt(figure.clientCpuUsPerDelivery, 1)} µs clients`,
      );
    }
    emitResult({ figures, loadBefore, loadAfter: os.loadavg(), seconds: (Date.now() - started) / 1000 });
  } finally {
    await Promise.allSettled(sessions.map((session) => session.close()));
    await Promise.allSettled(programs.map((program) => program.stop()));
    await nc.close();
    await nats.dispose();
  }
}
