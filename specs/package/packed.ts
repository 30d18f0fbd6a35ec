/**
 * The package as users get it, for the specs that try it from outside (consumers.pack-test.ts, docs.pack-test.ts):
 * the tarball `npm pack` makes from a fresh build, throwaway projects, and commands run to their end, bounded in
 * time and never throwing on a non-zero exit (the caller asserts).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** The TypeScript this repository builds with (5.9): consumers compile with it, the docs are checked with it too. */
export const REPO_TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const execFileAsync = promisify(execFile);

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (bounded); never throws on a non-zero exit, the caller asserts. */
export async function run(command: string, args: readonly string[], cwd: string, timeoutMs = 120_000, env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  try {
    const { stdout, stderr } = await execFileAsync(command, [...args], { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...env, NODE_OPTIONS: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? failed.message };
  }
}

export async function ok(command: string, args: readonly string[], cwd: string, timeoutMs?: number): Promise<string> {
  const result = await run(command, args, cwd, timeoutMs);
  assert.equal(result.code, 0, `${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

export const npmInstall = (cwd: string, specs: readonly string[]): Promise<string> =>
  ok('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], cwd, 300_000);

/** A project directory with this package.json and these files of fixtures/ copied in. */
export function project(dir: string, packageJson: object, fixtures: readonly string[] = []): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ private: true, version: '1.0.0', ...packageJson }, null, 2)}\n`);
  for (const fixture of fixtures) copyFileSync(join(FIXTURES, fixture), join(dir, fixture.split('/').pop() ?? fixture));
  return dir;
}

export interface PackedTarball {
  /** The tarball's path (its name is npm's: `rxmcp-<version>.tgz`). */
  readonly path: string;
  readonly filename: string;
  /** The paths packed, relative to the package root. */
  readonly files: readonly string[];
}

/**
 * Packs the package into `destination`, as a release would, building it first unless dist/ is already the build of
 * the sources as they are (scripts/build-stamp.ts: CI's package steps share one build).
 */
export async function packTarball(destination: string): Promise<PackedTarball> {
  await ok(process.execPath, ['--import', 'tsx', join(REPO, 'scripts', 'build-stamp.ts'), 'ensure'], REPO, 300_000);
  const packed = JSON.parse(await ok('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], REPO)) as [{ filename: string; files: { path: string }[] }];
  return { path: join(destination, packed[0].filename), filename: packed[0].filename, files: packed[0].files.map((file) => file.path) };
}

export const repoPackage = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  readonly version: string;
  readonly scripts: Readonly<Record<string, string>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly publishConfig?: Readonly<Record<string, unknown>>;
};
