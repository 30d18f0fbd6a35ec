/**
 * The spec runner of `npm test` (scripts/run-specs.ts): the tags read from a file's comments, the files grouped into
 * processes, and whole runs over the fixture files of specs/support/runner-fixtures, which prove by what they see
 * that the untagged files run side by side and the tagged one alone after them, that batched files share a process
 * with each file's hooks around its own tests, that the TAP is one document numbered through both groups and ends
 * with the slowest files and tests, and that a failing test fails the run.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { batchEntryText, planUnits } from '../../scripts/spec-runner/batches.ts';
import { gateFiles, waitForGate } from '../../scripts/spec-runner/serial-gate.ts';
import { groupSpecs, specFile } from '../../scripts/spec-runner/groups.ts';
import { Occupancy, Timings, occupancyLine, slowestReport } from '../../scripts/spec-runner/timings.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const RUNNER = join(REPO, 'scripts', 'run-specs.ts');
const FIXTURES = 'specs/support/runner-fixtures';
// spelt in two parts so that this file's own source carries no tag
const TAG = '@' + 'serial';
const SLOW = '@' + 'slow';
const OWN = '@' + 'own-process';

describe('run-specs - the @serial and @slow tags', () => {
  test('a file without the tag is concurrent', () => {
    assert.deepEqual(specFile('a.spec.ts', "import { test } from 'node:test';\n"), { path: 'a.spec.ts', serial: undefined, slow: undefined, ownProcess: undefined });
  });

  test('a line comment or a line of a block comment carries the tag and its reason', () => {
    assert.equal(specFile('a.spec.ts', `// ${TAG}: starts a nats cluster\nimport 'x';\n`).serial, 'starts a nats cluster');
    assert.equal(specFile('a.spec.ts', `/**\n * The header.\n *\n * ${TAG}: measures the heap\n */\n`).serial, 'measures the heap');
    assert.equal(specFile('a.spec.ts', `/* ${TAG} binds a fixed port */\n`).serial, 'binds a fixed port');
  });

  test('the tag inside code or a string is not a tag', () => {
    assert.equal(specFile('a.spec.ts', `const note = '// ${TAG}: no';\nfoo(); // ${TAG}: no\n`).serial, undefined);
  });

  test('a tag without its reason is refused, naming the file', () => {
    assert.throws(() => specFile('specs/x.spec.ts', `// ${TAG}\n`), /specs\/x\.spec\.ts: "@serial" needs its reason/);
    assert.throws(() => specFile('specs/x.spec.ts', ` * ${TAG}:   \n`), /needs its reason/);
  });

  test('@slow is read the same way', () => {
    assert.equal(specFile('a.spec.ts', ` * ${SLOW}: runs a child test runner\n`).slow, 'runs a child test runner');
    assert.equal(specFile('a.spec.ts', '').slow, undefined);
    assert.throws(() => specFile('specs/x.spec.ts', `// ${SLOW}:\n`), /specs\/x\.spec\.ts: "@slow" needs its reason/);
  });

  test('@own-process is read the same way', () => {
    assert.equal(specFile('a.spec.ts', ` * ${OWN}: registers a global provider\n`).ownProcess, 'registers a global provider');
    assert.equal(specFile('a.spec.ts', '').ownProcess, undefined);
    assert.throws(() => specFile('specs/x.spec.ts', `// ${OWN}:\n`), /specs\/x\.spec\.ts: "@own-process" needs its reason/);
  });

  test('serial files form their group; among the concurrent ones the slow start first; each part keeps the order given', () => {
    const [b, a, c, d, e] = [specFile('b', `// ${TAG}: why`), specFile('a', ''), specFile('c', `// ${SLOW}: long`), specFile('d', ''), specFile('e', `// ${SLOW}: long`)];
    assert.deepEqual(groupSpecs([b, a, c, d, e]), { concurrent: [c, e, a, d], serial: [b] });
  });
});

describe('run-specs - processes', () => {
  test('untagged files go in batches of the size asked, in their order; slow and own-process files alone, first', () => {
    const [a, b, c, d, e, f] = [specFile('a', ''), specFile('b', `// ${SLOW}: long`), specFile('c', ''), specFile('d', `// ${OWN}: heap`), specFile('e', ''), specFile('f', '')];
    assert.deepEqual(planUnits([a, b, c, d, e, f], 2), { alone: [b, d], batches: [[a, c], [e, f]] });
    assert.deepEqual(planUnits([a, b, c], 5), { alone: [b], batches: [[a, c]] });
    assert.deepEqual(planUnits([a, b, c], 1), { alone: [b, a, c], batches: [] }, 'a batch of 1 is every file alone');
  });

  test("a batch entry imports each file inside a suite named by the file's path", () => {
    const text = batchEntryText([specFile('specs/a.spec.ts', ''), specFile('specs/b c.spec.ts', '')], '/repo');
    assert.match(text, /^import \{ describe \} from 'node:test';$/m);
    assert.match(text, /^describe\("specs\/a\.spec\.ts", async \(\) => \{ await import\("file:\/\/\/repo\/specs\/a\.spec\.ts"\); \}\);$/m);
    assert.match(text, /^describe\("specs\/b c\.spec\.ts", async \(\) => \{ await import\("file:\/\/\/repo\/specs\/b%20c\.spec\.ts"\); \}\);$/m);
  });
});

describe('run-specs - the serial group waits for what runs beside the concurrent files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-serial-gate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the files named are split as PATH is; unset, nothing is waited for', async () => {
    assert.deepEqual(gateFiles(['/a/one', '', '/b/two'].join(delimiter)), ['/a/one', '/b/two']);
    assert.deepEqual(gateFiles(undefined), []);
    assert.equal(await waitForGate([], new AbortController().signal), undefined);
  });

  test('it waits until every file exists, and no longer than its limit', async () => {
    const [one, two] = [join(dir, 'one'), join(dir, 'two')];
    writeFileSync(one, '');
    const started = Date.now();
    const timer = setTimeout(() => writeFileSync(two, ''), 700);
    const line = await waitForGate([one, two], new AbortController().signal);
    clearTimeout(timer);
    assert.ok(Date.now() - started >= 650, 'not before the second file existed');
    assert.match(line ?? '', /^serial: waited \d+\.\d s for what ran beside the concurrent files \(RXMCP_SPEC_SERIAL_AFTER\)$/);
    assert.match(await waitForGate([join(dir, 'never')], new AbortController().signal, 300) ?? '', /^serial: started after waiting 0 s, the limit, for .*never \(RXMCP_SPEC_SERIAL_AFTER\)$/);
  });
});

describe('run-specs - timings', () => {
  test('the slowest files and tests, longest first, at most the count asked; suites are the caller\'s to leave out', () => {
    const timings = new Timings('/repo');
    timings.file('/repo/specs/a.spec.ts', 1500);
    timings.file('/repo/specs/b.spec.ts', 61_000);
    timings.file('/repo/specs/c.spec.ts', 200);
    timings.test('/repo/specs/helper.ts', 'a slow\n  test', 12_345);
    timings.test('/repo/specs/a.spec.ts', 'a quick test', 5);
    assert.deepEqual(slowestReport(timings, 2), [
      'slowest 2 spec files (start-up included for a file in a process of its own):',
      '  61.0 s  specs/b.spec.ts',
      '   1.5 s  specs/a.spec.ts',
      'slowest 2 tests (and the file each is written in):',
      '  12.3 s  a slow test  (specs/helper.ts)',
      '   0.0 s  a quick test  (specs/a.spec.ts)',
    ]);
    assert.equal(timings.filesTotalMs, 62_700);
  });

  test('spec processes running at once: the time spent with each count, a file that never ended left out', () => {
    const occupancy = new Occupancy();
    occupancy.started('a', 0);
    occupancy.started('b', 10_000);
    occupancy.ended('a', 30_000);
    occupancy.started('c', 30_000);
    occupancy.ended('b', 40_000);
    occupancy.ended('c', 50_000);
    occupancy.started('d', 60_000);
    assert.deepEqual(occupancy.profile(), [
      { running: 2, ms: 30_000 },
      { running: 1, ms: 20_000 },
    ]);
    assert.equal(occupancyLine(occupancy), 'spec processes running at once: 2 for 30.0 s, 1 for 20.0 s');
    assert.equal(occupancyLine(new Occupancy()), 'spec processes running at once: none');
  });
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly trace: readonly string[];
}

const fixtures = (...files: string[]): string[] => files.map((file) => `${FIXTURES}/${file}`);

describe('run-specs - whole runs over fixture files', () => {
  const work = mkdtempSync(join(tmpdir(), 'rxmcp-run-specs-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  async function runner(name: string, args: readonly string[], peers = 0): Promise<Run> {
    const trace = join(work, `${name}.trace`);
    // NODE_TEST_CONTEXT (set by node:test for this spec's own process) would make the runner's run() a child's;
    // RXMCP_SPEC_SERIAL_AFTER (CI's, for the outer run) would hold the fixtures' serial group back.
    const { NODE_TEST_CONTEXT: _, RXMCP_SPEC_SERIAL_AFTER: _gate, ...inherited } = process.env;
    const env = { ...inherited, RUNNER_FIXTURE_TRACE: trace, RUNNER_FIXTURE_PEERS: String(peers), RXMCP_SPEC_CONCURRENCY: '', RXMCP_SPEC_BATCH: '' };
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', RUNNER, ...args], { cwd: REPO, env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout: out, stderr: err });
      });
    });
    let lines: string[] = [];
    try {
      lines = readFileSync(trace, 'utf8').split('\n').filter((line) => line !== '');
    } catch {
      // no fixture got as far as writing
    }
    return { code, stdout, stderr, trace: lines };
  }

  test('untagged files run side by side, the tagged one alone after them; one TAP document, timings at its end', { timeout: 90_000 }, async () => {
    const result = await runner('groups', ['--concurrency', '2', '--batch', '1', ...fixtures('serial.ts', 'concurrent-2.ts', 'concurrent-1.ts')], 2);
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(result.trace.slice(0, 2).sort(), ['start concurrent-1.ts', 'start concurrent-2.ts'], 'both concurrent files started before either ended');
    assert.deepEqual(result.trace.slice(4), ['start serial.ts', 'end serial.ts'], 'the serial file came last');

    const tap = result.stdout;
    assert.equal(tap.match(/^TAP version 13$/gm)?.length, 1, 'one TAP document');
    assert.deepEqual(tap.match(/^(?:not )?ok \d+/gm), ['ok 1', 'ok 2', 'ok 3'], 'numbered on through both groups');
    assert.match(tap, /^1\.\.3$/m);
    assert.match(tap, /^# concurrent: 2 spec files, 2 at a time$/m);
    assert.match(tap, /^# serial: 1 spec file, one at a time$/m);
    assert.match(tap, /^# {3}specs\/support\/runner-fixtures\/serial\.ts: the runner's own spec checks that this file runs with no other file running$/m);
    assert.match(tap, /^# pass 3$/m);
    assert.match(tap, /^# concurrent group: \d+\.\d s wall, \d+\.\d s CPU \(\d+\.\d\d cores\); spec processes running at once: 2 for \d+\.\d s(, 1 for \d+\.\d s)?$/m, 'the two met');
    assert.match(tap, /^# serial group: \d+\.\d s wall, \d+\.\d s CPU \(\d+\.\d\d cores\); spec processes running at once: 1 for \d+\.\d s$/m);
    assert.match(tap, /^# fail 0$/m);
    const slowest = tap.slice(tap.indexOf('# slowest 3 spec files'));
    for (const file of ['concurrent-1.ts', 'concurrent-2.ts', 'serial.ts']) assert.match(slowest, new RegExp(`^# +\\d+\\.\\d s {2}specs/support/runner-fixtures/${file.replace('.', '\\.')}$`, 'm'));
    assert.match(slowest, /^# slowest 3 tests \(and the file each is written in\):$/m);
    assert.match(slowest, /^# +\d+\.\d s {2}concurrent-1\.ts meets its peers {2}\(specs\/support\/runner-fixtures\/meet\.ts\)$/m);
    assert.match(slowest, /^# +\d+\.\d s {2}serial\.ts runs alone, after the concurrent files {2}\(specs\/support\/runner-fixtures\/serial\.ts\)$/m);
  });

  test("batched files share one process, one after the other, each file's hooks around its own tests", { timeout: 90_000 }, async () => {
    const result = await runner('batched', ['--concurrency', '1', '--batch', '2', ...fixtures('hooks-a.ts', 'hooks-b.ts')]);
    assert.equal(result.code, 0, result.stdout);
    const pids = new Set(result.trace.map((line) => line.split(' ')[0]));
    assert.equal(pids.size, 1, `one process ran both files: ${result.trace.join(' | ')}`);
    assert.deepEqual(result.trace.map((line) => line.split(' ').slice(1).join(' ')), [
      'hooks-a.ts before', 'hooks-a.ts first', 'hooks-a.ts second', 'hooks-a.ts after',
      'hooks-b.ts before', 'hooks-b.ts first', 'hooks-b.ts second', 'hooks-b.ts after',
    ]);
    assert.match(result.stdout, /^# concurrent: 2 spec files in 1 process, one at a time$/m);
    assert.deepEqual(result.stdout.match(/^ok \d+ - .+$/gm), ['ok 1 - specs/support/runner-fixtures/hooks-a.ts', 'ok 2 - specs/support/runner-fixtures/hooks-b.ts'], "each file's result is its own");
    assert.match(result.stdout, /^# pass 4$/m);
    const slowest = result.stdout.slice(result.stdout.indexOf('# slowest 2 spec files'));
    for (const file of ['hooks-a.ts', 'hooks-b.ts']) assert.match(slowest, new RegExp(`^# +\\d+\\.\\d s {2}specs/support/runner-fixtures/${file.replace('.', '\\.')}$`, 'm'), 'timed as files');
  });

  test('a failing test fails the run, and the others still run', { timeout: 90_000 }, async () => {
    const result = await runner('failing', ['--concurrency', '2', '--batch', '1', ...fixtures('failing.ts', 'concurrent-1.ts')], 1);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /^not ok \d+ - failing\.ts fails on purpose$/m);
    assert.match(result.stdout, /^ok \d+ - concurrent-1\.ts meets its peers$/m);
    assert.match(result.stdout, /^# fail 1$/m);
  });

  test('an unknown option or a bad concurrency is refused with the usage, before any file runs', async () => {
    for (const args of [['--no-such-option'], ['--concurrency', '0', ...fixtures('failing.ts')], ['--concurrency', 'many'], ['--batch', '0']]) {
      const result = await runner('usage', args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /^run-specs: .+\nusage: npm test \[-- \[--concurrency N\] \[--batch N\] \[spec file\.\.\.\]\]$/m);
      assert.equal(result.stdout, '');
    }
  });
});
