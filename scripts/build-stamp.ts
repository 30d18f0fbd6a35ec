/**
 * Whether dist/ is the build of the sources as they are now, so that the steps needing the built package (the
 * examples, publint and attw, the packed-tarball consumers) share one build instead of each building again.
 *
 *   tsx scripts/build-stamp.ts write    the last part of `npm run build`: records what dist/ was built from
 *   tsx scripts/build-stamp.ts ensure   runs `npm run build` unless dist/ is the build of the current sources
 *
 * What dist/ was built from is a SHA-256 over the files the compiler takes from tsconfig.build.json (paths and
 * contents, as tsc itself lists them), both tsconfig files, package.json, the bundler script and the TypeScript version, kept in
 * dist/.build-stamp (left out of the package by `files`). An edited, added or removed source changes it; so does
 * a build that failed half-way, since `npm run build` empties dist/ first and writes the stamp last.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
const STAMP = join(root, 'dist', '.build-stamp');
const BUILD_CONFIG = join(root, 'tsconfig.build.json');

/** The digest of everything the build reads that is ours. */
export function sourcesDigest(): string {
  const parsed = ts.getParsedCommandLineOfConfigFile(BUILD_CONFIG, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error(`cannot read ${BUILD_CONFIG}`);
  const files = [...parsed.fileNames, BUILD_CONFIG, join(root, 'tsconfig.json'), join(root, 'package.json'), join(root, 'scripts', 'bundle.ts')].map((file) => relative(root, file)).sort();
  const hash = createHash('sha256').update(`typescript ${ts.version}\n`);
  for (const file of files) hash.update(`${file}\n${String(readFileSync(join(root, file)).length)}\n`).update(readFileSync(join(root, file)));
  return hash.digest('hex');
}

export function isCurrent(): boolean {
  return existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === sourcesDigest();
}

export function writeStamp(): void {
  if (!existsSync(join(root, 'dist'))) throw new Error('no dist/ to stamp: run the build first');
  writeFileSync(STAMP, `${sourcesDigest()}\n`);
}

/** Builds unless dist/ is current; says which on stdout. Rejects when the build fails. */
export async function ensureBuilt(): Promise<void> {
  if (isCurrent()) {
    console.log('dist/ is the build of the current sources: not building again');
    return;
  }
  console.log(existsSync(STAMP) ? 'dist/ was built from other sources: building' : 'dist/ is missing or unstamped: building');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`npm run build failed (exit ${String(code)})`);
  if (!isCurrent()) throw new Error('npm run build did not leave a stamped dist/ (its last part is `tsx scripts/build-stamp.ts write`)');
}

if (import.meta.filename === process.argv[1]) {
  const command = process.argv[2];
  const done = command === 'write' ? Promise.resolve(writeStamp()) : command === 'ensure' ? ensureBuilt() : Promise.reject(new Error('usage: tsx scripts/build-stamp.ts write|ensure'));
  done.catch((error: unknown) => {
    console.error(`build-stamp: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
