/**
 * The whole feature suite (specs/features/**) over NATS, in both eras, through the schema oracle: a real
 * nats-server, and the feature spec files run in a child test runner with `RXMCP_SPEC_MEDIUM=nats`, so every
 * client <-> server connection the harnesses make goes through `serveNats` / `createNatsClientTransport` (see
 * specs/support/nats-medium.ts), both ends logged and checked by the oracle as over memory. The runner must
 * exit 0 with no failure, no cancellation, and at least as many passing tests as the suite has over NATS
 * (skips are allowed only where a spec names why it cannot hold over NATS; their number is bounded here).
 *
 * @slow: runs the whole feature suite again over NATS in a child test runner (a minute or two)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { startNatsServer } from '../../support/nats-server.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FEATURES = join(ROOT, 'specs', 'features');
/** The child runner's bound (the suite takes a minute or two). */
const RUN_MS = 10 * 60_000;

function specFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.spec.ts'))
    .map((entry) => relative(ROOT, join(dir, entry.name)))
    .sort();
}

interface Summary {
  readonly tests: number;
  readonly pass: number;
  readonly fail: number;
  readonly cancelled: number;
  readonly skipped: number;
  readonly todo: number;
}

function summaryOf(tap: string): Summary {
  const count = (name: string): number => {
    const found = new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap);
    if (found === null) throw new assert.AssertionError({ message: `no "# ${name}" line in the runner's output:\n${tap.slice(-3000)}` });
    return Number(found[1]);
  };
  return { tests: count('tests'), pass: count('pass'), fail: count('fail'), cancelled: count('cancelled'), skipped: count('skipped'), todo: count('todo') };
}

/** The failing subtests with their error lines, to make a failure readable. */
function failuresOf(tap: string): string {
  const lines = tap.split('\n');
  const out: string[] = [];
  lines.forEach((line, index) => {
    if (!/^\s*not ok /.test(line) || /# TODO/.test(line)) return;
    out.push(line.trim(), ...lines.slice(index + 1, index + 12).filter((next) => /location:|error:|^\s+(Expected|expected|actual|\+|-)/.test(next)).map((next) => `    ${next.trim()}`));
  });
  return out.join('\n');
}

/** Runs spec files in a child test runner over NATS; resolves with its exit code and TAP output. */
function runOverNats(files: readonly string[], url: string): Promise<{ readonly code: number | null; readonly signal: string | null; readonly tap: string; readonly stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, RXMCP_SPEC_MEDIUM: 'nats', RXMCP_SPEC_NATS_URL: url };
  // Inside a test runner this names the parent's protocol; the child must report TAP as a top-level runner.
  delete env['NODE_TEST_CONTEXT'];
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...files], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let tap = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (tap += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-20_000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // The child leads a process group of its own (it runs each file in a process of its own): end all of it.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new assert.AssertionError({ message: `the feature suite did not finish over NATS within ${RUN_MS} ms:\n${tap.slice(-3000)}` }));
    }, RUN_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, tap, stderr });
    });
  });
}

const groups = [
  {
    name: 'the legacy-era feature specs (createClient over createNatsClientTransport, hand-written legacy clients)',
    files: specFiles(FEATURES),
    // 173 tests today, none skipped over NATS.
    minPass: 170,
    maxSkipped: 0,
  },
  {
    name: 'the modern-era feature specs and the modern tasks extension (hand-written modern clients on NATS lanes)',
    files: [...specFiles(join(FEATURES, 'modern')), ...specFiles(join(FEATURES, 'modern-tasks'))],
    // 138 tests today: 4 skipped over NATS (the binding's documented era and header rules), 1 todo.
    minPass: 125,
    maxSkipped: 4,
  },
] as const;

describe('the feature suite over NATS', () => {
  for (const group of groups) {
    test(`nats feature suite - ${group.name}`, { timeout: RUN_MS + 60_000 }, async (t) => {
      assert.ok(group.files.length > 0, 'found the spec files');
      await using nats = await startNatsServer();
      const run = await runOverNats(group.files, nats.url);
      const summary = summaryOf(run.tap);
      t.diagnostic(`${group.files.length} files over NATS: ${JSON.stringify(summary)}`);
      console.log(`[nats feature suite] ${group.name}: ${group.files.length} files, ${JSON.stringify(summary)}`);
      const failures = failuresOf(run.tap);
      assert.equal(summary.fail, 0, `feature specs failed over NATS:\n${failures}\n${run.stderr.slice(-3000)}`);
      assert.equal(summary.cancelled, 0, `feature specs were cancelled over NATS:\n${failures}\n${run.stderr.slice(-3000)}`);
      assert.equal(run.code, 0, `the runner exited with ${String(run.code)} (signal ${String(run.signal)}):\n${run.stderr.slice(-3000)}`);
      assert.ok(summary.pass >= group.minPass, `only ${summary.pass} feature specs passed over NATS (at least ${group.minPass} expected)`);
      assert.ok(summary.skipped <= group.maxSkipped, `${summary.skipped} feature specs were skipped over NATS (at most ${group.maxSkipped} have a written reason)`);
    });
  }
});
