// Bundles one TypeScript program of the specs for plain node (specs/support/spec-program.ts runs this when its
// bundle is missing or stale): `node program-bundler.mjs <entry.ts> <out.mjs> <inputs.json>`. Plain JavaScript,
// so that it needs no loader. Our sources go into one file; packages stay imports, resolved from the repository's
// node_modules as before. Each module's import.meta.url, dirname and filename are its own source file's, so a
// program still finds the files beside its sources. Writes the bundle and the list of its inputs (size and mtime),
// each through a temporary file renamed into place: spec processes building the same program side by side each
// leave a whole file.
import { renameSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const [entry, out, inputsFile] = process.argv.slice(2);
if (entry === undefined || out === undefined || inputsFile === undefined) {
  console.error('usage: node program-bundler.mjs <entry.ts> <out.mjs> <inputs.json>');
  process.exit(2);
}

/** import.meta's file facts, written into each module as the literals of its own source file. */
const ownImportMeta = {
  name: 'own-import-meta',
  setup(context) {
    context.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

const suffix = `.${process.pid}.tmp`;
const result = await build({
  entryPoints: [entry],
  outfile: out + suffix,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'inline',
  metafile: true,
  logLevel: 'warning',
  plugins: [ownImportMeta],
});
const inputs = Object.keys(result.metafile.inputs).map((path) => {
  const absolute = resolve(path);
  const stat = statSync(absolute);
  return [absolute, stat.size, stat.mtimeMs];
});
renameSync(out + suffix, out);
writeFileSync(inputsFile + suffix, JSON.stringify({ entry: resolve(entry), inputs }));
renameSync(inputsFile + suffix, inputsFile);
