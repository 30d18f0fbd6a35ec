/**
 * A hand-written stdio client for the reliability specs: spawns a server program as a real child process and
 * speaks raw lines to it, so a spec can send what the project's client never would (bursts in one write, garbage)
 * and count every answer per id. Every child started is killed by its pid in {@link killRawPeers}.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { programArgs } from './spec-program.ts';

export const BURST_SERVER = fileURLToPath(new URL('./stdio-fixtures/burst-server.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

type Message = { readonly id?: unknown; readonly [key: string]: unknown };

const running = new Set<ChildProcessWithoutNullStreams>();

export async function killRawPeers(): Promise<void> {
  const children = [...running];
  running.clear();
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid as number, 'SIGKILL');
      await exited;
    }),
  );
}

export class RawStdioPeer {
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly answers = new Map<unknown, Message[]>();
  private readonly others: Message[] = [];
  private readonly idless: Message[] = [];
  private buffered = '';
  private lastId = 0;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    running.add(child);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.read(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => void (this.stderr += chunk));
  }

  /** Starts `program` (default: the burst fixture) with tsx; resolves once it runs. */
  static async spawn(program = BURST_SERVER, args: readonly string[] = []): Promise<RawStdioPeer> {
    const child = spawn(process.execPath, [...programArgs(program), ...args], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return new RawStdioPeer(child);
  }

  get pid(): number {
    return this.child.pid as number;
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** Sends one request with a fresh string id and waits for its answer. */
  async request(method: string, params: Record<string, unknown> | undefined, timeoutMs: number): Promise<Message> {
    const id = `${method === 'ping' ? 'ping' : 'req'}-${++this.lastId}`;
    this.write(`${JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params })}\n`);
    await this.waitFor(() => this.answers.has(id), timeoutMs, `the answer to ${method} (${id})`);
    return (this.answers.get(id) as Message[])[0] as Message;
  }

  /** The legacy handshake's first half (`initialize`), as a 2025-06-18 client. */
  async initialize(): Promise<Message> {
    const answer = await this.request(
      'initialize',
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-peer', version: '1.0.0' } },
      20_000,
    );
    if (!('result' in answer)) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
    return answer;
  }

  answersTo(id: unknown): readonly Message[] {
    return this.answers.get(id) ?? [];
  }

  answeredIds(): ReadonlySet<unknown> {
    return new Set(this.answers.keys());
  }

  /** Answers without an id (errors about frames that had none). */
  unmatched(): readonly Message[] {
    return this.idless;
  }

  /** Everything else the server sent (notifications, requests). */
  notifications(): readonly Message[] {
    return this.others;
  }

  stopReading(): void {
    this.child.stdout.pause();
  }

  resumeReading(): void {
    this.child.stdout.resume();
  }

  async endInput(): Promise<void> {
    await new Promise<void>((resolve) => this.child.stdin.end(resolve));
  }

  signal(signal: NodeJS.Signals): void {
    process.kill(this.pid, signal);
  }

  /** Polls `condition` every 10 ms until it holds or `timeoutMs` passes (then throws naming `what`). */
  async waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.stderr.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private read(chunk: string): void {
    this.buffered += chunk;
    let newline = this.buffered.indexOf('\n');
    while (newline >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      newline = this.buffered.indexOf('\n');
      if (line.trim() === '') continue;
      const message = JSON.parse(line) as Message;
      const isAnswer = 'result' in message || 'error' in message;
      if (!isAnswer) this.others.push(message);
      else if (message.id === undefined || message.id === null) this.idless.push(message);
      else {
        const list = this.answers.get(message.id);
        if (list === undefined) this.answers.set(message.id, [message]);
        else list.push(message);
      }
    }
  }
}
