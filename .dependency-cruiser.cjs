// Layer rules (see shared ARCHITECTURE.md "Layers"): imports point one way only.
//
//   index.ts   cli/
//       \      /
//       machines/        core + actors only
//           |
//        actors/         core only
//           |
//         core/          nothing of ours above it
//   transports/          core only (an adapter of the transport port)
//
// specs/ and bench/ may import anything; nothing else imports them. No cycles anywhere.
// Run by `npm run layers`; any `error` violation makes depcruise exit non-zero.

/** Paths of shipped (non-test) code, relative to the repo root. */
const SHIPPED = '^(core|actors|machines|transports|cli)/|^index\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No dependency cycles anywhere (type-only imports included).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-the-bottom',
      severity: 'error',
      comment: 'core/ is pure and depends on nothing of ours above it.',
      from: { path: '^core/' },
      to: { path: '^(actors|machines|transports|cli)/|^index\\.ts$' },
    },
    {
      name: 'transports-only-core',
      severity: 'error',
      comment: 'A transport adapter depends only on core/ (plus node builtins and npm packages).',
      from: { path: '^transports/' },
      to: { path: '^(actors|machines|cli)/|^index\\.ts$' },
    },
    {
      name: 'actors-only-core',
      severity: 'error',
      comment: 'actors/ depend only on core/.',
      from: { path: '^actors/' },
      to: { path: '^(machines|transports|cli)/|^index\\.ts$' },
    },
    {
      name: 'machines-only-core-and-actors',
      severity: 'error',
      comment: 'machines/ depend only on core/ and actors/; transports are injected, never imported.',
      from: { path: '^machines/' },
      to: { path: '^(transports|cli)/|^index\\.ts$' },
    },
    {
      name: 'runtime-neutral-core',
      severity: 'error',
      comment:
        'core/, actors/ and machines/ run in browsers, Deno, Bun and edge workers as in Node: no node:* module ' +
        'and no Node builtin (Web Crypto, core/crypto/ and core/bytes.ts instead). Only transports/ and cli/ ' +
        'may use Node.',
      from: { path: '^(core|actors|machines)/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'web-transports-runtime-neutral',
      severity: 'error',
      comment:
        'What rxmcp/http/web and rxmcp/memory are made of runs without Node (browsers, Deno, edge workers): only ' +
        'the node:http client engine and the node:http server adapter may import Node builtins (types aside).',
      from: {
        path: '^transports/(memory|http/(shared|client|server))/|^transports/http/web\\.ts$',
        pathNot: '^transports/http/(client/(node-engine|streamable-http-client|index)|server/(node-adapter|streamable-http-server|index))\\.ts$',
      },
      to: { dependencyTypes: ['core'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      comment: 'cli/ is a top layer: only specs/ and bench/ may import it.',
      from: { pathNot: '^(cli|specs|bench)/' },
      to: { path: '^cli/' },
    },
    {
      name: 'not-to-specs-or-bench',
      severity: 'error',
      comment: 'Only specs/ and bench/ may import from specs/ or bench/.',
      from: { pathNot: '^(specs|bench)/' },
      to: { path: '^(specs|bench)/' },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment:
        'Shipped code (core, actors, machines, transports, cli, index.ts) must not import devDependencies: ' +
        'they are not installed for users. Move the package to "dependencies" or keep the import in specs/bench.',
      from: { path: SHIPPED },
      // An optional peer (effect, nats, msgpackr) is a devDependency too, for our own tests.
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['npm-peer'] },
    },
    {
      name: 'optional-peers-behind-their-entry-points',
      severity: 'error',
      comment:
        'effect, nats and msgpackr are optional peers: only the entry points that need them import them ' +
        '(rxmcp/nats, rxmcp/msgpack, rxmcp/effect, the bridge and gateway commands); elsewhere only a dynamic ' +
        'import (an Effect returned by a handler) or a type-only one, so `import "rxmcp"` loads none of them.',
      from: { path: SHIPPED, pathNot: '^(transports/nats/|cli/(bridge|gateway)/|core/codecs/msgpack\\.ts$|core/schema/effect-schema\\.ts$)' },
      to: { dependencyTypes: ['npm-peer'], dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment: 'Import only packages declared in package.json (not transitive dependencies).',
      from: {},
      // dependency-cruiser also tags a declared peer dependency 'npm-no-pkg'.
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'], dependencyTypesNot: ['npm-peer'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import must resolve to a file or a package.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6', 'cjs'],
    // Count `import type` too: a type-only edge is still a layer edge (and a cycle).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
