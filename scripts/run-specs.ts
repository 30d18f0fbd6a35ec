/**
 * `npm test`: every spec file under specs/ through node:test's `run()`, in two groups:
 *
 * 1. concurrent: the files without a `@serial` tag, a few to a process (`--batch`, default 5: they run one after
 *    the other there, each its own suite, and what they import is loaded once; scripts/spec-runner/batches.ts),
 *    `--concurrency` processes at a time (default: three times the cores, since most files spend their time waiting
 *    on sockets, child processes and timers rather than on a core), those tagged `@slow` started first, each in a
 *    process of its own, as is each tagged `@own-process`;
 * 2. serial: the files tagged `// @serial: <reason>`, one at a time, each in its own process, with nothing else
 *    running (once the files named by RXMCP_SPEC_SERIAL_AFTER exist, when it is set: scripts/spec-runner/serial-gate.ts).
 *
 * The tags and when to use them: scripts/spec-runner/groups.ts and specs/README.md.
 *
 * The output is one TAP document on stdout (as `tsx --test` gives), ending with the totals, each group's wall time,
 * and the slowest spec files and tests. Exits 1 when a test failed or was cancelled.
 *
 *   npm test                                   every spec file
 *   npm test -- specs/a.spec.ts specs/b.spec.ts  just those (their tags still apply)
 *   npm test -- --concurrency 1                one process at a time (RXMCP_SPEC_CONCURRENCY=1 does the same)
 *   npm test -- --batch 1                      every file in a process of its own (RXMCP_SPEC_BATCH=1 does the same)
 *
 * The specs that start the `rxmcp` command run the built one (dist/cli/rxmcp.js) when dist/ is the build of the
 * current sources (scripts/build-stamp.ts, checked once here), and cli/rxmcp.ts through tsx otherwise
 * (specs/support/rxmcp-command.ts); the first line of the output says which.
 */
import { once } from 'node:events';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import { parseArgs } from 'node:util';
import { BUILT_CLI_ENV, CLI_BUILT } from '../specs/support/rxmcp-command.ts';
import { isCurrent } from './build-stamp.ts';
import { type SpecUnit, batchDir, writeUnits } from './spec-runner/batches.ts';
import { groupSpecs, specFile, type SpecFile } from './spec-runner/groups.ts';
import { SERIAL_AFTER_ENV, gateFiles, waitForGate } from './spec-runner/serial-gate.ts';
import { Occupancy, Timings, endedChildrenCpuMs, occupancyLine, seconds, slowestReport } from './spec-runner/timings.ts';

type TestEvent = Parameters<typeof tap>[0] extends AsyncGenerator<infer Event, void> ? Event : never;

const root = join(import.meta.dirname, '..');
const SLOWEST = 20;
const DEFAULT_BATCH = 5;

function usage(message: string): never {
  console.error(`run-specs: ${message}\nusage: npm test [-- [--concurrency N] [--batch N] [spec file...]]`);
  process.exit(2);
}

function positiveInteger(value: string, what: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) usage(`${what} must be a positive integer, got "${value}"`);
  return n;
}

/** Every `*.spec.ts` under specs/, as paths relative to the repository root, sorted. */
function allSpecs(dir = join(root, 'specs')): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...allSpecs(path));
    else if (entry.isFile() && entry.name.endsWith('.spec.ts')) found.push(relative(root, path));
  }
  return found.sort();
}

interface Group {
  readonly label: string;
  readonly files: readonly SpecFile[];
  /** The processes that run them. */
  readonly units: readonly SpecUnit[];
  readonly concurrency: number;
  /** What to wait for before the group starts: the line for the log, if any. */
  readonly after?: (signal: AbortSignal) => Promise<string | undefined>;
}

/** What the runs of the groups add up to. */
class Totals {
  /** node:test's own end-of-run counts (tests, suites, pass, fail, cancelled, skipped, todo), summed over the groups. */
  readonly counts = new Map<string, number>();
  /** Top-level results so far (the plan's count at the end). */
  topLevel = 0;
  /** `test:fail` events other than todo tests'. */
  failed = 0;
  readonly wallMs: { label: string; ms: number; cpuMs: number | undefined; occupancy: Occupancy }[] = [];
}

const diagnostic = (message: string): TestEvent => ({ type: 'test:diagnostic', data: { nesting: 0, message } });

/**
 * One group's events, made to continue the document: its top-level results numbered on from the previous groups', its
 * plan and totals kept back (the whole run's are given at the end), file and test durations recorded.
 */
async function* groupEvents(group: Group, totals: Totals, timings: Timings, occupancy: Occupancy, signal: AbortSignal): AsyncGenerator<TestEvent, void> {
  // A spec file's own result is a top-level one named by its path: its process's, when it has one of its own; its
  // suite's, in a batch. A process's is the top-level one named by the module the process runs.
  const specPaths = new Set(group.files.map((file) => resolve(root, file.path)));
  type Named = { readonly nesting: number; readonly file?: string | undefined; readonly name: string };
  const isFile = (data: Named): data is Named & { file: string } => data.nesting === 0 && data.file !== undefined && specPaths.has(resolve(root, data.name));
  const isProcess = (data: Named): data is Named & { file: string } => data.nesting === 0 && data.file !== undefined && resolve(root, data.name) === data.file;
  const stream = run({ files: group.units.map((unit) => unit.entry), concurrency: group.concurrency, signal });
  for await (const event of stream as AsyncIterable<TestEvent>) {
    switch (event.type) {
      case 'test:plan':
        if (event.data.nesting === 0 && event.data.file === undefined) continue;
        break;
      case 'test:diagnostic':
        if (event.data.nesting === 0 && event.data.file === undefined) {
          const count = /^(\w+) (\d+)$/.exec(event.data.message);
          if (count !== null) totals.counts.set(count[1]!, (totals.counts.get(count[1]!) ?? 0) + Number(count[2]));
          if (count !== null || event.data.message.startsWith('duration_ms ')) continue;
        }
        break;
      case 'test:dequeue':
        if (isProcess(event.data)) occupancy.started(event.data.file, performance.now());
        break;
      case 'test:complete':
        if (isProcess(event.data)) occupancy.ended(event.data.file, performance.now());
        if (isFile(event.data)) timings.file(resolve(root, event.data.name), event.data.details.duration_ms);
        break;
      case 'test:pass':
      case 'test:fail': {
        const data = event.data;
        if (event.type === 'test:fail' && data.todo === undefined) totals.failed++;
        if (!isFile(data) && data.details.type !== 'suite') timings.test(data.file, data.name, data.details.duration_ms);
        // Top-level results numbered 1..n over the whole run (node:test numbers each group from 1, and can give a
        // file that fails to load the number of a test before it). The event is this runner's own object, fresh
        // from the stream: renumbering it in place is safe.
        if (data.nesting === 0) data.testNumber = ++totals.topLevel;
        break;
      }
      default:
        break;
    }
    yield event;
  }
}

async function* allEvents(groups: readonly Group[], timings: Timings, signal: AbortSignal, cliLine: string): AsyncGenerator<TestEvent, void> {
  const totals = new Totals();
  const started = performance.now();
  yield diagnostic(cliLine);
  for (const group of groups) {
    if (group.files.length === 0) continue;
    const waited = await group.after?.(signal);
    if (waited !== undefined) yield diagnostic(waited);
    const processes = group.units.length === group.files.length ? '' : ` in ${group.units.length} process${group.units.length === 1 ? '' : 'es'}`;
    yield diagnostic(`${group.label}: ${group.files.length} spec file${group.files.length === 1 ? '' : 's'}${processes}, ${group.concurrency === 1 ? 'one at a time' : `${group.concurrency} at a time`}`);
    for (const file of group.files) {
      if (file.serial !== undefined) yield diagnostic(`  ${file.path}: ${file.serial}`);
      else if (file.slow !== undefined) yield diagnostic(`  starts first, ${file.path}: ${file.slow}`);
      else if (file.ownProcess !== undefined) yield diagnostic(`  a process of its own, ${file.path}: ${file.ownProcess}`);
    }
    const groupStarted = performance.now();
    const cpuBefore = endedChildrenCpuMs();
    const occupancy = new Occupancy();
    yield* groupEvents(group, totals, timings, occupancy, signal);
    const cpuAfter = endedChildrenCpuMs();
    const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    totals.wallMs.push({ label: group.label, ms: performance.now() - groupStarted, cpuMs, occupancy });
  }
  yield { type: 'test:plan', data: { nesting: 0, count: totals.topLevel } };
  for (const name of ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo']) yield diagnostic(`${name} ${totals.counts.get(name) ?? 0}`);
  yield diagnostic(`duration_ms ${(performance.now() - started).toFixed(0)}`);
  for (const { label, ms, cpuMs, occupancy } of totals.wallMs) {
    const cpu = cpuMs === undefined ? '' : `, ${seconds(cpuMs)} CPU (${(cpuMs / ms).toFixed(2)} cores)`;
    yield diagnostic(`${label} group: ${seconds(ms)} wall${cpu}; ${occupancyLine(occupancy)}`);
  }
  yield diagnostic(`the spec files' own times add up to ${seconds(timings.filesTotalMs)}`);
  for (const line of slowestReport(timings, SLOWEST)) yield diagnostic(line);
  if (totals.failed > 0 || (totals.counts.get('fail') ?? 0) > 0 || (totals.counts.get('cancelled') ?? 0) > 0) process.exitCode = 1;
}

/** Which `rxmcp` the spec processes start (they inherit this environment), as the line that says so. */
function chooseCli(): string {
  if (existsSync(CLI_BUILT) && isCurrent()) {
    process.env[BUILT_CLI_ENV] = CLI_BUILT;
    return `the rxmcp command: ${relative(root, CLI_BUILT)} (dist/ is the build of the current sources)`;
  }
  delete process.env[BUILT_CLI_ENV];
  return 'the rxmcp command: cli/rxmcp.ts through tsx (dist/ is missing or not the build of the current sources; `npm run build` first to start the built one)';
}

async function main(): Promise<void> {
  let parsed: { values: { concurrency?: string | undefined; batch?: string | undefined }; positionals: string[] };
  try {
    parsed = parseArgs({ options: { concurrency: { type: 'string' }, batch: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (error) {
    usage(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const concurrencyArg = values.concurrency ?? process.env['RXMCP_SPEC_CONCURRENCY'];
  const concurrency = concurrencyArg === undefined || concurrencyArg === '' ? Math.max(2, availableParallelism() * 3) : positiveInteger(concurrencyArg, '--concurrency');
  const batchArg = values.batch ?? process.env['RXMCP_SPEC_BATCH'];
  const batch = batchArg === undefined || batchArg === '' ? DEFAULT_BATCH : positiveInteger(batchArg, '--batch');
  const paths = positionals.length > 0 ? positionals.map((path) => relative(root, resolve(path))) : allSpecs();
  const { concurrent, serial } = groupSpecs(paths.map((path) => specFile(path, readFileSync(resolve(root, path), 'utf8'))));
  const batches = batchDir(root);
  process.once('exit', () => rmSync(batches, { recursive: true, force: true }));
  const groups: Group[] = [
    // Never fewer processes than run at once (a short run of a few files keeps its cores busy).
    { label: 'concurrent', files: concurrent, units: writeUnits(concurrent, Math.min(batch, Math.ceil(concurrent.length / concurrency)), root, join(batches, 'concurrent')), concurrency },
    // Never batched: a serial file runs with nothing else, in a process of its own.
    {
      label: 'serial',
      files: serial,
      units: serial.map((file) => ({ entry: resolve(root, file.path), files: [file] })),
      concurrency: 1,
      after: (signal) => waitForGate(gateFiles(process.env[SERIAL_AFTER_ENV]), signal),
    },
  ];

  const abort = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => abort.abort());
  const timings = new Timings(root);
  for await (const chunk of tap(allEvents(groups, timings, abort.signal, chooseCli()))) {
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
  }
}

main().catch((error: unknown) => {
  console.error(`run-specs: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
