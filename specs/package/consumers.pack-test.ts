/**
 * The packed tarball as users get it (`npm run test:package`, a CI step after the tests; not part of `npm test`,
 * since it installs from the npm registry). `npm pack`, then throwaway projects under a temp dir install the
 * tarball and use it the ways users do: plain Node ESM and CommonJS with no loader (memory and HTTP on
 * 127.0.0.1), without the optional peers (effect, nats, msgpackr), with nats but not msgpackr (over a real nats-server on
 * 127.0.0.1), TypeScript with `tsc --init` defaults, esbuild
 * bundles, the `rxmcp` command run from an unrelated directory, and rxmcp/load (`runLoad`, `npx rxmcp load`).
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { startNatsServer } from '../support/nats-server.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const OPTIONAL_PEERS = ['effect', 'nats', 'msgpackr'] as const;
const execFileAsync = promisify(execFile);

interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (bounded); never throws on a non-zero exit, the caller asserts. */
async function run(command: string, args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<RunResult> {
  try {
    const { stdout, stderr } = await execFileAsync(command, [...args], { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? failed.message };
  }
}

async function ok(command: string, args: readonly string[], cwd: string, timeoutMs?: number): Promise<string> {
  const result = await run(command, args, cwd, timeoutMs);
  assert.equal(result.code, 0, `${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const npmInstall = (cwd: string, specs: readonly string[]): Promise<string> =>
  ok('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], cwd, 300_000);

function project(dir: string, packageJson: object, fixtures: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ private: true, version: '1.0.0', ...packageJson }, null, 2)}\n`);
  for (const fixture of fixtures) copyFileSync(join(FIXTURES, fixture), join(dir, fixture.split('/').pop() ?? fixture));
  return dir;
}

const repoPackage = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
};

describe('package: the packed tarball in throwaway projects', () => {
  let work = '';
  let tarball = '';
  let packedFiles: readonly string[] = [];
  let plain = '';
  let typed = '';
  let natsOnly = '';

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'rxmcp-consumers-'));
    // the build CI made already when it is the build of these sources (scripts/build-stamp.ts), else a new one
    await ok(process.execPath, ['--import', 'tsx', join(REPO, 'scripts', 'build-stamp.ts'), 'ensure'], REPO, 300_000);
    const packed = JSON.parse(await ok('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], REPO)) as [{ filename: string; files: { path: string }[] }];
    tarball = join(work, packed[0].filename);
    packedFiles = packed[0].files.map((file) => file.path);
    plain = project(join(work, 'plain'), { name: 'plain-consumer' }, ['esm.mjs', 'cjs.cjs', 'no-peers.mjs', 'types-no-peers.mts', 'browser.mjs', 'load.mjs', 'load-server.mjs']);
    typed = project(join(work, 'typed'), { name: 'typed-consumer', type: 'module' }, ['typed/server.ts', 'typed/client.ts', 'effect-present.mjs']);
    natsOnly = project(join(work, 'nats-only'), { name: 'nats-only-consumer', type: 'module' }, ['nats-only.mjs']);
    // One after the other: two npm installs at once would share (and race on) the npm cache.
    await npmInstall(plain, [tarball]);
    const peers = OPTIONAL_PEERS.map((name) => `${name}@${repoPackage.peerDependencies[name]}`);
    await npmInstall(typed, [tarball, ...peers, `@types/node@${repoPackage.devDependencies['@types/node']}`]);
    await npmInstall(natsOnly, [tarball, `nats@${repoPackage.peerDependencies['nats']}`]);
  });

  after(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  test('package - the tarball holds the built package, its sources for the maps, and the docs; no specs, bench or CI', () => {
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/index.d.ts.map', 'dist/index.js.map', 'dist/cli/rxmcp.js', 'index.ts']) {
      assert.ok(packedFiles.includes(needed), `${needed} is packed`);
    }
    const unwanted = packedFiles.filter((file) => /^(specs|bench|\.ci|node_modules)\/|^tsconfig|^eslint|^\.dependency-cruiser|\.spec\.ts$/.test(file));
    assert.deepEqual(unwanted, []);
    const bin = readFileSync(join(plain, 'node_modules', 'rxmcp', 'dist', 'cli', 'rxmcp.js'), 'utf8');
    assert.equal(bin.split('\n')[0], '#!/usr/bin/env node');
  });

  test('package - plain Node ESM, no loader: server and client over memory and over HTTP on 127.0.0.1', async () => {
    assert.match(await ok(process.execPath, ['esm.mjs'], plain), /esm: memory 2\+3=5, http 127\.0\.0\.1 4\+3=7/);
  });

  test('package - CommonJS require() of rxmcp, rxmcp/memory and rxmcp/http, no loader', async () => {
    const stdout = await ok(process.execPath, ['cjs.cjs'], plain);
    assert.match(stdout, /require\.resolve\('rxmcp\/http'\) = .*node_modules\/rxmcp\/dist\/transports\/http\/index\.js/);
    assert.match(stdout, /memory 2\*3=6, http 4\*3=12/);
  });

  test('package - npm i rxmcp installs none of the optional peers, and the root works without them', async () => {
    for (const peer of OPTIONAL_PEERS) assert.equal(existsSync(join(plain, 'node_modules', peer)), false, `${peer} is not installed`);
    assert.match(await ok(process.execPath, ['no-peers.mjs'], plain), /no peers: Effect handler answered ".*npm install effect.*"/);
  });

  // exactOptionalPropertyTypes stays off here: xstate's own declarations do not compile under it with skipLibCheck off.
  test('package - the root and memory declarations compile strictly without the peers or @types/node (skipLibCheck off)', async () => {
    writeFileSync(
      join(plain, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2023', strict: true, skipLibCheck: false, types: [], noEmit: true }, files: ['types-no-peers.mts'] }),
    );
    await ok(process.execPath, [TSC, '-p', '.'], plain);
  });

  test('package - TypeScript with tsc --init defaults compiles a server and a client importing every entry point, and runs', async () => {
    await ok(process.execPath, [TSC, '--init'], typed);
    await ok(process.execPath, [TSC, '-p', '.'], typed);
    assert.ok(existsSync(join(typed, 'client.js')) && existsSync(join(typed, 'client.d.ts')));
    assert.match(await ok(process.execPath, ['server.js'], typed), /typed server: shout hi -> HI; codecs json, msgpack/);
  });

  test('package - with effect installed: an Effect handler runs and effectSchema of rxmcp/effect is listed and validated', async () => {
    assert.match(await ok(process.execPath, ['effect-present.mjs'], typed), /Effect handler 21\*2=42/);
  });

  test('package - with nats but not msgpackr: rxmcp/nats serves both eras in JSON, msgpack is refused naming the package', async () => {
    assert.equal(existsSync(join(natsOnly, 'node_modules', 'msgpackr')), false, 'msgpackr is not installed');
    const nats = await startNatsServer();
    try {
      assert.match(await ok(process.execPath, ['nats-only.mjs', nats.url], natsOnly), /nats only: legacy 5, modern 6; msgpack refused with the package to install/);
    } finally {
      await nats.dispose();
    }
  });

  test('package - rxmcp/load with no loader: runLoad over HTTP, and npx rxmcp load against a stdio server, with its report', async () => {
    assert.match(await ok(process.execPath, ['load.mjs'], plain), /load: sent \d+, ok \d+, wrong 0, lost 0/);
    assert.match(await ok('npx', ['rxmcp', 'load', '--help'], plain), /usage: rxmcp load <target> \[options\]/);
    const report = join(work, 'load-report.html');
    const loaded = await ok('npx', ['rxmcp', 'load', '--rate', '50', '--duration', '1s', '-q', '--expect', 'Echo: {{token}}', '--call', 'echo message={{token}}', '--report', report, '--max-error-rate', '0%', '--', process.execPath, 'load-server.mjs'], plain);
    assert.match(loaded, /nothing lost: every one of the \d+ calls sent was answered/);
    assert.match(readFileSync(report, 'utf8'), /<figure class="chart" data-chart="latency">/);
  });

  test('package - an esbuild bundle for node runs from a directory without node_modules', async () => {
    const out = join(work, 'bundled', 'node', 'app.mjs');
    await build({ entryPoints: [join(plain, 'esm.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent' });
    assert.match(await ok(process.execPath, [out], join(work, 'bundled', 'node')), /esm: memory 2\+3=5/);
  });

  test(
    'package - an esbuild bundle for the browser (root + memory + the fetch HTTP client) needs no node: builtin',
    async () => {
      const out = join(work, 'bundled', 'browser', 'app.mjs');
      const result = await build({ entryPoints: [join(plain, 'browser.mjs')], bundle: true, platform: 'browser', format: 'esm', outfile: out, metafile: true, logLevel: 'silent' });
      const builtins = Object.values((result.metafile as Metafile).inputs).flatMap((input) => input.imports.filter((imported) => imported.path.startsWith('node:')).map((imported) => imported.path));
      assert.deepEqual(builtins, []);
      assert.match(await ok(process.execPath, [out], join(work, 'bundled', 'browser')), /browser bundle: echo "from the bundle"/);
    },
  );

  test('package - the rxmcp command from an unrelated directory: --help, demo, serve until listening, gateway without nats', async () => {
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const bin = join(plain, 'node_modules', '.bin', 'rxmcp');
    assert.match(await ok(bin, ['--help'], elsewhere), /usage: rxmcp <command>/);
    assert.ok((await ok(bin, ['demo'], elsewhere, 60_000)).length > 0, 'the demo prints what it does');
    const gateway = await run(bin, ['gateway', '--name', 'x'], elsewhere);
    assert.equal(gateway.code, 1);
    assert.match(gateway.stderr, /rxmcp gateway: the "nats" package is needed: install it beside rxmcp \(npm install nats\)/);
    assert.match(await untilListening(bin, ['serve', '--port', '0'], elsewhere), /listening at http:\/\/127\.0\.0\.1:\d+\/mcp/);
  });
});

/** Starts `command` and resolves with its output once it prints "listening"; then stops it (by its pid). */
function untilListening(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => finish(new Error(`no "listening" within 30 s:\n${output}`)), 30_000);
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      if (error === undefined) resolve(output);
      else reject(error);
    };
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (/listening/.test(output)) finish();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('error', (error) => finish(error));
    child.once('exit', (code) => {
      if (!/listening/.test(output)) finish(new Error(`exited ${String(code)} before listening:\n${output}`));
    });
  });
}
