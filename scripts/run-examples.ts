/**
 * `npm run examples`: type-checks every example in examples/ and runs each, failing on the first that does not
 * exit 0. The examples import `rxmcp` by its package name, as a user's code does; inside this repository that
 * name resolves to the package itself (Node's and TypeScript's package self-reference through `exports`), so
 * what they get is exactly what `exports` points at:
 *
 * - built package (`exports` points at JavaScript, as after `npm run build`): `npm run build` runs first unless
 *   dist/ is the build of the current sources (scripts/build-stamp.ts); tsc checks the examples against the
 *   published .d.ts and emits them to .tmp/examples, and each is run by plain `node`, no loader.
 * - sources (`exports` points at .ts files, before the build exists): tsc checks them against the sources
 *   (`--noEmit --allowImportingTsExtensions`), and each runs with `node --import tsx`.
 *
 * A folder beside an example (examples/apps/ for apps.ts) holds its browser half, bundled by the example when it
 * starts: it is type-checked with its own tsconfig.json (DOM types), and copied beside the compiled examples.
 *
 * Examples that need NATS get NATS_URL: a nats-server this script starts on a free port of 127.0.0.1 (the one a
 * developer may run on 4222 is never used). Usage: `npm run examples [-- name...]` (names without `.ts`).
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startNatsServer, type NatsServerProcess } from '../specs/support/nats-server.ts';
import { ensureBuilt } from './build-stamp.ts';

const root = join(import.meta.dirname, '..');
const examplesDir = join(root, 'examples');
const outDir = join(root, '.tmp', 'examples');
const RUN_TIMEOUT_MS = 90_000;

/** Examples that talk to a nats-server (they read NATS_URL). */
const NEEDS_NATS = new Set(['nats-gateway-replicas', 'limits-nats']);

type Mode = 'built' | 'sources';

interface Manifest {
  readonly exports?: Readonly<Record<string, unknown>>;
  readonly scripts?: Readonly<Record<string, string>>;
}

/** Where `import 'rxmcp'` lands: built JavaScript, or the TypeScript sources. */
function resolutionMode(manifest: Manifest): Mode {
  const entry = manifest.exports?.['.'];
  const targets = JSON.stringify(entry ?? '');
  return /\.ts"/.test(targets) && !/\.js"/.test(targets) ? 'sources' : 'built';
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Runs a command with inherited output; rejects past the time bound (the child is killed by its pid). */
function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${RUN_TIMEOUT_MS} ms`));
    }, RUN_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

async function mustSucceed(what: string, command: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<void> {
  const exit = await run(command, args, env);
  if (exit.code !== 0) throw new Error(`${what} failed (exit ${exit.code ?? exit.signal})`);
}

function exampleNames(requested: readonly string[]): string[] {
  const all = readdirSync(examplesDir)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
  const unknown = requested.filter((name) => !all.includes(name));
  if (unknown.length > 0) throw new Error(`no such example: ${unknown.join(', ')} (there are: ${all.join(', ')})`);
  return requested.length > 0 ? [...requested] : all;
}

async function main(): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  const mode = resolutionMode(manifest);
  const names = exampleNames(process.argv.slice(2));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  console.log(`examples: ${names.join(', ')}\n'rxmcp' resolves to the ${mode === 'built' ? 'built package' : 'TypeScript sources'}`);

  if (mode === 'built') {
    if (manifest.scripts?.['build'] === undefined) throw new Error('package.json exports point at JavaScript and there is no build script');
    await ensureBuilt();
    await mustSucceed('type-checking and compiling the examples', process.execPath, [tsc, '-p', join(examplesDir, 'tsconfig.json'), '--rootDir', examplesDir, '--outDir', outDir]);
  } else {
    await mustSucceed('type-checking the examples', process.execPath, [tsc, '-p', join(examplesDir, 'tsconfig.json'), '--noEmit', '--allowImportingTsExtensions']);
  }

  for (const folder of readdirSync(examplesDir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()) {
    await mustSucceed(`type-checking examples/${folder}`, process.execPath, [tsc, '-p', join(examplesDir, folder, 'tsconfig.json')]);
    if (mode === 'built') cpSync(join(examplesDir, folder), join(outDir, folder), { recursive: true });
  }

  let nats: NatsServerProcess | undefined;
  try {
    for (const name of names) {
      const env = { ...process.env };
      if (NEEDS_NATS.has(name)) {
        nats ??= await startNatsServer();
        env['NATS_URL'] = nats.url;
      }
      const args = mode === 'built' ? [join(outDir, `${name}.js`)] : ['--import', 'tsx', join(examplesDir, `${name}.ts`)];
      console.log(`\n---- ${name}`);
      const started = Date.now();
      await mustSucceed(`example ${name}`, process.execPath, args, env);
      console.log(`---- ${name}: ok in ${Date.now() - started} ms`);
    }
  } finally {
    await nats?.dispose();
  }
  console.log(`\nall ${names.length} examples passed`);
}

main().catch((error: unknown) => {
  console.error(`run-examples: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
