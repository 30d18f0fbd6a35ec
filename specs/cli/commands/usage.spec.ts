/**
 * The command line itself: --help on every command and subcommand (stdout, exit 0), mistakes answered with the
 * bad value echoed and the fix suggested (exit 2), and failures to start that say what to change (exit 1).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, test } from 'node:test';
import { freePort } from '../../support/nats-server.ts';
import { runRxmcp } from '../../../cli/main.ts';
import { killChildren } from '../../support/interop-processes.ts';
import { type CliRun, runCli } from './cli-process.ts';

after(async () => {
  await killChildren();
});

/** `rxmcp <args>` in this process (the same code the program runs), with what it printed. */
async function rxmcp(args: readonly string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const { code } = await runRxmcp(args, { out: (text) => (stdout += `${text}\n`), err: (text) => (stderr += `${text}\n`) });
  return { code, signal: null, stdout, stderr };
}

async function each(commandLines: ReadonlyArray<readonly string[]>): Promise<CliRun[]> {
  const runs: CliRun[] = [];
  for (const args of commandLines) runs.push(await rxmcp(args));
  return runs;
}

const helpCases: ReadonlyArray<{ readonly args: readonly string[]; readonly usage: RegExp }> = [
  { args: ['--help'], usage: /^usage: rxmcp <command>/ },
  { args: ['help', 'call'], usage: /^usage: rxmcp call / },
  { args: ['serve', '--help'], usage: /^usage: rxmcp serve / },
  { args: ['serve', '--port', 'abc', '-h'], usage: /^usage: rxmcp serve / },
  { args: ['demo', '--help'], usage: /^usage: rxmcp demo/ },
  { args: ['gateway', '--help'], usage: /^usage: rxmcp gateway / },
  { args: ['bridge', '--help'], usage: /rxmcp bridge to-nats .*\n[\s\S]*rxmcp bridge from-nats/ },
  { args: ['bridge', 'to-nats', '--help'], usage: /rxmcp bridge to-nats/ },
  { args: ['bridge', 'from-nats', '-h'], usage: /rxmcp bridge from-nats/ },
  { args: ['inspect', '--help'], usage: /^usage: rxmcp inspect <target>/ },
  { args: ['call', '-h'], usage: /^usage: rxmcp call <target> <tool>/ },
  { args: ['read', '--help'], usage: /^usage: rxmcp read <target> <uri>/ },
  { args: ['prompt', '--help'], usage: /^usage: rxmcp prompt <target> <name>/ },
  { args: ['load', '--help'], usage: /^usage: rxmcp load <target>/ },
  { args: ['login', '--help'], usage: /^usage: rxmcp login <url>[\s\S]*rxmcp logout <url> removes/ },
  { args: ['logout', '-h'], usage: /^usage: rxmcp logout <url>/ },
];

test('rxmcp - --help (or -h) on every command and subcommand prints its usage to stdout and exits 0, whatever else is on the line', async () => {
  const runs = await each(helpCases.map(({ args }) => args));
  runs.forEach((run, index) => {
    const { args, usage } = helpCases[index] as (typeof helpCases)[number];
    assert.equal(run.code, 0, `rxmcp ${args.join(' ')} exits 0 (stderr: ${run.stderr})`);
    assert.match(run.stdout, usage, `rxmcp ${args.join(' ')} prints its usage`);
    assert.equal(run.stderr, '', `rxmcp ${args.join(' ')} writes nothing to stderr`);
  });
});

const mistakes: ReadonlyArray<{ readonly args: readonly string[]; readonly says: RegExp }> = [
  { args: ['serve', '--port', 'abc'], says: /^rxmcp serve: --port must be a port number 0-65535, got "abc"\n\(see rxmcp serve --help\)\n$/ },
  { args: ['serve', '--port', '70000'], says: /--port must be a port number 0-65535, got "70000"/ },
  { args: ['serve', '--prot', '3000'], says: /^rxmcp serve: unknown option --prot; did you mean --port\?/ },
  { args: ['serve', '--port'], says: /rxmcp serve: --port needs a value/ },
  { args: ['serve', '--stdio=yes'], says: /rxmcp serve: --stdio takes no value/ },
  { args: ['serve', 'extra'], says: /rxmcp serve: unexpected argument "extra"/ },
  { args: ['gateway', '--port', '1'], says: /rxmcp gateway: needs --name/ },
  { args: ['gateway', '--name', 'demo', '--port', 'x1'], says: /rxmcp gateway: --port must be a port number 0-65535, got "x1"/ },
  { args: ['bridge', 'to-nat'], says: /rxmcp bridge: needs to-nats or from-nats, got "to-nat"; did you mean to-nats\?/ },
  { args: ['bridge', 'from-nats', '--name', 'demo', '--era', 'old'], says: /--era must be legacy or modern, got "old"/ },
  { args: ['bridge', 'to-nats', '--name', 'demo', '--max-children', '0', '--', 'node'], says: /--max-children must be a positive integer, got "0"/ },
  { args: ['bridge', 'to-nats', '--name', 'demo', '--handovr', '--', 'node'], says: /unknown option --handovr; did you mean --handover\?/ },
  { args: ['sreve'], says: /rxmcp: unknown command "sreve"; did you mean serve\?/ },
  { args: ['call', 'ftp://example/mcp', 'tool'], says: /rxmcp call: the target must be an http\(s\):\/\/ URL, nats:\/\/host:port\/<name>, or -- <command> \[args...\], got "ftp:\/\/example\/mcp"/ },
  { args: ['call', 'nats://127.0.0.1:4222', 'tool'], says: /a NATS target names its server after the address/ },
  { args: ['inspect'], says: /rxmcp inspect: needs a target/ },
  { args: ['call', 'http://127.0.0.1:9/mcp'], says: /rxmcp call: needs the name of the tool/ },
  { args: ['call', 'http://127.0.0.1:9/mcp', 'count', '--era', 'new'], says: /--era must be legacy or modern, got "new"/ },
  { args: ['call', 'http://127.0.0.1:9/mcp', 'count', 'n'], says: /arguments are key=value, got "n"/ },
  { args: ['read', 'http://127.0.0.1:9/mcp', '--prefix', 'p', 'demo://clock'], says: /--prefix is for nats:\/\/ targets/ },
  { args: ['login'], says: /^rxmcp login: needs the URL of the MCP server to log in to\n/ },
  { args: ['login', 'nats://127.0.0.1:4222/demo'], says: /rxmcp login: only HTTP servers ask for an OAuth login/ },
  { args: ['login', 'http://127.0.0.1:9/mcp', '-H', 'Authorization: Bearer x'], says: /an Authorization header of your own needs no login/ },
  { args: ['login', 'http://127.0.0.1:9/mcp', '--login-timeout', '0'], says: /--login-timeout must be a positive integer, got "0"/ },
  { args: ['login', 'http://127.0.0.1:9/mcp', '--no-browsr'], says: /unknown option --no-browsr; did you mean --no-browser\?/ },
];

test('rxmcp - mistakes on the command line name the bad value, suggest the fix, and exit 2', async () => {
  const runs = await each(mistakes.map(({ args }) => args));
  runs.forEach((run, index) => {
    const { args, says } = mistakes[index] as (typeof mistakes)[number];
    assert.equal(run.code, 2, `rxmcp ${args.join(' ')} exits 2 (stderr: ${run.stderr})`);
    assert.match(run.stderr, says, `rxmcp ${args.join(' ')}`);
    assert.equal(run.stdout, '', `rxmcp ${args.join(' ')} prints nothing on stdout`);
  });
});

test('rxmcp serve - a port in use is said so, with the flag that fixes it (exit 1)', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const port = (holder.address() as { port: number }).port;
    const run = await rxmcp(['serve', '--port', String(port)]);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, `rxmcp serve: port ${port} on 127.0.0.1 is in use: pick another with --port\n`);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});

test('rxmcp gateway - a NATS server that cannot be reached is named (exit 1)', async () => {
  const url = `nats://127.0.0.1:${await freePort()}`;
  const run = await rxmcp(['gateway', '--name', 'demo', '--nats', url, '--port', '0']);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, new RegExp(`^rxmcp gateway: could not connect to NATS at ${url.replace(/[.]/g, '\\.')}: `));
});

test('rxmcp bridge to-nats - a server command that does not exist is refused before anything starts (exit 2)', async () => {
  // No NATS server listens at this URL: the refusal must come from the command check, before any connection.
  const url = `nats://127.0.0.1:${await freePort()}`;
  const [missing, notAFile, notExecutable] = await Promise.all([
    rxmcp(['bridge', 'to-nats', '--nats', url, '--name', 'demo', '--', 'rxmcp-no-such-program-here', 'stdio']),
    rxmcp(['bridge', 'to-nats', '--nats', url, '--name', 'demo', '--', './specs']),
    rxmcp(['bridge', 'to-nats', '--nats', url, '--name', 'demo', '--', './package.json']),
  ]);
  assert.equal(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, /^rxmcp bridge to-nats: cannot run the server command: rxmcp-no-such-program-here is not a program on PATH/);
  assert.doesNotMatch(missing.stderr, /NATS/);
  assert.equal(notAFile.code, 2, notAFile.stderr);
  assert.match(notAFile.stderr, /cannot run the server command: \.\/specs is not a file/);
  assert.equal(notExecutable.code, 2, notExecutable.stderr);
  assert.match(notExecutable.stderr, /cannot run the server command: \.\/package\.json is not executable/);
});

test('rxmcp (the program) - help on stdout with exit 0, a mistake on stderr with exit 2, as a real process', async () => {
  const [help, mistake] = await Promise.all([runCli(['serve', '--help']), runCli(['serve', '--port', 'abc'])]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^usage: rxmcp serve /);
  assert.equal(help.stderr, '');
  assert.equal(mistake.code, 2);
  assert.equal(mistake.stderr, 'rxmcp serve: --port must be a port number 0-65535, got "abc"\n(see rxmcp serve --help)\n');
  assert.equal(mistake.stdout, '');
});
