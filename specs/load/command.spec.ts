/**
 * `rxmcp load` on the command line: --help lists every flag with examples and the exit codes; mistakes echo the
 * value, say what would be right, and exit 2; a run writes its JSON result; budgets fail the run (exit 1) with the
 * line that broke them, absolute or relative to a previous result given with --compare.
 *
 * @serial: compares the p99 latency of two 1 s runs, one with every call 40 ms slower: contention on the cores moves a p99 by more than that
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadCommand } from '../../cli/load/args.ts';
import { runRxmcp } from '../../cli/main.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { killChildren } from '../support/interop-processes.ts';
import { echoServer } from './echo-server.ts';
import { ECHO_CHILD, trickyChild } from './processes.ts';

let url = '';
let closeHttp: (() => Promise<void>) | undefined;
let dir = '';

before(async () => {
  const http = createStreamableHttpServer({ server: echoServer() });
  url = (await http.listen(0)).url;
  closeHttp = () => http.close();
  dir = mkdtempSync(join(tmpdir(), 'rxmcp-load-'));
});

after(async () => {
  await closeHttp?.();
  await killChildren();
  rmSync(dir, { recursive: true, force: true });
});

async function rxmcp(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const { code } = await runRxmcp(args, { out: (text) => (stdout += `${text}\n`), err: (text) => (stderr += `${text}\n`) });
  return { code, stdout, stderr };
}

test('rxmcp load --help - every flag listed, with examples and the exit codes', async () => {
  const { code, stdout } = await rxmcp(['load', '--help']);
  assert.equal(code, 0);
  assert.match(stdout, /^usage: rxmcp load <target> \[options\]/);
  for (const flag of Object.keys(loadCommand.options)) assert.ok(stdout.includes(`--${flag}`), `--${flag} is in the help`);
  assert.match(stdout, /examples:\n {2}rxmcp load http:\/\/127\.0\.0\.1:3000\/mcp/);
  assert.match(stdout, /exit codes: 0 every budget kept and every answer right; 1 a budget broken/);
  assert.match((await rxmcp(['--help'])).stdout, /\n {2}load <target> /, 'the command is in the list of commands');
});

const mistakes: ReadonlyArray<{ readonly args: readonly string[]; readonly says: RegExp }> = [
  { args: ['--rate', 'abc'], says: /rxmcp load: --rate must be a positive number, got "abc"/ },
  { args: ['--duration', 'soon'], says: /--duration must be a duration such as 30s, 500ms, 2m or 1h, got "soon"/ },
  { args: ['--durations', '5s'], says: /unknown option --durations; did you mean --duration\?/ },
  { args: ['--era', 'sideways'], says: /--era must be legacy or modern or both or auto, got "sideways"/ },
  { args: ['--fault', 'explode@1s'], says: /a fault is kill@WHEN\[\+RESTART_AFTER\], pause@WHEN:FOR or drop@WHEN \(e\.g\. kill@10s\+1s, pause@5s:2s, drop@8s\), got "explode@1s"/ },
  { args: ['--fault', 'kill@1s'], says: /a kill fault needs the server's process: a stdio target \(-- <command>\) or its pid/ },
  { args: ['--op', 'tools/get x'], says: /an operation starts with tools\/call, tools\/list, resources\/read, prompts\/get or ping, got "tools\/get x"/ },
  { args: ['--call', 'echo text'], says: /arguments are key=value, got "text"/ },
  { args: ['--rate', '5', '--concurrency', '2'], says: /give rate \(open loop\) or concurrency \(closed loop\), not both/ },
  { args: ['--steps', '100:1s', '--duration', '5s'], says: /steps give their own durations: leave --duration out/ },
  { args: ['--max-p99', '+10%'], says: /a relative budget \(\+P%\) needs --compare previous\.json/ },
  { args: ['--max-error-rate', '150%'], says: /--max-error-rate must be a percentage such as 1% or a fraction such as 0\.01, got "150%"/ },
  { args: ['--max-rss-per-session', 'lots'], says: /must be a size such as 2MB, 512KB or 1048576, got "lots"; or \+P%/ },
  { args: ['--expect', 'x'], says: /--expect goes with a --call or a tools\/call --op/ },
  { args: ['--compare', '/nonexistent/previous.json'], says: /cannot read --compare "\/nonexistent\/previous\.json": ENOENT/ },
];

test('rxmcp load - mistakes echo the value and say the fix, exit 2, before anything is opened', async () => {
  for (const { args, says } of mistakes) {
    const run = await rxmcp(['load', 'http://127.0.0.1:9/mcp', ...args]);
    assert.equal(run.code, 2, `rxmcp load ${args.join(' ')} exits 2 (stderr: ${run.stderr})`);
    assert.match(run.stderr, says, `rxmcp load ${args.join(' ')}`);
    assert.match(run.stderr, /\(see rxmcp load --help\)/);
  }
  const unreachable = await rxmcp(['load', 'http://127.0.0.1:9/mcp', '--duration', '1s', '--timeout', '2s', '-q']);
  assert.equal(unreachable.code, 1, 'a target that cannot be reached fails the run (exit 1)');
  assert.match(unreachable.stderr, /rxmcp load: could not open a session to http:\/\/127\.0\.0\.1:9\/mcp/);
});

test('rxmcp load - the JSON result, then budgets against it: broken ones fail the run with the line that broke them', async () => {
  const first = join(dir, 'first.json');
  const ok = await rxmcp(['load', url, '--rate', '50', '--duration', '1s', '--call', 'echo text={{token}}', '--json', first, '-q', '--max-p99', '5s', '--max-error-rate', '1%']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /the result is in .*first\.json/);
  const result = JSON.parse(readFileSync(first, 'utf8')) as Record<string, unknown>;
  assert.equal(result['format'], 'rxmcp-load/1');
  for (const key of ['sent', 'ok', 'errors', 'wrong', 'hung', 'latency', 'rates', 'windows', 'series']) assert.ok(key in result, `the result has ${key}`);
  assert.equal(result['ok'], result['sent']);

  const slow = await rxmcp(['load', url, '--rate', '50', '--duration', '1s', '--call', 'echo text={{token}}', '-q', '--compare', first, '--max-p99', '0.001ms']);
  assert.equal(slow.code, 1);
  assert.match(slow.stderr, /rxmcp load: BROKEN: p99 latency [\d.]+ m?s is over the budget of 0\.00 ms/);
  assert.match(slow.stdout, /against .* \(http:\/\/127\.0\.0\.1:\d+\/mcp\):\n {2}p50 .* \(was .*\)/);

  const relative = await rxmcp(['load', url, '--rate', '50', '--duration', '1s', '--call', 'echo text={{token}} delayMs=40', '-q', '--compare', first, '--max-p99', '+10%']);
  assert.equal(relative.code, 1, 'every call 40 ms slower is far over the previous p99 + 10%');
  assert.match(relative.stderr, /BROKEN: p99 latency .* is over the budget of .* \(the previous run's .* \+ 10%\)/);

  const hung = await rxmcp(['load', '--rate', '20', '--duration', '1s', '--hang-after', '100ms', '-q', '--max-error-rate', '0.1%', '--', ...command(trickyChild('--sleep-ms', '400'))]);
  assert.equal(hung.code, 1, hung.stderr);
  assert.match(hung.stderr, /BROKEN: error rate 100\.00% \(\(0 errors \+ [\d,]+ hung\) \/ [\d,]+ sent\) is over the budget of 0\.10%/);
  assert.match(hung.stdout, /lost [\d,]+ of [\d,]+ calls: [\d,]+ hung \(no answer within 100 ms\)/);

  const fat = await rxmcp(['load', '--rate', '20', '--duration', '1s', '-q', '--max-rss-per-session', '1KB', '--', ...command(ECHO_CHILD)]);
  assert.equal(fat.code, 1, fat.stderr);
  assert.match(fat.stderr, /BROKEN: server memory per session [\d.]+ MB is over the budget of 1\.0 KB/);
});

function command(target: { readonly command: string; readonly args: readonly string[] }): string[] {
  return [target.command, ...target.args];
}
