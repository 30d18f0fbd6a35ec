/**
 * The pages a newcomer reads first, run as written (`npm run test:docs`, a CI step of its own; not part of `npm test`,
 * since the pages install from the npm registry). One build and `npm pack`, one install of what the checks share
 * (TypeScript 7 with the latest @types/node, and the tarball for `rxmcp --help`); then each page from an empty
 * directory holding the tarball, every block as its marker says (doc-run/blocks.ts): commands in a shell, files
 * written and run with plain node, outputs compared, fragments type-checked with TypeScript 7 and with this
 * repository's 5.9, logins completed in headless Chromium. A page that drifts from what the package does fails here.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Toolchain, runPage } from './doc-run/runner.ts';
import { REPO_TSC, npmInstall, packTarball, project } from './packed.ts';

const PAGES = ['README.md', 'docs/getting-started.md', 'docs/auth.md', 'examples/README.md'] as const;
/** TypeScript 7 (the native compiler, `typescript@latest` today) beside the 5.9 this repository builds with. */
const TYPESCRIPT_7 = 'typescript@7';

function versionOf(packageDir: string): string {
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('docs: the newcomer pages, run as written from the packed tarball', () => {
  let work = '';
  let toolchain: Toolchain;

  before(async () => {
    const started = Date.now();
    work = mkdtempSync(join(tmpdir(), 'rxmcp-docs-'));
    const tarball = await packTarball(work);
    const packed = Date.now();
    const shared = project(join(work, 'toolchain'), { name: 'doc-run-toolchain' });
    await npmInstall(shared, [tarball.path, TYPESCRIPT_7, '@types/node@latest']);
    const modules = join(shared, 'node_modules');
    const ts7 = versionOf(join(modules, 'typescript'));
    assert.match(ts7, /^7\./);
    toolchain = {
      compilers: [
        { name: `TypeScript ${ts7}`, tsc: join(modules, 'typescript', 'bin', 'tsc') },
        { name: `TypeScript ${versionOf(join(REPO_TSC, '..', '..'))}`, tsc: REPO_TSC },
      ],
      typeRoots: join(modules, '@types'),
      rxmcp: join(modules, '.bin', 'rxmcp'),
      tarball: tarball.path,
    };
    console.log(`doc-run: ${toolchain.compilers.map((compiler) => compiler.name).join(' and ')}, @types/node ${versionOf(join(modules, '@types', 'node'))}; packed in ${((packed - started) / 1000).toFixed(1)} s, toolchain installed in ${((Date.now() - packed) / 1000).toFixed(1)} s`);
  });

  after(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  for (const page of PAGES) {
    test(`docs - ${page}: every block runs or checks as its marker says`, async () => {
      const started = Date.now();
      const report = await runPage(page, join(work, page.replace(/\W+/g, '-')), toolchain);
      const slowest = [...report.timings].sort((a, b) => b.ms - a.ms).slice(0, 5).map(({ line, ms }) => `${line === 0 ? 'type-check' : `line ${line}`} ${(ms / 1000).toFixed(1)} s`);
      console.log(`doc-run: ${page}: ${report.blocks} blocks, ${report.ran} commands run, ${report.typeChecked} TypeScript sources and ${report.projects} projects type-checked in ${((Date.now() - started) / 1000).toFixed(1)} s; slowest: ${slowest.join(', ')}`);
    });
  }
});
