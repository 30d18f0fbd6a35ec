/**
 * A real `nats-server` (the Debian package) that a spec starts for itself: on a free port of 127.0.0.1, with
 * JetStream in a temporary store directory, so the spec can kill it and start it again on the same port with
 * the same data. Disposable (`await using`); it stops only the process it started, by that process's id.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NatsServerOptions {
  /** The largest message the server accepts (its `max_payload`), in bytes (default: the server's 1 MiB). */
  readonly maxPayload?: number;
  /** Start with JetStream (default true). */
  readonly jetstream?: boolean;
  /**
   * More configuration (authorization, TLS), given the server's directory for files it names; it may also write
   * files there before the server starts.
   */
  readonly config?: (dir: string) => string | Promise<string>;
}

export interface NatsServerProcess extends AsyncDisposable {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The running process's id (undefined while stopped). */
  readonly pid: number | undefined;
  /** SIGKILLs the server (it keeps its port and store for `start`). */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same JetStream store. */
  start(): Promise<void>;
  /** Kills it and removes its store. */
  dispose(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/** A TCP port nothing listens on right now (the kernel picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on the port of 127.0.0.1 now. */
export async function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerProcess> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'rxmcp-nats-'));
  const config = join(dir, 'server.conf');
  const lines = [
    `listen: 127.0.0.1:${port}`,
    ...(options.maxPayload === undefined ? [] : [`max_payload: ${options.maxPayload}`]),
    ...(options.jetstream === false ? [] : [`jetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }`]),
    ...(options.config === undefined ? [] : [await options.config(dir)]),
  ];
  await writeFile(config, `${lines.join('\n')}\n`);
  let child: ChildProcess | undefined;
  let output = '';

  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    const started = spawn('nats-server', ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    started.stdout?.on('data', (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4000)));
    started.stderr?.on('data', (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4000)));
    started.once('exit', () => {
      if (child === started) child = undefined;
    });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    // JetStream is ready once the server logs it; the port accepting connections alone is not enough.
    while (Date.now() < deadline) {
      if (child !== started) throw new Error(`nats-server exited while starting:\n${output}`);
      const ready = options.jetstream === false ? true : output.includes('Server is ready');
      if (ready && (await acceptsConnections(port))) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`nats-server did not become ready within ${READY_TIMEOUT_MS} ms:\n${output}`);
  };

  const kill = async (): Promise<void> => {
    const running = child;
    if (running === undefined) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
    output = '';
  };

  const dispose = async (): Promise<void> => {
    await kill();
    await rm(dir, { recursive: true, force: true });
  };

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid;
    },
    kill,
    start,
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
