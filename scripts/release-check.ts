/**
 * `npm run release:check` (CI: the package step, after the build): what a release would publish, checked without
 * publishing. `npm publish --dry-run --offline` on the built package (no script runs, nothing reaches a registry),
 * then: the publish settings a release relies on (`publishConfig`: provenance, public access), no field npm would
 * "auto-correct" at publish time (it silently rewrites them), the files that must and must not ship, a CHANGELOG
 * section for the version, and the install lines of the docs naming this version's tarball. docs/release.md is
 * the procedure around it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const PAGES = ['README.md', 'docs/getting-started.md', 'docs/auth.md', 'examples/README.md'];
const MUST_SHIP = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/rxmcp.js'];
const MUST_NOT_SHIP = /^(specs|bench|scripts|examples|\.ci|api|node_modules)\/|^tsconfig|^eslint|^knip|^\.dependency-cruiser/;

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly bin?: Readonly<Record<string, string>>;
  readonly publishConfig?: { readonly provenance?: unknown; readonly access?: unknown };
}

interface DryRun {
  readonly id: string;
  readonly files: readonly { readonly path: string }[];
  readonly size: number;
  readonly unpackedSize: number;
}

function problems(): string[] {
  const found: string[] = [];
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  if (manifest.publishConfig?.provenance !== true) found.push('package.json: publishConfig.provenance must be true (a signed statement of where the package was built)');
  if (manifest.publishConfig?.access !== 'public') found.push('package.json: publishConfig.access must be "public"');
  for (const [name, path] of Object.entries(manifest.bin ?? {})) {
    if (!existsSync(join(root, path))) found.push(`package.json: bin ${name} names ${path}, which is not built (run npm run build first)`);
  }

  const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
  if (!new RegExp(`^## ${manifest.version.replace(/\./g, '\\.')} - \\d{4}-\\d{2}-\\d{2}$`, 'm').test(changelog)) {
    found.push(`CHANGELOG.md: no "## ${manifest.version} - YYYY-MM-DD" section for the version in package.json`);
  }
  for (const page of PAGES) {
    for (const match of readFileSync(join(root, page), 'utf8').matchAll(/rxmcp-(\d+\.\d+\.\d+[^\s/]*?)\.tgz/g)) {
      if (match[1] !== manifest.version) found.push(`${page}: names ${match[0]}, but the version is ${manifest.version}`);
    }
  }

  // --offline: the dry run may read nothing from a registry, let alone write to one.
  const dryRun = spawnSync('npm', ['publish', '--dry-run', '--offline', '--ignore-scripts', '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'notice' } });
  if (dryRun.status !== 0) return [...found, `npm publish --dry-run failed (exit ${dryRun.status}):\n${dryRun.stderr}`];
  const corrected = dryRun.stderr.split('\n').filter((line) => /errors corrected|auto-corrected|was invalid and removed|was renamed|removed invalid/.test(line));
  if (corrected.length > 0) found.push(`npm would rewrite package.json at publish time (npm pkg fix shows how):\n  ${corrected.join('\n  ')}`);
  if (!/with tag latest and public access \(dry-run\)/.test(dryRun.stderr)) found.push(`npm publish would not publish with public access:\n${dryRun.stderr}`);
  const report = (JSON.parse(dryRun.stdout) as Record<string, DryRun>)[manifest.name];
  if (report === undefined) return [...found, `npm publish --dry-run --json said nothing about ${manifest.name}:\n${dryRun.stdout}`];
  if (report.id !== `${manifest.name}@${manifest.version}`) found.push(`npm publish would publish ${report.id}, not ${manifest.name}@${manifest.version}`);
  const shipped = report.files.map((file) => file.path);
  for (const path of MUST_SHIP) if (!shipped.includes(path)) found.push(`the package would not contain ${path}`);
  const stray = shipped.filter((path) => MUST_NOT_SHIP.test(path));
  if (stray.length > 0) found.push(`the package would contain files for this repository only: ${stray.slice(0, 5).join(', ')}${stray.length > 5 ? ', ...' : ''}`);
  console.log(`release check: ${report.id}, ${shipped.length} files, ${(report.size / 1e6).toFixed(1)} MB packed, ${(report.unpackedSize / 1e6).toFixed(1)} MB unpacked`);
  return found;
}

const found = problems();
if (found.length > 0) {
  console.error(`release check: ${found.length} problem(s)\n- ${found.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('release check: ok (provenance and public access set, nothing npm would rewrite, the docs name this version)');
}
