/**
 * The reader's shell, for the doc runner: commands run by bash in a directory that carries over from one command to
 * the next (a `cd` in one block holds for the blocks after it), with stdin closed (a stdio server ends as with
 * Ctrl-D), output collected in arrival order, bounded in time. A command may run in a pseudo-terminal (util-linux
 * `script`), so that it prints what it prints for a person. A background command is left running in its own
 * process group, which is ended by its id when the page is done.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderTerminal } from './output.ts';

export interface Finished {
  readonly code: number | null;
  /** stdout and stderr as they arrived (a pseudo-terminal's output: as a terminal shows it). */
  readonly lines: readonly string[];
}

export interface StepOptions {
  readonly tty?: boolean;
  /** Told every new piece of output (all of it so far, escape sequences removed), e.g. to spot a login URL. */
  readonly onOutput?: (text: string) => void;
  readonly timeoutMs?: number;
}

/** How long one command may take: an `npm install` from the registry on a busy machine. */
const STEP_MS = 180_000;
const READY_MS = 60_000;
const STOP_MS = 5_000;

export class ReaderShell {
  #cwd: string;
  #steps = 0;
  readonly #scratch: string;
  readonly #background: { child: ChildProcess; closed: Promise<void> }[] = [];

  constructor(
    start: string,
    readonly env: NodeJS.ProcessEnv,
  ) {
    this.#cwd = start;
    this.#scratch = join(start, '.doc-run');
    mkdirSync(this.#scratch, { recursive: true });
  }

  /** The directory the next command starts in. */
  get cwd(): string {
    return this.#cwd;
  }

  /** Runs `script` (one or more lines; the first failing line fails it) to its end. */
  async run(script: string, options: StepOptions = {}): Promise<Finished> {
    const { child, output, state } = this.#spawn(script, options);
    const timer = setTimeout(() => this.#kill(child, 'SIGKILL'), options.timeoutMs ?? STEP_MS);
    const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
    clearTimeout(timer);
    this.#cwd = readState(state) ?? this.#cwd;
    return { code, lines: output() };
  }

  /** Starts `command` in the background; resolves with its output once that output contains `ready`. */
  async start(command: string, ready: string): Promise<Finished> {
    const { child, output } = this.#spawn(command, {});
    this.#background.push({ child, closed: new Promise((resolve) => child.once('close', () => resolve())) });
    const started = Date.now();
    while (!output().join('\n').includes(ready)) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode}) before printing ${JSON.stringify(ready)}:\n${output().join('\n')}`);
      if (Date.now() - started > READY_MS) throw new Error(`did not print ${JSON.stringify(ready)} within ${READY_MS} ms:\n${output().join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { code: null, lines: output() };
  }

  /** Ends every background command (SIGTERM to its group, SIGKILL after a grace period), by its id. */
  async close(): Promise<void> {
    await Promise.all(
      this.#background.map(async ({ child, closed }) => {
        this.#kill(child, 'SIGTERM');
        const timer = setTimeout(() => this.#kill(child, 'SIGKILL'), STOP_MS);
        await closed;
        clearTimeout(timer);
      }),
    );
  }

  #spawn(script: string, options: StepOptions): { child: ChildProcess; output: () => string[]; state: string } {
    this.#steps += 1;
    const file = join(this.#scratch, `step-${this.#steps}.sh`);
    const state = join(this.#scratch, `step-${this.#steps}.cwd`);
    // The directory it ends in is the next one's: written on any exit, failures included.
    writeFileSync(file, `cd ${quote(this.#cwd)} || exit 97\ntrap ${quote(`pwd > ${quote(state)}`)} EXIT\nset -eo pipefail\n${script}\n`);
    const [command, args] = options.tty === true ? ['script', ['-qec', `bash ${quote(file)}`, '/dev/null']] as const : ['bash', [file]] as const;
    // detached: a process group of its own, so that npx and the program it starts end together.
    const child = spawn(command, [...args], { cwd: this.#cwd, env: { ...this.env, SHELL: '/bin/bash' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let raw = '';
    const take = (chunk: Buffer): void => {
      raw += chunk.toString('utf8');
      options.onOutput?.(renderTerminal(raw).join('\n'));
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    return { child, output: () => renderTerminal(raw), state };
  }

  /** The whole group: the shell may be gone while a program it started still holds the output open. */
  #kill(child: ChildProcess, signal: NodeJS.Signals): void {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}

function readState(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
