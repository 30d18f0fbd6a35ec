/**
 * The stdio medium under test: each scenario gets a fresh server process (stdio-program.ts, one session per
 * process, as stdio servers are), driven with raw lines on its stdin. The client sees a session end as the
 * process closing stdout and exiting with the reason on stderr; a crash, an exit without a reason, a non-JSON
 * line on stdout, or an unbounded heap (sampled by the child itself) are violations.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createStreamDecoder, jsonCodec } from '../../engine.ts';
import { type Connection, drive } from './driver.ts';
import { FRAME_LIMIT } from './fuzz-server.ts';
import { renderScenario } from './script.ts';
import type { Scenario, TrafficBounds } from './traffic.ts';
import { HEAP_GROWTH_BOUND, type RunResult, type TransportUnderTest } from './under-test.ts';
import { programArgs } from '../support/spec-program.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROGRAM = fileURLToPath(new URL('./stdio-program.ts', import.meta.url));
/** Writing to a server that takes nothing from its stdin for this long is a violation (it stopped reading). */
const STDIN_STALL_MS = 20_000;
/** How long a server may take to exit once its stdin closed. */
const EXIT_MS = 10_000;
/**
 * How long the child may take to start serving (its first heap sample says it runs). Under a loaded machine tsx
 * alone can take seconds to load the program; that start is no answer time, so the script's clock starts after it.
 */
const START_MS = 30_000;

class StdioConnection implements Connection {
  readonly messages: unknown[] = [];
  readonly problems: string[] = [];
  readonly stderr: string[] = [];
  readonly heap: number[] = [];
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private stdoutEnded = false;
  readonly exited: Promise<void>;
  private stderrTail = '';
  private started: (() => void) | undefined;
  /** Settles once the program runs (its first heap sample), or once it exited before that. */
  readonly running: Promise<void>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    this.running = new Promise<void>((resolve) => (this.started = resolve));
    const decoder = createStreamDecoder(jsonCodec, 256 * 1024 * 1024);
    child.stdout.on('data', (chunk: Buffer) =>
      decoder.push(chunk, (item) => {
        if (item.ok) this.messages.push(item.value);
        else this.problems.push(`the server wrote a line that is not JSON: ${item.error.message}`);
      }),
    );
    child.stdout.on('end', () => (this.stdoutEnded = true));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      const lines = (this.stderrTail + text).split('\n');
      this.stderrTail = lines.pop() ?? '';
      for (const line of lines) {
        const sample = /^heap (\d+)$/.exec(line);
        if (sample !== null) {
          this.heap.push(Number(sample[1]));
          this.started?.();
          this.started = undefined;
        }
        else if (this.stderr.length < 200) this.stderr.push(line);
      }
    });
    child.stdin.on('error', () => undefined); // EPIPE after the server went away: the exit says why
    this.exited = once(child, 'exit').then(([code, signal]) => void (this.exit = { code: code as number | null, signal: signal as NodeJS.Signals | null }));
    void this.exited.then(() => this.started?.());
  }

  async send(frames: readonly { readonly text: string }[]): Promise<void> {
    if (this.exit !== undefined) return;
    const text = frames.map((frame) => `${frame.text}\n`).join('');
    if (this.child.stdin.write(text)) return;
    // `once` rejects on 'error' (EPIPE once the server is gone): the exit tells that story.
    const drained = once(this.child.stdin, 'drain').then(() => true, () => true);
    const gone = this.exited.then(() => true);
    const stalled = sleep(STDIN_STALL_MS).then(() => false);
    if (!(await Promise.race([drained, gone, stalled]))) this.problems.push(`the server took nothing from its stdin for ${STDIN_STALL_MS} ms`);
  }

  pauseReading(): void {
    this.child.stdout.pause();
  }

  resumeReading(): void {
    this.child.stdout.resume();
  }

  endInput(): void {
    this.child.stdin.end();
  }

  ended(): { reason: string | undefined } | undefined {
    if (this.exit === undefined && !this.stdoutEnded) return undefined;
    const said = this.stderr.find((line) => line.startsWith('session ended: ') && line !== 'session ended: stdin closed');
    return { reason: said };
  }

  /** The last stderr lines, for reports. */
  stderrTailText(): string {
    return this.stderr.slice(-5).join(' | ');
  }
}

export function stdioUnderTest(bounds: Partial<TrafficBounds> = {}): TransportUnderTest {
  const running = new Set<ChildProcessWithoutNullStreams>();
  return {
    name: 'stdio',
    bounds: { maxSteps: 12, maxBurst: 3000, frameLimit: FRAME_LIMIT, canPauseReading: true, canEndInput: true, eras: ['legacy', 'modern'], ...bounds },
    render: { batches: true },
    async run(scenario: Scenario): Promise<RunResult> {
      const child = spawn(process.execPath, ['--expose-gc', ...programArgs(PROGRAM)], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
      running.add(child);
      const connection = new StdioConnection(child);
      try {
        const script = renderScenario(scenario, this.render);
        const startedInTime = await Promise.race([connection.running.then(() => true), sleep(START_MS, undefined, { ref: false }).then(() => false)]);
        if (!startedInTime) return { violations: [`the server program did not start within ${START_MS} ms`], framesSent: 0, maxHeapBytes: 0 };
        const result = await drive(connection, script);
        const violations = [...result.violations];
        const endedEarly = connection.exit !== undefined && scenario.endInput !== true;
        if (endedEarly && connection.ended()?.reason === undefined) {
          violations.push(`the server process exited (${JSON.stringify(connection.exit)}) without saying why: ${connection.stderrTailText()}`);
        }
        // The client goes away: an orderly end of stdin, so the process must exit by itself, code 0.
        child.stdin.end();
        connection.resumeReading();
        const exitedInTime = await Promise.race([connection.exited.then(() => true), sleep(EXIT_MS).then(() => false)]);
        if (!exitedInTime) violations.push(`the server did not exit within ${EXIT_MS} ms of its stdin closing`);
        else if (!endedEarly && connection.exit?.code !== 0) violations.push(`the server exited with ${JSON.stringify(connection.exit)} after stdin closed: ${connection.stderrTailText()}`);
        const baseline = connection.heap[0] ?? 0;
        const maxHeapBytes = Math.max(0, ...connection.heap);
        if (maxHeapBytes - baseline > HEAP_GROWTH_BOUND) {
          violations.push(`the server heap grew by ${Math.round((maxHeapBytes - baseline) / 2 ** 20)} MiB (bound ${HEAP_GROWTH_BOUND / 2 ** 20} MiB)`);
        }
        return { violations, framesSent: result.framesSent, maxHeapBytes };
      } finally {
        if (connection.exit === undefined && child.pid !== undefined) {
          child.kill('SIGKILL');
          await connection.exited;
        }
        running.delete(child);
      }
    },
    async dispose(): Promise<void> {
      for (const child of running) child.kill('SIGKILL');
      running.clear();
    },
  };
}
