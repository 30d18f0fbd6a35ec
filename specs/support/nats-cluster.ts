/**
 * Real nats-server clusters that a spec (or a bench) starts for itself on 127.0.0.1: `startNatsCluster` runs
 * `size` nodes joined by routes, with JetStream clustered over them; `startSupercluster` runs several such
 * clusters joined by gateways (one JetStream meta group spans them all). Every port is picked free; each node
 * has its own config file and store directory, so a node can be SIGKILLed (by its pid) and started again on
 * the same ports with the same data. Disposable (`await using`); it stops only the processes it started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { StorageType, jetstreamManager } from '@nats-io/jetstream';
import { acceptsConnections, freePort } from './nats-server.ts';

const READY_TIMEOUT_MS = 20_000;
/** JetStream needs a meta leader (elected among the nodes) before any stream or bucket can be made. */
const META_LEADER_TIMEOUT_MS = 30_000;

export interface ClusterNode {
  /** Its `server_name`: `<cluster>-n<index>`. */
  readonly name: string;
  /** `nats://127.0.0.1:<port>` (client port). */
  readonly url: string;
  readonly port: number;
  /** The running process's id (undefined while stopped). */
  readonly pid: number | undefined;
  /** SIGKILLs the node; it keeps its ports and store for `start`. */
  kill(): Promise<void>;
  /** Starts it again (same ports, same store); resolves once it is ready for clients. */
  start(): Promise<void>;
}

export interface NatsCluster extends AsyncDisposable {
  readonly name: string;
  readonly nodes: readonly ClusterNode[];
  /** Every node's client URL: a client given them all fails over to the others. */
  readonly urls: readonly string[];
  /**
   * Resolves once JetStream answers through `url` (default: any node), a meta leader elected, and every running
   * node hears a subscriber on each of the others.
   */
  jetstreamReady(url?: string, ms?: number): Promise<void>;
  dispose(): Promise<void>;
}

export interface Supercluster extends AsyncDisposable {
  readonly clusters: readonly NatsCluster[];
  cluster(name: string): NatsCluster;
  dispose(): Promise<void>;
}

interface NodePorts {
  readonly client: number;
  readonly route: number;
  readonly gateway: number | undefined;
}

interface GatewayPeer {
  readonly name: string;
  readonly ports: readonly number[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function nodeConfig(cluster: string, index: number, ports: readonly NodePorts[], storeDir: string, gateways: readonly GatewayPeer[]): string {
  const own = ports[index] as NodePorts;
  const routes = ports.filter((_, i) => i !== index).map((p) => `nats-route://127.0.0.1:${p.route}`);
  const lines = [
    `server_name: ${cluster}-n${index}`,
    `listen: 127.0.0.1:${own.client}`,
    `jetstream { store_dir: ${JSON.stringify(storeDir)} }`,
    `cluster { name: ${cluster}, listen: 127.0.0.1:${own.route}, routes: [${routes.join(', ')}] }`,
  ];
  if (own.gateway !== undefined) {
    const peers = gateways.map((peer) => `{ name: ${peer.name}, urls: [${peer.ports.map((port) => `nats://127.0.0.1:${port}`).join(', ')}] }`);
    lines.push(`gateway { name: ${cluster}, listen: 127.0.0.1:${own.gateway}, gateways: [${peers.join(', ')}] }`);
  }
  return `${lines.join('\n')}\n`;
}

function startNode(name: string, port: number, config: string): ClusterNode & { stop(): Promise<void> } {
  let child: ChildProcess | undefined;
  let output = '';
  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    const started = spawn('nats-server', ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    output = '';
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-6000));
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    started.once('exit', () => {
      if (child === started) child = undefined;
    });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child !== started) throw new Error(`nats-server ${name} exited while starting:\n${output}`);
      if (output.includes('Server is ready') && (await acceptsConnections(port))) return;
      await sleep(25);
    }
    throw new Error(`nats-server ${name} did not become ready within ${READY_TIMEOUT_MS} ms:\n${output}`);
  };
  const kill = async (): Promise<void> => {
    const running = child;
    if (running === undefined) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  return {
    name,
    url: `nats://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid;
    },
    kill,
    start,
    stop: kill,
  };
}

/** Polls JetStream's account info through `url` until it answers (a meta leader exists); throws after `ms`. */
async function awaitJetStream(servers: string | string[], ms: number, peers: number): Promise<void> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const nc = await connect({ servers, reconnect: false, timeout: 2000 });
      try {
        const jsm = await jetstreamManager(nc, { timeout: 2000 });
        await jsm.getAccountInfo();
        // A meta leader alone does not mean every running node is a JetStream peer yet ("no suitable peers for
        // placement"): a throwaway stream with a replica on each of them proves it.
        const probe = `READY_PROBE_${randomBytes(4).toString('hex')}`;
        await jsm.streams.add({ name: probe, subjects: [`ready-probe.${probe}`], storage: StorageType.Memory, num_replicas: Math.max(1, peers) });
        await jsm.streams.delete(probe).catch(() => undefined);
        return;
      } finally {
        await nc.close();
      }
    } catch (error) {
      last = error;
    }
    await sleep(200);
  }
  throw new Error(`JetStream did not answer through ${String(servers)} within ${ms} ms: ${String(last)}`);
}

/**
 * Polls until every running node hears a subscriber on every other one: each has its routes to all the others and
 * has taken their interest. A meta leader (and a stream with a replica on each node) needs only a quorum of routes,
 * so without this a spec's first request could reach a node that does not yet know the subscriber it is for, or
 * an answer the node its asker is on, and be dropped without a "no responders".
 */
async function awaitRoutes(urls: readonly string[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  const tag = randomBytes(4).toString('hex');
  const connections = await Promise.all(urls.map((url) => connect({ servers: url, reconnect: false, timeout: 2000 })));
  try {
    connections.forEach((nc, i) => nc.subscribe(`route-probe.${tag}.${i}`, { callback: (_error, msg) => void msg.respond() }));
    await Promise.all(connections.map((nc) => nc.flush()));
    for (const [from, nc] of connections.entries()) {
      for (let to = 0; to < connections.length; to++) {
        if (to === from) continue;
        for (;;) {
          try {
            await nc.request(`route-probe.${tag}.${to}`, undefined, { timeout: 500 });
            break;
          } catch (error) {
            if (Date.now() > deadline) throw new Error(`node ${urls[from]} did not reach a subscriber on ${urls[to]} within ${ms} ms: ${String(error)}`);
            await sleep(50);
          }
        }
      }
    }
  } finally {
    await Promise.allSettled(connections.map((nc) => nc.close()));
  }
}

interface Planned {
  readonly name: string;
  readonly ports: readonly NodePorts[];
}

async function plan(name: string, size: number, withGateway: boolean): Promise<Planned> {
  const ports: NodePorts[] = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), route: await freePort(), gateway: withGateway ? await freePort() : undefined });
  return { name, ports };
}

async function launch(planned: Planned, dir: string, gateways: readonly GatewayPeer[]): Promise<NatsCluster> {
  const nodes: (ClusterNode & { stop(): Promise<void> })[] = [];
  for (const [index, ports] of planned.ports.entries()) {
    const config = join(dir, `${planned.name}-n${index}.conf`);
    await writeFile(config, nodeConfig(planned.name, index, planned.ports, join(dir, `${planned.name}-n${index}-js`), gateways));
    nodes.push(startNode(`${planned.name}-n${index}`, ports.client, config));
  }
  const dispose = async (): Promise<void> => {
    await Promise.allSettled(nodes.map((node) => node.stop()));
  };
  try {
    // All at once: a node alone waits for its routes before JetStream can elect a leader.
    await Promise.all(nodes.map((node) => node.start()));
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    name: planned.name,
    nodes,
    urls: nodes.map((node) => node.url),
    async jetstreamReady(url, ms = META_LEADER_TIMEOUT_MS) {
      const running = nodes.filter((node) => node.pid !== undefined);
      await awaitJetStream(url ?? running.map((node) => node.url), ms, running.length);
      await awaitRoutes(running.map((node) => node.url), ms);
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

/** A `size`-node cluster (default 3) with clustered JetStream, ready once a meta leader is elected. */
export async function startNatsCluster(options: { readonly name?: string; readonly size?: number } = {}): Promise<NatsCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'rxmcp-nats-cluster-'));
  const planned = await plan(options.name ?? 'c', options.size ?? 3, false);
  let cluster: NatsCluster;
  try {
    cluster = await launch(planned, dir, []);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const dispose = async (): Promise<void> => {
    await cluster.dispose();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await cluster.jetstreamReady();
  } catch (error) {
    await dispose();
    throw error;
  }
  return { ...cluster, dispose, [Symbol.asyncDispose]: dispose };
}

/**
 * Clusters named `names` (default east and west) of `size` nodes each, joined by gateways into one
 * supercluster; ready once JetStream answers in every cluster.
 */
export async function startSupercluster(options: { readonly names?: readonly string[]; readonly size?: number } = {}): Promise<Supercluster> {
  const names = options.names ?? ['east', 'west'];
  const dir = await mkdtemp(join(tmpdir(), 'rxmcp-nats-super-'));
  const plans = await Promise.all(names.map((name) => plan(name, options.size ?? 3, true)));
  const peers: GatewayPeer[] = plans.map((p) => ({ name: p.name, ports: p.ports.map((ports) => ports.gateway as number) }));
  const clusters: NatsCluster[] = [];
  const dispose = async (): Promise<void> => {
    await Promise.allSettled(clusters.map((cluster) => cluster.dispose()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const planned of plans) clusters.push(await launch(planned, dir, peers.filter((peer) => peer.name !== planned.name)));
    for (const cluster of clusters) await cluster.jetstreamReady();
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    clusters,
    cluster(name) {
      const found = clusters.find((cluster) => cluster.name === name);
      if (found === undefined) throw new Error(`no cluster ${name} in this supercluster`);
      return found;
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
