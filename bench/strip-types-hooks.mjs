// Module hooks for bench/strip-types.mjs: compile the repo's .ts files with esbuild, types stripped and
// nothing else. Unlike tsx, no `keepNames`, so closures are not renamed with Object.defineProperty (which
// gives every named closure a dictionary-mode property store). This is how compiled JS, or Node's own type
// stripping, runs the same code. node_modules are loaded untouched, as under tsx. Source maps are inline, for
// profiles (read by node only with --enable-source-maps; see bench/source-maps.ts).
import { readFile } from 'node:fs/promises';
import { transform } from 'esbuild';

const tsconfigRaw = { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: true } };

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && url.endsWith('.ts') && !url.includes('/node_modules/')) {
    const source = await readFile(new URL(url), 'utf8');
    const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20', sourcefile: url, keepNames: false, sourcemap: 'inline', tsconfigRaw });
    return { format: 'module', source: code, shortCircuit: true };
  }
  return nextLoad(url, context);
}
