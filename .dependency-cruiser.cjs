// Layer rules (see docs/architecture.md): imports point one way only.
//
//   index.ts            cli/            the curated public API and the rxmcp command (beside index.ts: engine.ts,
//                                        extensions.ts, testing.ts, the rxmcp/engine, /extensions, /testing entries)
//        \            /
//     server/      client/              createServer, the acceptor, the session host | createClient, connectSession
//           \      /                    (neither imports the other)
//           session/                     the session engine: one session's parts, by role
//               |
//            actors/                     RxJS actors (one per unit of work); they step the machines below
//               |
//           machines/                    XState machines (pure definitions, stepped as snapshots, never started)
//               |
//            core/                       pure: JSON-RPC, protocol declarations, codecs, errors, limits, the port
//   transports/                          adapters of the transport port: core only
//   limits/                              rxmcp/limits (rate limits as an interceptor): core, and actors/ for the
//                                        interceptor's types; limits/nats/ alone reaches nats.js. Nothing of ours
//                                        imports it: it is an add-on a user plugs in.
//   otel/                                rxmcp/otel (OpenTelemetry as interceptors): core, actors/ for the
//                                        interceptor's types, @opentelemetry/api. Nothing of ours imports it.
//   auth/                                rxmcp/auth (the resource-server kit) and rxmcp/auth/client (the OAuth
//                                        client): core, actors/ for interceptor types, the HTTP transports' ports;
//                                        oauth4webapi and jose. Only the rxmcp command imports it.
//   load/                                rxmcp/load (the load, soak and chaos tester): core, client/ (with the session
//                                        types it drives) and transports/; a Node tool, so Node's modules too.
//                                        Only the rxmcp command (`rxmcp load`) imports it.
//   mesh/                                rxmcp/mesh (one server over many NATS-served ones): server/ and client/ side
//                                        by side (the one place both meet, with cli/), the NATS client transport, core.
//                                        Only the rxmcp command imports it.
//
// specs/ and bench/ may import anything; nothing else imports them. No cycles anywhere (specs and bench included).
// Node's modules only in transports/, load/ and cli/; effect only in its bridge and schema adapter; msgpackr only in its
// codec; nats.js (@nats-io/*) only in the NATS transport, rxmcp/limits/nats and the commands built on it (the NATS
// client transport, rxmcp/nats/client, on @nats-io/nats-core alone and without Node); @opentelemetry/api only
// in rxmcp/otel.
// Run by `npm run layers`; any `error` violation makes depcruise exit non-zero.

/** Paths of shipped (non-test) code, relative to the repo root. */
const SHIPPED = '^(core|actors|machines|session|server|client|transports|limits|otel|auth|load|mesh|cli)/|^(index|engine|extensions|testing)\\.ts$';

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
      to: { path: '^(actors|machines|session|server|client|transports|limits|otel|auth|load|mesh|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'limits-is-an-add-on',
      severity: 'error',
      comment:
        'limits/ (rxmcp/limits) builds on core/ and the interceptor types of actors/; it never reaches into the ' +
        'engine or the public API, and nothing shipped imports it (a user plugs it in).',
      from: { path: '^limits/' },
      to: { path: '^(machines|session|server|client|transports|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'limits-without-nats',
      severity: 'error',
      comment: 'rxmcp/limits never loads nats: only rxmcp/limits/nats (limits/nats/) does.',
      from: { path: '^limits/', pathNot: '^limits/nats/' },
      to: { path: '^limits/nats/' },
    },
    {
      name: 'nothing-imports-limits',
      severity: 'error',
      comment: 'limits/ is an optional add-on: only itself, specs/, bench/ and scripts/ import it.',
      from: { pathNot: '^(limits|specs|bench|scripts)/' },
      to: { path: '^limits/' },
    },
    {
      name: 'otel-is-an-add-on',
      severity: 'error',
      comment:
        'otel/ (rxmcp/otel) builds on core/ and the interceptor types of actors/; it never reaches into the ' +
        'engine or the public API (servers and clients are taken structurally), and nothing shipped imports it.',
      from: { path: '^otel/' },
      to: { path: '^(machines|session|server|client|transports|limits|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'nothing-imports-otel',
      severity: 'error',
      comment: 'otel/ is an optional add-on: only itself, specs/, bench/ and scripts/ import it.',
      from: { pathNot: '^(otel|specs|bench|scripts)/' },
      to: { path: '^otel/' },
    },
    {
      name: 'auth-is-an-add-on',
      severity: 'error',
      comment:
        'auth/ (rxmcp/auth, rxmcp/auth/client) builds on core/, the interceptor types of actors/ and the ports of the ' +
        'HTTP transports; it never reaches into the engine or the public API (servers and clients are taken structurally).',
      from: { path: '^auth/' },
      to: { path: '^(machines|session|server|client|limits|otel|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'only-the-command-imports-auth',
      severity: 'error',
      comment:
        'auth/ is an add-on: only itself, the rxmcp command (cli/), specs/, bench/ and scripts/ import it; and ' +
        'rxmcp/testing (testing.ts) its followAuthorizationRedirect, a file that loads no OAuth library.',
      from: { pathNot: '^(auth|cli|specs|bench|scripts)/' },
      to: { path: '^auth/', pathNot: '^auth/client/follow-redirect\\.ts$' },
    },
    {
      name: 'apps-behind-their-entry-points',
      severity: 'error',
      comment:
        'MCP Apps (rxmcp/apps in server/apps/, rxmcp/apps/client in client/apps/) are extensions a user plugs in: ' +
        'nothing of the engine or the root API imports them, so `import "rxmcp"` loads none of them.',
      from: { path: SHIPPED, pathNot: '^(server|client)/apps/' },
      to: { path: '^(server|client)/apps/' },
    },
    {
      name: 'load-builds-on-the-client',
      severity: 'error',
      comment:
        'load/ (rxmcp/load) drives servers through rxmcp\'s own client over the transports: it may use core/, client/, ' +
        'the session types the client hands out (session/) and transports/, never the server side, the add-ons or the command.',
      from: { path: '^load/' },
      to: { path: '^(actors|machines|server|limits|otel|auth|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'only-the-command-imports-load',
      severity: 'error',
      comment: 'load/ is a tool: only itself, the rxmcp command (cli/), specs/, bench/ and scripts/ import it.',
      from: { pathNot: '^(load|cli|specs|bench|scripts)/' },
      to: { path: '^load/' },
    },
    {
      name: 'mesh-builds-on-server-and-client',
      severity: 'error',
      comment:
        'mesh/ (rxmcp/mesh) is an rxmcp server whose handlers forward through rxmcp clients: it may use core/, the feature ' +
        'types of actors/, session/, server/, client/ and transports/, never the add-ons, the load tester or the command.',
      from: { path: '^mesh/' },
      to: { path: '^(limits|otel|auth|load|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'only-the-command-imports-mesh',
      severity: 'error',
      comment: 'mesh/ is an add-on: only itself, the rxmcp command (cli/), specs/, bench/ and scripts/ import it.',
      from: { pathNot: '^(mesh|cli|specs|bench|scripts)/' },
      to: { path: '^mesh/' },
    },
    {
      name: 'transports-only-core',
      severity: 'error',
      comment:
        'A transport adapter depends only on core/ (plus node builtins and npm packages). One exception: a task store kept by a ' +
        'transport (the JetStream one of rxmcp/nats) asks the task lifecycle machine which status moves are legal, as the ' +
        'in-memory store does, rather than restating its rules.',
      from: { path: '^transports/' },
      to: { path: '^(actors|machines|session|server|client|limits|otel|auth|cli)/|^(index|engine|extensions|testing)\\.ts$', pathNot: '^machines/task-lifecycle\\.ts$' },
    },
    {
      name: 'actors-only-core-and-machines',
      severity: 'error',
      comment: 'actors/ depend only on core/ and machines/ (the request round and task lifecycle they step).',
      from: { path: '^actors/' },
      to: { path: '^(session|server|client|transports|limits|otel|auth|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'machines-only-core',
      severity: 'error',
      comment: 'machines/ hold XState machine definitions: they depend on core/ and xstate only.',
      from: { path: '^machines/' },
      to: { path: '^(actors|session|server|client|transports|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'session-below-the-api',
      severity: 'error',
      comment: 'session/ (the engine) composes machines and actors; the public API sits above it; transports are injected.',
      from: { path: '^session/' },
      to: { path: '^(server|client|transports|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'server-and-client-apart',
      severity: 'error',
      comment: 'server/ and client/ share session/, machines/, actors/ and core/, never each other; transports are injected.',
      from: { path: '^(server|client)/' },
      to: { path: '^(transports|cli)/|^(index|engine|extensions|testing)\\.ts$' },
    },
    {
      name: 'server-not-client',
      severity: 'error',
      comment: 'server/ does not import client/.',
      from: { path: '^server/' },
      to: { path: '^client/' },
    },
    {
      name: 'client-not-server',
      severity: 'error',
      comment: 'client/ does not import server/.',
      from: { path: '^client/' },
      to: { path: '^server/' },
    },
    {
      name: 'node-only-in-transports-and-cli',
      severity: 'error',
      comment:
        'Everything but transports/, load/ (a Node tool) and cli/ runs in browsers, Deno, Bun and edge workers as in Node: ' +
        'no node:* module and no Node builtin (Web Crypto, core/crypto/ and core/bytes.ts instead).',
      from: { path: SHIPPED, pathNot: '^(transports|load|cli)/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'effect-only-in-its-bridge',
      severity: 'error',
      comment: 'effect is reached only through its bridge (core/abort.ts) and its schema adapter (rxmcp/effect).',
      from: { path: SHIPPED, pathNot: '^core/(abort|schema/effect-schema)\\.ts$' },
      // Resolved npm modules are named by their path, which is not always under ./node_modules (a linked
      // node_modules resolves elsewhere): match the package folder anywhere.
      to: { path: '(^|/)node_modules/effect/' },
    },
    {
      name: 'msgpackr-only-in-its-codec',
      severity: 'error',
      comment: 'msgpackr is reached only through core/codecs/msgpack.ts (rxmcp/msgpack).',
      from: { path: SHIPPED, pathNot: '^core/codecs/msgpack\\.ts$' },
      to: { path: '(^|/)node_modules/msgpackr/' },
    },
    {
      name: 'web-transports-runtime-neutral',
      severity: 'error',
      comment:
        'What rxmcp/http/web and rxmcp/testing are made of runs without Node (browsers, Deno, edge workers): only ' +
        'the node:http client engine and the node:http server adapter may import Node builtins (types aside).',
      from: {
        path: '^transports/(memory|http/(shared|client|server))/|^transports/http/web\\.ts$|^testing\\.ts$|^core/test-clock\\.ts$|^auth/client/follow-redirect\\.ts$',
        pathNot: '^transports/http/(client/(node-engine|streamable-http-client|index)|server/(node-adapter|streamable-http-server|index))\\.ts$',
      },
      to: { dependencyTypes: ['core'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nats-client-runtime-neutral',
      severity: 'error',
      comment:
        'rxmcp/nats/client (the NATS client transport) runs in browsers over wsconnect: of nats.js it imports only ' +
        '@nats-io/nats-core (no Node transport, no JetStream); specs/browser/nats-websocket.spec.ts bundles its whole graph for the browser.',
      from: { path: '^transports/nats/client/' },
      to: {
        path: '(^|/)node_modules/@nats-io/(transport-node|jetstream|kv|obj)/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'nats-client-reaches-no-node',
      severity: 'error',
      comment: 'What rxmcp/nats/client reaches imports no Node builtin (types aside): it runs in browsers.',
      from: { path: '^transports/nats/client/' },
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
      // An optional peer (effect, the @nats-io packages, msgpackr) is a devDependency too, for our own tests.
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['npm-peer'] },
    },
    {
      name: 'optional-peers-behind-their-entry-points',
      severity: 'error',
      comment:
        'effect, the nats.js v3 packages (@nats-io/*), msgpackr and @opentelemetry/api are optional peers: only the entry points that need them import them ' +
        '(rxmcp/nats, rxmcp/limits/nats, rxmcp/msgpack, rxmcp/effect, rxmcp/otel, the bridge and gateway commands); elsewhere only a dynamic ' +
        'import (an Effect returned by a handler) or a type-only one, so `import "rxmcp"` loads none of them.',
      from: { path: SHIPPED, pathNot: '^(transports/nats/|limits/nats/|otel/|cli/(bridge|gateway)/|core/codecs/msgpack\\.ts$|core/schema/effect-schema\\.ts$)' },
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
    // The package specs' fixtures are consumer programs: they import `rxmcp` as installed from the packed tarball
    // (specs/package/consumers.pack-test.ts), which does not resolve in the repository.
    exclude: { path: '^specs/package/fixtures/' },
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
