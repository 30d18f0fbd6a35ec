/**
 * The checks of blocks the runner does not run: a skipped command still names rxmcp subcommands and flags that
 * exist (asked of the packed `rxmcp --help`) and, in the repository, npm scripts that exist; a JSON block parses
 * and the commands of an `mcpServers` configuration are found on PATH. And the type-check of every TypeScript
 * file and fragment of a page, once per TypeScript version, and the packages its code imports being ones the page
 * had the reader install (npm would find a dependency of rxmcp's anyway, hoisted, but no reader should rely on it).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { REPO, repoPackage, run } from '../packed.ts';

export interface Compiler {
  /** As reported: `TypeScript 7.0.2`. */
  readonly name: string;
  readonly tsc: string;
}

/** The words of a command line, the way a shell splits simple ones (quotes kept together, a `#` comment dropped). */
export function words(line: string): string[] {
  const found: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"([^"]*)"|(#.*$)|(\S+)/g)) {
    if (match[3] !== undefined) break;
    found.push(match[1] ?? match[2] ?? match[4] ?? '');
  }
  return found;
}

/** Each `rxmcp <command> ...` a line runs (as a command, or through npx; several with && ; |): the command and its flags. */
export function rxmcpInvocations(line: string): { command: string; flags: string[] }[] {
  const invocations: { command: string; flags: string[] }[] = [];
  const simple: string[][] = [[]];
  for (const word of words(line)) {
    if (word === '&&' || word === ';' || word === '|' || word === '||') simple.push([]);
    else simple.at(-1)?.push(word);
  }
  for (const command of simple) {
    let index = 0;
    while (/^[A-Z_][A-Z0-9_]*=/.test(command[index] ?? '')) index += 1;
    if (command[index] === 'npx') for (index += 1; (command[index] ?? '').startsWith('-'); index += 1);
    if (!/(^|\/)rxmcp$/.test(command[index] ?? '') || command[index + 1] === undefined) continue;
    const rest = command.slice(index + 1);
    const end = rest.indexOf('--');
    const own = end < 0 ? rest : rest.slice(0, end);
    invocations.push({ command: own[0] ?? '', flags: own.filter((word) => word.startsWith('--')).map((word) => word.split('=')[0] ?? word) });
  }
  return invocations;
}

/** Fails unless each rxmcp command of `lines` exists and its `--help` names every flag used. */
export async function checkRxmcpFlags(lines: readonly string[], rxmcp: string, where: string, helpCache: Map<string, string>): Promise<void> {
  for (const line of lines) {
    for (const { command, flags } of rxmcpInvocations(line)) {
      let help = helpCache.get(command);
      if (help === undefined) {
        const result = await run(rxmcp, [command, '--help'], REPO);
        if (result.code !== 0) throw new Error(`${where}: \`rxmcp ${command}\` is not a command of the packed rxmcp (${result.stderr.trim()})`);
        help = result.stdout;
        helpCache.set(command, help);
      }
      for (const flag of flags) {
        if (!new RegExp(`(^|[\\s,\\[(])${flag.replace(/[-]/g, '\\-')}(?![\\w-])`, 'm').test(help)) throw new Error(`${where}: \`rxmcp ${command} --help\` knows no ${flag}`);
      }
    }
  }
}

/** Fails unless each `npm run X` / `npm start` / `npm test` of `lines` is a script of this repository. */
export function checkRepoScripts(lines: readonly string[], where: string): void {
  for (const line of lines) {
    const all = words(line);
    for (let index = 0; index < all.length; index += 1) {
      if (all[index] !== 'npm') continue;
      const verb = all[index + 1];
      const script = verb === 'run' ? all[index + 2] : verb === 'start' || verb === 'test' ? verb : undefined;
      if (script !== undefined && repoPackage.scripts[script] === undefined) throw new Error(`${where}: package.json has no "${script}" script`);
    }
  }
}

/** A JSON block parses; an MCP client configuration names commands that exist. */
export function checkJson(body: string, where: string, env: NodeJS.ProcessEnv): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new Error(`${where}: the JSON does not parse: ${error instanceof Error ? error.message : String(error)}`);
  }
  const servers = (value as { mcpServers?: Record<string, { command?: unknown }> } | null)?.mcpServers;
  for (const [name, server] of Object.entries(servers ?? {})) {
    if (typeof server.command !== 'string') throw new Error(`${where}: mcpServers.${name} has no command`);
    if (!onPath(server.command, env)) throw new Error(`${where}: mcpServers.${name}.command ${JSON.stringify(server.command)} is not found on PATH`);
  }
  return value;
}

function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  if (command.includes('/')) return existsSync(command);
  return (env['PATH'] ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

/** What a page's TypeScript is checked with: a reader's strict NodeNext project, @types/node from `typeRoots`. */
const CHECK_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2023'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  skipLibCheck: true,
  types: ['node'],
  noEmit: true,
};

/** Type-checks `files` (in `dir`, where the page installed its packages) with every compiler; fails with their errors. */
export async function typeCheck(files: readonly string[], dir: string, typeRoots: string, compilers: readonly Compiler[]): Promise<void> {
  if (files.length === 0) return;
  const config = join(dir, 'tsconfig.doc-run.json');
  writeFileSync(config, JSON.stringify({ compilerOptions: { ...CHECK_OPTIONS, typeRoots: [typeRoots] }, files }, null, 2));
  await compileWithEach(['-p', config], dir, compilers, `${files.length} file(s)`);
}

/** Compiles a page's own tsconfig.json (in `dir`) with every compiler, emitting nothing. */
export function compileProject(dir: string, compilers: readonly Compiler[]): Promise<void> {
  return compileWithEach(['-p', dir, '--noEmit'], dir, compilers, `the project in ${dir}`);
}

async function compileWithEach(args: readonly string[], dir: string, compilers: readonly Compiler[], what: string): Promise<void> {
  const results = await Promise.all(compilers.map(async (compiler) => ({ compiler, result: await run(process.execPath, [compiler.tsc, ...args], dir) })));
  const failed = results.filter(({ result }) => result.code !== 0);
  if (failed.length > 0) {
    throw new Error(failed.map(({ compiler, result }) => `${compiler.name} rejects ${what}:\n${result.stdout}${result.stderr}`).join('\n'));
  }
}

/** The packages `source` imports (bare specifiers; Node's own modules left out). */
export function importedPackages(source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(/\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm)) {
    const specifier = match[1] ?? match[2] ?? match[3] ?? '';
    if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] ?? '')) continue;
    const parts = specifier.split('/');
    found.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier));
  }
  return [...found];
}

/** Fails unless every package the files import is a dependency in the package.json nearest to `dir`. */
export function checkDeclaredImports(files: readonly string[], dir: string, what: string): void {
  let manifest = join(dir, 'package.json');
  while (!existsSync(manifest) && dirname(dirname(manifest)) !== dirname(manifest)) manifest = join(dirname(dirname(manifest)), 'package.json');
  const declared = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const installed = new Set([...Object.keys(declared.dependencies ?? {}), ...Object.keys(declared.devDependencies ?? {})]);
  const missing = new Map<string, string>();
  for (const file of files) {
    for (const name of importedPackages(readFileSync(file, 'utf8'))) if (!installed.has(name) && !missing.has(name)) missing.set(name, file);
  }
  if (missing.size > 0) {
    throw new Error(`${what}: the code imports packages the page never installs (${manifest} lacks them): ${[...missing].map(([name, file]) => `${name} (${file})`).join(', ')}`);
  }
}
