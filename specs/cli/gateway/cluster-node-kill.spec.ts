/**
 * The HTTP gateway end to end on a real 3-node nats-server cluster, one node SIGKILLed under load and started
 * again: two `rxmcp gateway` processes (`--nats` naming all three nodes, `--js-replicas 3`) behind the
 * round-robin balancer that alternates them on every request (specs/support/round-robin-proxy.ts), in front of
 * an MCP server process on the cluster (the records of both in 3-replica JetStream buckets). The node killed
 * leads the gateway's session bucket. Clients over HTTP: rxmcp's, legacy and modern era, and the official SDK
 * 2.x client (legacy era).
 * - Every call ends, within its bound, with its answer or a clear error; every call sent once the cluster
 *   recovered (and after the node came back) is answered.
 * - Sessions opened during the election work; no legacy session is lost: each keeps its id and never
 *   initializes again (the balancer saw exactly one `initialize` per session), and answers after the restart.
 * - An SSE stream broken before the kill resumes with `Last-Event-ID` on the other replica after it: every
 *   event once, in order, up to the answer.
 * The counts (acknowledged / failed / lost) go to the test output.
 *
 * @serial: a 3-node nats cluster with a node killed and restarted (same ports) under load through two gateway processes, every call bounded in wall-clock time
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2HttpTransport } from '@modelcontextprotocol/client';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import type { CallToolResult } from '../../../core/protocol/index.ts';
import { type StreamableHttpClientTransport, createStreamableHttpClientTransport } from '../../../transports/http/index.ts';
import { RawMcp, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { killChildren } from '../../support/interop-processes.ts';
import { type ClusterNode, type NatsCluster, startNatsCluster } from '../../support/nats-cluster.ts';
import { type RoundRobinProxy, roundRobinProxy } from '../../support/round-robin-proxy.ts';
import { answers, isMethod, messagesOf, nextMessage } from '../../transports/http-server/fixtures.ts';
import {
  type Load,
  type Outcome,
  answerOf,
  describeOutcome,
  natsConnection,
  sleep,
  startLoad,
  startServerProcess,
  stopAll,
  timedCall,
  until,
} from '../../transports/nats/nats-processes.ts';
import { type RunningCli, startCli } from '../commands/cli-process.ts';

const NAME = 'gw-cluster';
/**
 * A call's own bound. A call whose answer was on its way through the killed node is lost in NATS; the gateway
 * ends it when it has heard nothing from the servers for its silence limit (30 s, the CLI's default).
 */
const CALL_TIMEOUT_MS = 45_000;
/** After the kill: connections back on the other nodes, the election over, the stranded calls ended. */
const RECOVERY_MS = 35_000;
/** The resumed stream's request: TICKS progress events, one every TICK_MS, then its answer. */
const TICKS = 30;
const TICK_MS = 200;
/** The pause of a load worker before each call: steady load, not a flood of a 2-core machine. */
const PACE_MS = 50;

let cluster: NatsCluster;
let proxy: RoundRobinProxy | undefined;
const gateways: { readonly cli: RunningCli; readonly url: string }[] = [];
const connections: NatsConnection[] = [];
const closers: (() => Promise<unknown>)[] = [];

/** An `rxmcp gateway` process on every node of the cluster, listening on a free port. */
async function startGateway(): Promise<{ readonly cli: RunningCli; readonly url: string }> {
  const cli = startCli(['gateway', '--nats', cluster.urls.join(','), '--js-replicas', '3', '--name', NAME, '--port', '0'], { ms: 10 * 60_000 });
  // Its end is awaited in `after`; a gateway killed for running too long must not be an unhandled rejection.
  void cli.done.catch(() => undefined);
  const listening = (): RegExpExecArray | null => /listening at (\S+)/.exec(cli.stdout() + cli.stderr());
  await until(() => listening() !== null || cli.child.exitCode !== null, 'the gateway to listen', 60_000);
  const match = listening();
  if (match === null) throw new Error(`the gateway did not start:\n${cli.stdout()}${cli.stderr()}`);
  return { cli, url: match[1] as string };
}

interface HttpClient {
  readonly label: string;
  readonly era: 'legacy' | 'modern';
  call(n: number): Promise<Outcome>;
  /** The session id now (legacy), for the check that it never changed. */
  sessionId(): string | undefined;
  /** Session renewals the client made on its own (a lost session). */
  readonly renewals: () => number;
}

/** A call of the fixture's tools: echoes and short slow calls, so calls are in flight at the kill. */
function argsOf(n: number): { readonly tool: string; readonly args: Record<string, string | number> } {
  return n % 2 === 0 ? { tool: 'echo', args: { text: `call ${n}` } } : { tool: 'slow', args: { ms: 50 + ((n * 37) % 250) } };
}

async function rxmcpClient(label: string, era: 'legacy' | 'modern'): Promise<HttpClient> {
  const transport: StreamableHttpClientTransport = createStreamableHttpClientTransport((proxy as RoundRobinProxy).url);
  let renewals = 0;
  const events = transport.events$.subscribe((event) => {
    if (event.type === 'session-renewed') renewals++;
  });
  const session: ClientSession = await createClient({ name: label, version: '1.0.0', era }).connect(transport);
  closers.push(async () => {
    events.unsubscribe();
    await session.close();
  });
  return {
    label,
    era,
    call: (n) => {
      const { tool, args } = argsOf(n);
      return timedCall(session, tool, args, CALL_TIMEOUT_MS);
    },
    sessionId: () => transport.sessionId,
    renewals: () => renewals,
  };
}

async function sdkClient(label: string): Promise<HttpClient> {
  const client = new Sdk2Client({ name: label, version: '2.0.0' });
  const transport = new Sdk2HttpTransport(new URL((proxy as RoundRobinProxy).url));
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  closers.push(() => client.close());
  return {
    label,
    era: 'legacy',
    async call(n) {
      const { tool, args } = argsOf(n);
      const sentAt = Date.now();
      try {
        const result = (await client.callTool({ name: tool, arguments: args }, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
        if (result.isError === true) return { ok: false, error: result, code: 'ToolError', ms: Date.now() - sentAt, sentAt };
        return { ok: true, pid: answerOf(result).pid, ms: Date.now() - sentAt, sentAt };
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        return { ok: false, error, code: typeof code === 'string' || typeof code === 'number' ? String(code) : 'unknown', ms: Date.now() - sentAt, sentAt };
      }
    },
    sessionId: () => transport.sessionId,
    renewals: () => 0,
  };
}

/** A call that ran into its own bound: it hung (a clear error is any other failure). */
function hung(outcome: Outcome): boolean {
  return !outcome.ok && (outcome.ms >= CALL_TIMEOUT_MS - 100 || outcome.code === 'RequestTimeout' || /time_?d? ?out/i.test(outcome.code));
}

const progressOf = (message: Record<string, unknown>): number => (message['params'] as { progress: number }).progress;

describe('gateway replicas on a NATS cluster: a node dies under load', { timeout: 240_000 }, () => {
  before(async () => {
    cluster = await startNatsCluster();
  });

  after(async () => {
    await Promise.allSettled(closers.map((close) => close()));
    await proxy?.close();
    for (const gateway of gateways) gateway.cli.child.kill('SIGTERM');
    await Promise.race([Promise.allSettled(gateways.map((gateway) => gateway.cli.done)), sleep(15_000)]);
    await killChildren();
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await stopAll();
    await cluster.dispose();
  });

  test('no call hangs, no session is lost, a stream resumes on the other replica through the election', { timeout: 230_000 }, async (t) => {
    gateways.push(...(await Promise.all([startGateway(), startGateway()])));
    const setup = await natsConnection(cluster.urls, 'gw-cluster-setup');
    connections.push(setup);
    const jsm = await jetstreamManager(setup);
    const bucket = await jsm.streams.info(`KV_mcp_gateway_${NAME}`);
    const events = await jsm.streams.info(`MCP_GATEWAY_EVENTS_${NAME}`);
    assert.equal(bucket.config.num_replicas, 3, 'the gateway session bucket has 3 replicas');
    assert.equal(events.config.num_replicas, 3, 'the gateway event stream has 3 replicas');
    const v = cluster.nodes.findIndex((node) => node.name === bucket.cluster?.leader);
    assert.ok(v >= 0, `the session bucket has a leader (${String(bucket.cluster?.leader)})`);
    const victim = cluster.nodes[v] as ClusterNode;
    t.diagnostic(`session bucket led by ${victim.name}, event stream by ${String(events.cluster?.leader)}`);
    // The MCP server process, first on a node that lives (its own failover is node-kill.spec.ts's subject).
    const urls = [...cluster.urls.slice(v + 1), ...cluster.urls.slice(0, v + 1)];
    await startServerProcess(urls.join(','), NAME, { REPLICAS: '3' });
    proxy = await roundRobinProxy(gateways.map((gateway) => gateway.url));

    const clients: HttpClient[] = [
      ...(await Promise.all([0, 1, 2].map((i) => rxmcpClient(`rxmcp-legacy-${i}`, 'legacy')))),
      await rxmcpClient('rxmcp-modern', 'modern'),
      await sdkClient('sdk2-legacy'),
    ];
    const loads = new Map<HttpClient, Load>();
    const load = (client: HttpClient): void => void loads.set(client, startLoad(2, 10_000, 150_000, (n) => sleep(PACE_MS).then(() => client.call(n))));
    for (const client of clients) load(client);
    const all = (): { readonly client: HttpClient; readonly outcome: Outcome }[] => [...loads].flatMap(([client, running]) => running.outcomes.map((outcome) => ({ client, outcome })));
    const stopLoads = async (): Promise<void> => {
      for (const running of loads.values()) running.stop();
      await Promise.all([...loads.values()].map((running) => running.done));
    };

    try {
      await until(() => [...loads.values()].every((running) => running.outcomes.some((o) => o.ok)), 'every client answered before the kill', 30_000);
      const initialIds = new Map(clients.map((client) => [client, client.sessionId()]));

      // A stream to resume: a legacy session on replica A, its request's stream broken after two events.
      const [a, b] = gateways;
      assert.ok(a !== undefined && b !== undefined);
      const raw = new RawMcp(a.url);
      await raw.initialize('2025-11-25');
      const ticksId = raw.id();
      const post = asStream(await raw.post({ jsonrpc: '2.0', id: ticksId, method: 'tools/call', params: { name: 'ticks', arguments: { count: TICKS, ms: TICK_MS }, _meta: { progressToken: 'ticks' } } }));
      const second = await nextMessage(post, (message) => isMethod('notifications/progress')(message) && progressOf(message) === 2, 15_000);
      const lastSeen = post.events.findLast((event) => event.data === JSON.stringify(second))?.id;
      assert.ok(lastSeen !== undefined, 'events carry ids');
      post.close();
      await post.done;

      const killedAt = Date.now();
      await victim.kill();
      t.diagnostic(`${victim.name} killed`);
      // Sessions opened during the election, through the balancer (the replica taking each writes its record) ...
      const opening = Promise.all([0, 1].map((i) => rxmcpClient(`rxmcp-newcomer-${i}`, 'legacy')));
      // ... while the broken stream resumes on the other replica: what was stored, then live, up to the answer.
      const resumed = asStream(await rawRequest(b.url, { method: 'GET', headers: raw.sessionHeaders({ accept: 'text/event-stream', 'last-event-id': lastSeen }) }, raw.checkEvent));
      t.diagnostic(`stream resumed ${Date.now() - killedAt} ms after the kill (status ${resumed.status})`);
      const newcomers = await opening;
      t.diagnostic(`new sessions opened ${Date.now() - killedAt} ms after the kill`);
      for (const client of newcomers) {
        initialIds.set(client, client.sessionId());
        load(client);
      }
      clients.push(...newcomers);
      assert.equal(resumed.status, 200, 'the stream resumes on the other replica');
      const answer = await nextMessage(resumed, answers(ticksId), TICKS * TICK_MS + CALL_TIMEOUT_MS);
      const progress = [...messagesOf(post), ...messagesOf(resumed)].filter(isMethod('notifications/progress')).map(progressOf);
      t.diagnostic(`resumed stream: ${progress.length} progress events, answer ${JSON.stringify(answer).slice(0, 200)}`);
      assert.deepEqual(progress, Array.from({ length: TICKS }, (_, i) => i + 1), 'every progress event once, in order, across the break');
      assert.equal(answer['error'], undefined, 'the request was answered');
      const ids = [...post.events, ...resumed.events].map((event) => event.id).filter((id) => id !== undefined && id !== '');
      assert.equal(new Set(ids).size, ids.length, 'no event id twice');
      resumed.close();
      await resumed.done;

      // Calls caught by the kill end (the slowest by the gateway's silence limit); then every call must succeed.
      await sleep(Math.max(0, killedAt + RECOVERY_MS - Date.now()));
      const recoveredAt = Date.now();
      await until(() => [...loads.values()].every((running) => running.outcomes.filter((o) => o.ok && o.sentAt > recoveredAt).length >= 5), 'every client answered after the recovery', 30_000);
      await victim.start();
      t.diagnostic(`${victim.name} restarted ${Date.now() - killedAt} ms after the kill`);
      const restartedAt = Date.now();
      await until(() => [...loads.values()].every((running) => running.outcomes.filter((o) => o.ok && o.sentAt > restartedAt).length >= 5), 'every client answered after the restart', 30_000);
      await stopLoads();

      // No session lost: each legacy one answers with the id it had, and none initialized again.
      const sessionsLost: string[] = [];
      for (const client of clients.filter((one) => one.era === 'legacy')) {
        const outcome = await client.call(0);
        if (!outcome.ok || client.sessionId() !== initialIds.get(client) || client.renewals() > 0) sessionsLost.push(`${client.label}: ${describeOutcome(outcome)}, id ${String(initialIds.get(client))} -> ${String(client.sessionId())}, ${client.renewals()} renewals`);
      }
      // Through the balancer (the raw stream's session went to replica A directly).
      const legacySessions = clients.filter((one) => one.era === 'legacy').length;
      const initializes = (proxy as RoundRobinProxy).routed.filter((entry) => entry.method === 'POST' && entry.body.includes('"method":"initialize"')).length;

      const outcomes = all();
      const failed = outcomes.filter(({ outcome }) => !outcome.ok);
      const hangs = failed.filter(({ outcome }) => hung(outcome));
      t.diagnostic(`calls: ${outcomes.length}, acknowledged ${outcomes.length - failed.length}, failed with a clear error ${failed.length - hangs.length}, hung ${hangs.length}; legacy sessions: ${clients.filter((one) => one.era === 'legacy').length}, lost ${sessionsLost.length}`);
      for (const { client, outcome } of failed) t.diagnostic(`failed ${client.label} (sent ${outcome.sentAt - killedAt} ms after the kill): ${describeOutcome(outcome)}`);
      for (const lost of sessionsLost) t.diagnostic(`lost ${lost}`);

      assert.deepEqual(hangs.map(({ client, outcome }) => `${client.label}: ${describeOutcome(outcome)}`), [], 'no call hung');
      for (const { client, outcome } of failed) {
        assert.ok(outcome.sentAt + outcome.ms >= killedAt - 100 && outcome.sentAt <= recoveredAt, `${client.label}: only calls around the kill fail: ${describeOutcome(outcome)}`);
      }
      assert.deepEqual(failed.filter(({ outcome }) => outcome.sentAt > recoveredAt).map(({ client, outcome }) => `${client.label}: ${describeOutcome(outcome)}`), [], 'every call sent after the recovery (and the restart) was answered');
      assert.deepEqual(sessionsLost, [], 'no session lost');
      assert.equal(initializes, legacySessions, 'one initialize per legacy session, none again');
    } finally {
      await stopLoads();
    }
  });
});
