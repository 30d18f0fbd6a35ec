/**
 * Runs one of examples/ as a child process, as written: it imports `rxmcp` by its package name, which inside the
 * repository resolves through `exports` to dist/ (absent while specs run). The child runs under tsx with a
 * tsconfig whose `paths` map every entry point of `exports` to the TypeScript source it is built from, so the
 * example runs against the sources without a build. Output lines are kept; the child is stopped by its pid.
 *
 *   await using example = await startExample('apps', ['serve'], /^host page: (\S+)/);
 *   example.match[1] // the captured address
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const START_MS = 60_000;

/** `rxmcp/<subpath>` -> its source file, from package.json's `exports` (`./dist/x/index.js` is built from `x/index.ts`). */
function sourcePaths(): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
  const paths: Record<string, string[]> = {};
  for (const [subpath, entry] of Object.entries(manifest.exports)) {
    const target = typeof entry === 'string' ? entry : (entry as { import?: string }).import;
    if (subpath === './package.json' || typeof target !== 'string') continue;
    const source = join(root, target.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
    if (!existsSync(source)) throw new Error(`no source for the export ${subpath} (${source})`);
    paths[subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`] = [source];
  }
  return paths;
}

export interface ExampleProcess extends AsyncDisposable {
  readonly child: ChildProcess;
  /** The first stdout line matching the pattern that was waited for. */
  readonly match: RegExpExecArray;
  /** stdout and stderr lines so far. */
  readonly output: readonly string[];
  stop(): Promise<void>;
}

/** Starts `examples/<name>.ts` with `args` and waits (at most 60 s) for a stdout line matching `ready`. */
export async function startExample(name: string, args: readonly string[], ready: RegExp): Promise<ExampleProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-example-'));
  const tsconfig = join(dir, 'tsconfig.json');
  writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { paths: sourcePaths() } }));
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'examples', `${name}.ts`), ...args], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
    const killer = setTimeout(() => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
    rmSync(dir, { recursive: true, force: true });
  };
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`examples/${name}.ts printed no line matching ${ready} within ${START_MS} ms:\n${output.join('\n')}`)), START_MS);
    const collect = (stream: NodeJS.ReadableStream, onLine?: (line: string) => void) => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) {
          output.push(line);
          onLine?.(line);
        }
      });
    };
    collect(child.stdout!, (line) => {
      const found = ready.exec(line);
      if (found === null) return;
      clearTimeout(timer);
      resolve(found);
    });
    collect(child.stderr!);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`examples/${name}.ts exited (${child.exitCode ?? child.signalCode}) before printing a line matching ${ready}:\n${output.join('\n')}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { child, match, output, stop, [Symbol.asyncDispose]: stop };
}
