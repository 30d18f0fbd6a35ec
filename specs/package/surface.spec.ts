/**
 * The public surface, as a user meets it (issue 29, "a surface a user learns in an afternoon"). Every entry point
 * of package.json `exports` is imported here from the source it is built from, so what is checked is what each
 * entry really exports, not a list kept by hand:
 *
 *   - the root entry (`rxmcp`) holds at most 40 values: what a server or client author uses (types do not count);
 *   - the engine's internals are exported by `rxmcp/engine` and by no other entry;
 *   - `rxmcp/testing` holds the test helpers, and the entries they left no longer have them;
 *   - every exported function that makes something follows the naming rule of docs/design.md ("Naming"):
 *     `createX` makes a value and starts no I/O, `serveX` / `spawnX` / `connectX` start I/O. Functions that are
 *     not factories say so below, each with the reason, so a new one is a decision, not an accident.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, test } from 'node:test';
import type { Clock } from '../../core/clock.ts';
import type { TestClock as PublicTestClock } from '../../core/test-clock.ts';

const root = join(import.meta.dirname, '..', '..');
const ROOT_VALUE_LIMIT = 40;

interface Manifest {
  readonly name: string;
  readonly exports: Readonly<Record<string, string | { readonly import?: string }>>;
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

/** `rxmcp/http` → `transports/http/index.ts`: the built JavaScript `exports` names, mapped back to its source. */
function entrySources(): ReadonlyMap<string, string> {
  const sources = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target !== 'object' || target.import === undefined) continue;
    const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`;
    sources.set(specifier, target.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
  }
  return sources;
}

/** The values of each entry point, by specifier. */
const entries = new Map<string, Readonly<Record<string, unknown>>>();

function valuesOf(specifier: string): Readonly<Record<string, unknown>> {
  const values = entries.get(specifier);
  assert.ok(values !== undefined, `${specifier} is an entry point of package.json`);
  return values;
}

/** The engine's building blocks: only `rxmcp/engine` may export them. */
const ENGINE_INTERNALS = [
  'connectSession',
  'createSessionAcceptor',
  'jsonCodec',
  'createStreamDecoder',
  'encodeFrame',
  'encodeSseComment',
  'encodeSseEvent',
  'encodeSseRetry',
  'parseHost',
  'toWireError',
  'negotiateServerVersion',
  'acceptServerVersion',
  'allowsBatches',
  'atLeast',
  'eraOf',
  'newestOf',
  'methodRule',
  'methodAvailable',
  'levelAtLeast',
  'MAX_COMPLETION_VALUES',
  'RELATED_TASK_META_KEY',
  'isImplementation',
  'isCreateMessageResult',
  'isElicitResult',
  'isSamplingMessageContentBlock',
  'systemClock',
  'defaultBackpressure',
  'resolveTaskTtl',
  'parseUriTemplate',
] as const;

/** Writing an extension: `rxmcp/extensions` only (see its module comment for why not the root). */
const EXTENSION_AUTHORING = [
  'defineExtension',
  'declareRequest',
  'declareNotification',
  'extensionRequest',
  'serverExtension',
  'declaresExtension',
  'extensionSettings',
  'withExtensions',
  'isExtensionId',
] as const;

const TEST_HELPERS = ['createMemoryPair', 'TestClock', 'followAuthorizationRedirect'] as const;

/** A factory: makes a value (`create`) or starts I/O and hands back what it started (`serve`, `spawn`, `connect`). */
const FACTORY_NAME = /^(create|serve|spawn|connect)[A-Z]/;
/** Predicates answer a question about their argument; they make nothing. */
const PREDICATE_NAME = /^(is|has)[A-Z]/;

/**
 * Exported functions that are not factories, and why. "A piece of options": a value made to be handed straight to a
 * factory's options or a server's registration, read where it is configured (`interceptors: [requestLog(...)]`);
 * it has no lifecycle of its own. "Computes": a pure function of its arguments (a conversion, an encoder, a check).
 */
const NOT_FACTORIES: Readonly<Record<string, string>> = {
  // rxmcp
  continueAsTask: 'an action inside a tool handler: turns the running call into a task',
  taskTool: 'a piece of options: wraps a tool handler for server.tool',
  progress: 'a piece of a handler stream: marks an emitted value as progress',
  requestLog: 'a piece of options: an interceptor',
  jsonLinesLogger: 'a piece of options: the logger port requestLog writes to',
  urlElicitationRequired: 'computes: the WireError a handler throws',
  // rxmcp/engine
  encodeFrame: 'computes: bytes of one frame',
  encodeSseComment: 'computes: text of one SSE comment',
  encodeSseEvent: 'computes: text of one SSE event',
  encodeSseRetry: 'computes: text of one SSE retry field',
  parseHost: 'computes: a Host header read',
  toWireError: 'computes: the JSON-RPC error object of a thrown value',
  negotiateServerVersion: 'computes: the revision a server answers',
  acceptServerVersion: 'computes: whether a client accepts the answered revision',
  allowsBatches: 'computes: a property of a revision',
  atLeast: 'computes: a comparison of revisions',
  eraOf: 'computes: the era of a revision',
  newestOf: 'computes: the newest of some revisions',
  methodRule: 'computes: a lookup in the method table',
  methodAvailable: 'computes: a check against the method table',
  levelAtLeast: 'computes: a comparison of logging levels',
  resolveTaskTtl: 'computes: the TTL a task store applies',
  parseUriTemplate: 'computes: a parsed URI template',
  // rxmcp/extensions
  defineExtension: 'a piece of options: checks and returns the definition given',
  declareRequest: 'a piece of options: a method declaration (data)',
  declareNotification: 'a piece of options: a method declaration (data)',
  extensionRequest: 'an action: one request on an existing session',
  serverExtension: 'computes: the settings the server declared',
  declaresExtension: 'a predicate: whether capabilities declare an extension',
  extensionSettings: 'computes: the settings capabilities declare',
  withExtensions: 'computes: capabilities with extensions added',
  // rxmcp/testing
  followAuthorizationRedirect: 'a piece of options: an onAuthorizationUrl handler',
  // rxmcp/http, rxmcp/http/web
  buildChallenge: 'computes: a WWW-Authenticate header value',
  // rxmcp/stdio
  childEnvironment: 'computes: the environment a spawned server gets',
  consoleGuarded: 'computes: whether the console is redirected off stdout now',
  // rxmcp/nats
  natsConnectionOptions: 'a piece of options: nats.js connection options for credentials',
  natsPermissions: 'computes: the NATS permissions a role needs (data)',
  serverSubjects: 'computes: the subjects of a server name (data)',
  discoverNatsServers: 'an action: one $SRV.INFO round on a connection you give, resolving to data',
  watchNatsServers: 'computes: a cold Observable, whose rounds run on the connection you give while it is subscribed',
  // rxmcp/limits
  rateLimit: 'a piece of options: an interceptor',
  rateLimitExceeded: 'computes: the WireError of a refused call',
  retryAfterMsOf: 'computes: the retry delay an error carries',
  // rxmcp/otel
  tracing: 'a piece of options: an interceptor',
  metrics: 'a piece of options: an interceptor',
  instrument: 'attaches to a server or client that exists, and hands back how to detach',
  hostMetrics: 'attaches to a session host that exists, and hands back how to detach',
  sessionMetrics: 'attaches to a server that exists (a subscription)',
  // rxmcp/auth, rxmcp/auth/client
  bearerAuth: 'a piece of options: spread into the HTTP server options',
  authorizationCodeGrant: 'a piece of options: a grant',
  clientCredentials: 'a piece of options: a grant',
  jwtBearer: 'a piece of options: a grant',
  enterpriseManaged: 'a piece of options: a grant',
  dpop: 'a piece of options: the DPoP binding of createOAuthClient',
  tokenHeaders: 'computes: the headers that present a token',
  // rxmcp/effect
  effectSchema: 'a piece of options: a tool schema',
  // rxmcp/skills, rxmcp/skills/client
  skills: 'a piece of options: a server extension',
  readSkillsFolder: 'an action: reads a folder into a SkillDirectory',
  readFrontmatter: 'computes: the frontmatter of a SKILL.md',
  skillDigest: 'computes: a digest',
  verifySkillFile: 'computes: a digest check',
  // rxmcp/apps, rxmcp/apps/client
  apps: 'a piece of options: a server extension',
  clientSupportsApps: 'a predicate: whether the client declared MCP Apps',
  appResource: 'a piece of options: a resource registration',
  appToolMeta: 'a piece of options: a tool\'s _meta (data)',
  contentSecurityPolicy: 'computes: a header value',
  permissionsPolicy: 'computes: a header value',
  readUiResourceMeta: 'computes: a parsed _meta',
  uiResourceUriOf: 'computes: a field of a tool',
  visibilityOf: 'computes: a field of a tool',
  // rxmcp/load
  runLoad: 'an action: runs a load test and resolves with its result',
  checkBudgets: 'computes: a verdict on a result',
  errorRate: 'computes: a figure of a result',
  parseWorkload: 'computes: a parsed workload',
  readPreviousResult: 'computes: a parsed result',
  renderReport: 'computes: text of a result',
  renderSummary: 'computes: text of a result',
  // rxmcp/mesh
  prefixedName: 'computes: the name the naming rule gives a colliding item',
};

const isClass = (value: unknown): boolean => typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));

describe('package - the public surface', () => {
  before(async () => {
    for (const [specifier, source] of entrySources()) {
      entries.set(specifier, (await import(pathToFileURL(join(root, source)).href)) as Record<string, unknown>);
    }
  });

  test(`surface - the root entry holds at most ${ROOT_VALUE_LIMIT} values`, () => {
    const values = Object.keys(valuesOf('rxmcp')).sort();
    assert.ok(values.length <= ROOT_VALUE_LIMIT, `rxmcp exports ${values.length} values: ${values.join(', ')}`);
    assert.ok(values.includes('createServer') && values.includes('createClient'), 'the root makes servers and clients');
  });

  test('surface - the engine internals are exported by rxmcp/engine and by no other entry', () => {
    const engine = valuesOf('rxmcp/engine');
    for (const name of ENGINE_INTERNALS) assert.ok(name in engine, `rxmcp/engine exports ${name}`);
    // Whatever the engine exports is engine-only, named above or not.
    const engineOnly = new Set<string>([...ENGINE_INTERNALS, ...Object.keys(engine)]);
    for (const [specifier, values] of entries) {
      if (specifier === 'rxmcp/engine') continue;
      const leaked = Object.keys(values).filter((name) => engineOnly.has(name));
      assert.deepEqual(leaked, [], `${specifier} exports engine internals`);
    }
  });

  test('surface - writing an extension is rxmcp/extensions, and only there', () => {
    const extensions = valuesOf('rxmcp/extensions');
    for (const name of EXTENSION_AUTHORING) assert.ok(name in extensions, `rxmcp/extensions exports ${name}`);
    for (const [specifier, values] of entries) {
      if (specifier === 'rxmcp/extensions') continue;
      const found = EXTENSION_AUTHORING.filter((name) => name in values);
      assert.deepEqual(found, [], `${specifier} exports extension authoring`);
    }
  });

  test('surface - rxmcp/testing has the test helpers, and no other entry has them', async () => {
    const testing = valuesOf('rxmcp/testing');
    assert.deepEqual(Object.keys(testing).sort(), [...TEST_HELPERS].sort());
    for (const [specifier, values] of entries) {
      if (specifier === 'rxmcp/testing') continue;
      assert.deepEqual(TEST_HELPERS.filter((name) => name in values), [], `${specifier} exports test helpers`);
    }
    assert.ok(!('./memory' in manifest.exports), 'rxmcp/memory is gone: the memory pair is rxmcp/testing');

    // The clock is a Clock: time moves when the test says, timers fire in order, a cancelled one never does.
    const { TestClock } = testing as { TestClock: typeof PublicTestClock };
    const clock: Clock & PublicTestClock = new TestClock(1000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 20);
    clock.setTimeout(() => fired.push('a'), 10);
    clock.setTimeout(() => fired.push('never'), 15).cancel();
    const tick = clock.setInterval(() => fired.push('tick'), 8);
    clock.advance(9);
    assert.deepEqual(fired, ['tick']);
    await clock.advanceAsync(11);
    assert.deepEqual(fired, ['tick', 'a', 'tick', 'b']);
    assert.equal(clock.now(), 1020);
    tick.cancel();
    assert.equal(clock.pending, 0);
  });

  test('surface - every exported factory is named createX, serveX, spawnX or connectX', () => {
    const offenders: string[] = [];
    const exported = new Set<string>();
    for (const [specifier, values] of entries) {
      for (const [name, value] of Object.entries(values)) {
        if (typeof value !== 'function' || isClass(value)) continue;
        exported.add(name);
        if (FACTORY_NAME.test(name) || PREDICATE_NAME.test(name) || name in NOT_FACTORIES) continue;
        offenders.push(`${specifier}: ${name}`);
      }
    }
    assert.deepEqual(offenders, [], 'name it createX/serveX/spawnX/connectX, or list it in NOT_FACTORIES with the reason');
    const stale = Object.keys(NOT_FACTORIES).filter((name) => !exported.has(name));
    assert.deepEqual(stale, [], 'NOT_FACTORIES lists only functions some entry exports');
  });
});
