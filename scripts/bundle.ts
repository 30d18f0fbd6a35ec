/**
 * The published JavaScript: every entry point of package.json (`exports` and `bin`) bundled by esbuild into
 * dist/, beside the declarations tsc writes there (`npm run build` runs tsc for the .d.ts, then this).
 *
 * Why bundle: a Node process pays per module file it loads, and the root import used to load some 600 of them,
 * most of them rxjs's CommonJS build (its `node` export condition always picks that build, all 200-odd operators
 * included, and rxjs exports no way to ask for its ES build). Bundled, our own modules and the libraries below are
 * a few files, tree-shaken, rxjs from its ES build; see bench/RESULTS.md "Package" for what it changed.
 *
 * What is bundled: our code, and pure-logic libraries that hold no security fixes a user would want to take
 * with `npm update` on their own (rxjs, its tslib helpers, xstate). rxjs and xstate stay
 * dependencies because the declarations name their types; rxmcp never checks `instanceof` against an rxjs
 * class, so an Observable from the user's own rxjs and ours work together. Everything else stays an import
 * resolved in the user's node_modules: the schema validator, the hash functions, the OAuth and JOSE libraries (fixes reach users
 * without a release of ours), the CLI's own packages, and the optional peers (effect, msgpackr, NATS,
 * OpenTelemetry, oidc-provider), which must stay absent-tolerant.
 *
 * Entry points share code through chunks (dist/chunks/), so `rxmcp` and `rxmcp/http` loaded together hold one
 * copy of each module: a class from one entry is the class of the other.
 */
import { build, type Plugin } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** Libraries compiled into our files (see the module comment); any other bare import stays external. */
const BUNDLED = new Set(['rxjs', 'tslib', 'xstate']);

interface PackageJson {
  readonly bin: Readonly<Record<string, string>>;
  readonly exports: Readonly<Record<string, string | { readonly import?: string }>>;
}

/** The source of each built JavaScript file package.json points at: `./dist/a/b.js` is built from `a/b.ts`. */
export function entryPoints(pkg: PackageJson): string[] {
  const built = new Set<string>(Object.values(pkg.bin));
  for (const target of Object.values(pkg.exports)) {
    if (typeof target === 'object' && target.import !== undefined) built.add(target.import);
  }
  return [...built].map((path) => path.replace(/^\.?\/?dist\//, '').replace(/\.js$/, '.ts')).sort();
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Bare imports: bundled when listed, external otherwise; rxjs from its ES build. */
const dependencies: Plugin = {
  name: 'rxmcp-dependencies',
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      if (!BUNDLED.has(packageName(args.path))) return { path: args.path, external: true };
      if (args.path === 'rxjs' || args.path === 'rxjs/operators') {
        const file = args.path === 'rxjs' ? 'index.js' : 'operators/index.js';
        return { path: join(root, 'node_modules', 'rxjs', 'dist', 'esm', file) };
      }
      return undefined;
    });
  },
};

export async function bundle(): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  const result = await build({
    absWorkingDir: root,
    entryPoints: entryPoints(pkg),
    outdir: 'dist',
    outbase: '.',
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    plugins: [dependencies],
    // Not minified, so stack traces and profiles read as our code with its names; no source maps, whose
    // copies of the sources would be half the installed size (see bench/RESULTS.md "Package").
    sourcemap: false,
    minify: false,
    legalComments: 'inline',
    logLevel: 'warning',
  });
  if (result.errors.length > 0) throw new Error(`esbuild failed with ${String(result.errors.length)} errors`);
}

if (process.argv[1] === import.meta.filename) await bundle();
