/**
 * The long run of the reliability properties (specs/fuzz/): the same properties as the bounded specs, with
 * bigger bounds (bursts up to 10,000), looped over every medium until the time is up, shrinking each failure
 * (for a few minutes at most) and printing how to replay it. Prints a summary and writes the "Reliability"
 * section of bench/RESULTS.md.
 *
 *   npm run fuzz -- --minutes 30 [--only=stdio,memory,http-legacy,http-modern,nats-legacy,nats-modern] [--no-write]
 *
 * Replay a failure: FUZZ_SEED=<seed> FUZZ_PATH=<path> npm run fuzz -- --minutes 5 --only=<medium>
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpUnderTest } from '../specs/fuzz/http-harness.ts';
import { memoryUnderTest } from '../specs/fuzz/memory-harness.ts';
import { natsUnderTest } from '../specs/fuzz/nats-harness.ts';
import { assertReliable, replayFromEnvironment } from '../specs/fuzz/property.ts';
import { stdioUnderTest } from '../specs/fuzz/stdio-harness.ts';
import { HEAP_GROWTH_BOUND, type TransportUnderTest } from '../specs/fuzz/under-test.ts';
import { fmt, repoRoot } from './lib.ts';
import { withReliabilitySection } from './reliability-section.ts';

const MEDIA: Readonly<Record<string, () => TransportUnderTest>> = {
  stdio: () => stdioUnderTest({ maxSteps: 20, maxBurst: 10_000 }),
  memory: () => memoryUnderTest({ maxSteps: 20, maxBurst: 10_000 }),
  'http-legacy': () => httpUnderTest('legacy', { maxSteps: 16, maxBurst: 2000 }),
  'http-modern': () => httpUnderTest('modern', { maxSteps: 16, maxBurst: 2000 }),
  'nats-legacy': () => natsUnderTest('legacy', { maxSteps: 20, maxBurst: 5000 }),
  'nats-modern': () => natsUnderTest('modern', { maxSteps: 20, maxBurst: 5000 }),
};
/** Runs per round of one medium, before the next medium's turn. */
const ROUND_RUNS = 10;
/** The most time one failure's shrinking may take. */
const SHRINK_MS = 4 * 60_000;
/** Failures kept per medium (the same defect tends to come back in every round). */
const FAILURES_KEPT = 3;

function option(name: string): string | undefined {
  const args = process.argv.slice(2);
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  if (inline !== undefined) return inline.slice(name.length + 3);
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

const minutes = Number(option('minutes') ?? '30');
if (!Number.isFinite(minutes) || minutes <= 0) throw new RangeError(`--minutes must be a positive number, got ${option('minutes')}`);
const only = option('only')?.split(',') ?? Object.keys(MEDIA);
for (const name of only) if (MEDIA[name] === undefined) throw new RangeError(`--only: unknown medium ${JSON.stringify(name)} (one of ${Object.keys(MEDIA).join(', ')})`);
const write = !process.argv.includes('--no-write');

interface Tally {
  runs: number;
  frames: number;
  failures: string[];
  failedRounds: number;
  maxHeapBytes: number;
}

const tallies = new Map<string, Tally>(only.map((name) => [name, { runs: 0, frames: 0, failures: [], failedRounds: 0, maxHeapBytes: 0 }]));
const startedAt = new Date();
const deadline = Date.now() + minutes * 60_000;
const replaying = replayFromEnvironment().seed !== undefined;

console.log(`reliability long run: ${minutes} min over ${only.join(', ')}${replaying ? ' (replaying FUZZ_SEED)' : ''}`);
let turn = 0;
while (Date.now() < deadline) {
  const name = only[turn++ % only.length] as string;
  const tally = tallies.get(name) as Tally;
  const under = (MEDIA[name] as () => TransportUnderTest)();
  const remaining = deadline - Date.now();
  try {
    await assertReliable(under, {
      numRuns: ROUND_RUNS,
      timeLimitMs: remaining + SHRINK_MS,
      runLimitMs: 120_000,
      onRun: (_scenario, result) => {
        tally.runs += 1;
        tally.frames += result.framesSent;
        tally.maxHeapBytes = Math.max(tally.maxHeapBytes, result.maxHeapBytes);
      },
    });
    process.stdout.write(`${name}: ${tally.runs} runs, ${tally.frames.toLocaleString('en')} frames, ${tally.failedRounds} failed rounds\n`);
  } catch (error) {
    tally.failedRounds += 1;
    const message = error instanceof Error ? error.message : String(error);
    if (tally.failures.length < FAILURES_KEPT) tally.failures.push(message);
    console.log(`\n${message}\n`);
  } finally {
    await under.dispose();
  }
  if (replaying) break;
}

const elapsedMin = (Date.now() - startedAt.getTime()) / 60_000;
const mib = (bytes: number): string => fmt(bytes / 2 ** 20, 1);
const rows = [...tallies].map(
  ([name, tally]) => `| ${name} | ${tally.runs} | ${tally.frames.toLocaleString('en')} | ${tally.failedRounds} | ${tally.maxHeapBytes === 0 ? 'n/a' : mib(tally.maxHeapBytes)} |`,
);
const failures = [...tallies].flatMap(([name, tally]) => tally.failures.map((failure) => `- ${name}:\n\n  \`\`\`\n${failure.split('\n').map((line) => `  ${line}`).join('\n')}\n  \`\`\``));
const command = `npm run fuzz -- --minutes ${minutes}${option('only') === undefined ? '' : ` --only=${only.join(',')}`}`;
const section = `## Reliability

Wire-level property tests (specs/fuzz/, fast-check): random traffic of valid and invalid frames, bursts up to
10,000 requests, cancellations, reused and invalid ids, batches, oversize frames and stalled readers, against a
real server per medium (a stdio process, Streamable HTTP and NATS on 127.0.0.1, the in-memory transport), both
eras where the medium serves both. Promise checked: every valid request id gets exactly one answer (a result
where it can only succeed), or the session ended with a reason the client saw, and never while the client was
reading; nothing else is answered with an id; the process stays up; a bystander session on the same server is
served throughout; heap growth after collection stays under ${HEAP_GROWTH_BOUND / 2 ** 20} MiB (stdio: the server process, peak;
in-process media: what a run leaves behind). "Max heap" is the largest server-side heap sampled after a
collection (in-process media: the client's side is in it too).

- Command: \`${command}\` (${fmt(elapsedMin, 1)} min, ${startedAt.toISOString()})
- Node: ${process.version}

| Medium | Runs | Frames sent | Failed rounds | Max heap (MiB) |
|---|---:|---:|---:|---:|
${rows.join('\n')}

${failures.length === 0 ? 'No failures.' : `Failures (shrunk; replay with the FUZZ_SEED and FUZZ_PATH shown):\n\n${failures.join('\n\n')}`}
`;

console.log(`\n${section}`);
if (write) {
  const file = join(repoRoot, 'bench/RESULTS.md');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  writeFileSync(file, withReliabilitySection(text, section));
  console.log(`wrote the Reliability section of ${file}`);
}
const failed = [...tallies.values()].some((tally) => tally.failedRounds > 0);
process.exit(failed ? 1 : 0);
