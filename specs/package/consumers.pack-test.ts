/**
 * The packed tarball as users get it (`npm run test:package`, a CI step after the tests; not part of `npm test`,
 * since it installs from the npm registry). `npm pack`, then throwaway projects under a temp dir install the
 * tarball and use it the ways users do: plain Node ESM and CommonJS with no loader (memory and HTTP on
 * 127.0.0.1), without the optional peers (effect, nats, msgpackr), with nats but not msgpackr (over a real nats-server on
 * 127.0.0.1), TypeScript with `tsc --init` defaults, esbuild
 * bundles, the `rxmcp` command run from an unrelated directory, and rxmcp/load (`runLoad`, `npx rxmcp load`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { build, type Metafile } from 'esbuild';
import { startNatsServer } from '../support/nats-server.ts';
import { REPO_TSC as TSC, npmInstall, ok, packTarball, project, repoPackage, run } from './packed.ts';

const NATS_PEERS = ['@nats-io/transport-node', '@nats-io/nats-core', '@nats-io/jetstream', '@nats-io/kv', '@nats-io/obj'] as const;
const OPTIONAL_PEERS = ['effect', ...NATS_PEERS, 'msgpackr'] as const;

describe('package: the packed tarball in throwaway projects', () => {
  let work = '';
  let tarball = '';
  let packedFiles: readonly string[] = [];
  let plain = '';
  let typed = '';
  let natsOnly = '';

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'rxmcp-consumers-'));
    const packed = await packTarball(work);
    tarball = packed.path;
    packedFiles = packed.files;
    plain = project(join(work, 'plain'), { name: 'plain-consumer' }, ['esm.mjs', 'cjs.cjs', 'no-peers.mjs', 'modules-loaded.mjs', 'types-no-peers.mts', 'browser.mjs', 'load.mjs', 'load-server.mjs']);
    typed = project(join(work, 'typed'), { name: 'typed-consumer', type: 'module' }, ['typed/server.ts', 'typed/client.ts', 'effect-present.mjs']);
    natsOnly = project(join(work, 'nats-only'), { name: 'nats-only-consumer', type: 'module' }, ['nats-only.mjs']);
    // One after the other: two npm installs at once would share (and race on) the npm cache.
    // TypeScript 7 (the native compiler) beside the repository's 5.9, for the declarations' strict check.
    await npmInstall(plain, [tarball, 'typescript@7']);
    const peers = OPTIONAL_PEERS.map((name) => `${name}@${repoPackage.peerDependencies[name]}`);
    await npmInstall(typed, [tarball, ...peers, `@types/node@${repoPackage.devDependencies['@types/node']}`]);
    await npmInstall(natsOnly, [tarball, ...NATS_PEERS.map((name) => `${name}@${repoPackage.peerDependencies[name]}`)]);
  });

  after(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  test('package - the tarball holds the built package (bundled JavaScript, declarations) and the docs; no sources, maps, specs, bench or CI', () => {
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/rxmcp.js', 'dist/transports/http/index.js']) {
      assert.ok(packedFiles.includes(needed), `${needed} is packed`);
    }
    assert.ok(packedFiles.some((file) => /^dist\/chunks\/[^/]+\.js$/.test(file)), 'the entry points share chunks');
    const unwanted = packedFiles.filter((file) => /^(specs|bench|\.ci|node_modules)\/|^tsconfig|^eslint|^\.dependency-cruiser|\.map$|(?<!\.d)\.ts$/.test(file));
    assert.deepEqual(unwanted, []);
    const bin = readFileSync(join(plain, 'node_modules', 'rxmcp', 'dist', 'cli', 'rxmcp.js'), 'utf8');
    assert.equal(bin.split('\n')[0], '#!/usr/bin/env node');
  });

  test('package - the root import loads a few bundled files: rxjs from its ES build inside them, none of its CommonJS modules', async () => {
    const stdout = await ok(process.execPath, ['modules-loaded.mjs'], plain);
    const loaded = JSON.parse(stdout) as { readonly files: readonly string[] };
    const fromPackage = (name: string): string[] => loaded.files.filter((file) => file.includes(`/node_modules/${name}/`));
    assert.deepEqual(fromPackage('rxjs'), [], 'no module of the rxjs package is loaded');
    assert.deepEqual(fromPackage('xstate'), [], 'xstate is bundled');
    const ours = fromPackage('rxmcp');
    assert.ok(ours.length > 0 && ours.length <= 40, `the root loads ${String(ours.length)} files of rxmcp: ${ours.join(', ')}`);
  });

  test('package - plain Node ESM, no loader: server and client over memory and over HTTP on 127.0.0.1', async () => {
    assert.match(await ok(process.execPath, ['esm.mjs'], plain), /esm: memory 2\+3=5, http 127\.0\.0\.1 4\+3=7/);
  });

  test('package - CommonJS require() of rxmcp, rxmcp/testing and rxmcp/http, no loader', async () => {
    const stdout = await ok(process.execPath, ['cjs.cjs'], plain);
    assert.match(stdout, /require\.resolve\('rxmcp\/http'\) = .*node_modules\/rxmcp\/dist\/transports\/http\/index\.js/);
    assert.match(stdout, /memory 2\*3=6, http 4\*3=12/);
  });

  test('package - npm i rxmcp installs none of the optional peers, and the root works without them', async () => {
    for (const peer of [...OPTIONAL_PEERS, 'oidc-provider']) assert.equal(existsSync(join(plain, 'node_modules', peer)), false, `${peer} is not installed`);
    assert.match(await ok(process.execPath, ['no-peers.mjs'], plain), /no peers: Effect handler answered ".*npm install effect.*"/);
  });

  // exactOptionalPropertyTypes stays off here: xstate's own declarations do not compile under it with skipLibCheck off.
  test('package - the root and rxmcp/testing declarations compile strictly without the peers or @types/node (skipLibCheck off), with TypeScript 5.9 and 7', async () => {
    writeFileSync(
      join(plain, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2023', strict: true, skipLibCheck: false, types: [], noEmit: true }, files: ['types-no-peers.mts'] }),
    );
    await ok(process.execPath, [TSC, '-p', '.'], plain);
    const ts7 = join(plain, 'node_modules', 'typescript');
    assert.match((JSON.parse(readFileSync(join(ts7, 'package.json'), 'utf8')) as { version: string }).version, /^7\./);
    await ok(process.execPath, [join(ts7, 'bin', 'tsc'), '-p', '.'], plain);
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
    'package - an esbuild bundle for the browser (root + rxmcp/testing + the fetch HTTP client) needs no node: builtin',
    async () => {
      const out = join(work, 'bundled', 'browser', 'app.mjs');
      const result = await build({ entryPoints: [join(plain, 'browser.mjs')], bundle: true, platform: 'browser', format: 'esm', outfile: out, metafile: true, logLevel: 'silent' });
      const builtins = Object.values((result.metafile as Metafile).inputs).flatMap((input) => input.imports.filter((imported) => imported.path.startsWith('node:')).map((imported) => imported.path));
      assert.deepEqual(builtins, []);
      assert.match(await ok(process.execPath, [out], join(work, 'bundled', 'browser')), /browser bundle: echo "from the bundle"/);
    },
  );

  test('package - the rxmcp command from an unrelated directory: --help, demo, serve until listening, gateway without nats, dev auth-server without oidc-provider', async () => {
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const bin = join(plain, 'node_modules', '.bin', 'rxmcp');
    assert.match(await ok(bin, ['--help'], elsewhere), /usage: rxmcp <command>/);
    assert.ok((await ok(bin, ['demo'], elsewhere, 60_000)).length > 0, 'the demo prints what it does');
    const gateway = await run(bin, ['gateway', '--name', 'x'], elsewhere);
    assert.equal(gateway.code, 1);
    assert.match(gateway.stderr, /rxmcp gateway: the "@nats-io\/[a-z-]+" package is needed: install it beside rxmcp \(npm install @nats-io\/transport-node @nats-io\/jetstream @nats-io\/kv\)/);
    const devAuthServer = await run(bin, ['dev', 'auth-server', '--port', '0'], elsewhere);
    assert.equal(devAuthServer.code, 1, 'oidc-provider is an optional peer, not installed here');
    assert.match(devAuthServer.stderr, /rxmcp dev: the "oidc-provider" package is needed: install it beside rxmcp \(npm install -D oidc-provider\)/);
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
