/**
 * Source maps of the repo's TypeScript modules as loaded in this process, for resolving a CPU profile to
 * file:line. tsx emits each module on one line (minified whitespace), so a .cpuprofile's positions mean
 * nothing without the maps; they are taken from the profiled process itself (node:module findSourceMap), so
 * they match the code that ran even if the sources change afterwards.
 *
 *   node --cpu-prof ... bench/tools-call.ts --profile=rxmcp --source-maps=.tmp/maps.json
 *   npx tsx bench/cpuprofile-top.ts .tmp/<file>.cpuprofile --maps=.tmp/maps.json
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './lib.ts';

const roots = ['index.ts', 'core', 'actors', 'machines', 'transports', 'cli', 'bench'];

function tsFiles(path: string): string[] {
  if (path.endsWith('.ts')) return [path];
  try {
    return readdirSync(path, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() || entry.name.endsWith('.ts') ? tsFiles(join(path, entry.name)) : []));
  } catch {
    return [];
  }
}

/** Writes `{ [module url]: source map payload }` for every repo module this process loaded. */
export function dumpSourceMaps(outFile: string): number {
  const maps: Record<string, unknown> = {};
  for (const file of roots.flatMap((root) => tsFiles(join(repoRoot, root)))) {
    const url = pathToFileURL(file).href;
    const map = findSourceMap(url);
    if (map !== undefined) maps[url] = map.payload;
  }
  writeFileSync(outFile, JSON.stringify(maps));
  return Object.keys(maps).length;
}
