/**
 * What a handler returns, whatever its kind, becomes the same answer on the wire (both eras, with and without an
 * interceptor): a plain value, a Promise, an Effect, an Observable and an async iterable, each with and without
 * progress before the result. And a result is a result whatever its keys: an extension answer made only of
 * `progress`/`total`/`message` is answered as it is, never taken for progress (with `tracing()` installed too).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Effect } from 'effect';
import { Observable, of } from 'rxjs';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { request } from '../../core/protocol/declarations/declaration.ts';
import { defineExtension } from '../../core/protocol/extensions.ts';
import { progress } from '../../index.ts';
import { tracing } from '../../otel/index.ts';
import { createServer } from '../../server/create-server.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { withSchemaOracle } from '../support/schema-oracle.ts';

const METERS = 'com.example/meters';
const read = request<JsonObject, JsonObject>('meters/read', {
  legacy: { sender: 'client', since: '2025-06-18' },
  modern: { sender: 'client', extension: METERS },
});
const meters = defineExtension({ id: METERS, methods: [read] });

/** The answer every kind must give. */
const answer = { reading: 42, unit: 'kWh' };
/** A result with nothing but progress-like keys. */
const progressLike = { progress: 3, total: 4, message: 'three quarters' };

async function* generated(steps: readonly unknown[]): AsyncGenerator<unknown> {
  for (const step of steps) {
    await Promise.resolve();
    yield step;
  }
}

const later = <T>(value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), 1));

/** The outputs by kind; `result` is what each must answer with. */
function outputOf(kind: string, result: JsonObject): unknown {
  switch (kind) {
    case 'value':
      return result;
    case 'promise':
      return later(result);
    case 'effect':
      return Effect.promise(() => later(result));
    case 'observable':
      return of(result);
    case 'observable+progress':
      return of(1, progress({ progress: 2, total: 3 }), { step: 'held, then progress' }, result);
    case 'async-iterable':
      return generated([result]);
    case 'async-iterable+progress':
      return generated([1, progress({ progress: 2, message: 'half' }), result]);
    case 'async-generator-return':
      return (async function* () {
        yield progress({ progress: 1 });
        return result;
      })();
    default:
      throw new Error(`no kind ${kind}`);
  }
}

const KINDS = ['value', 'promise', 'effect', 'observable', 'observable+progress', 'async-iterable', 'async-iterable+progress', 'async-generator-return'];

interface Served {
  readonly session: ClientSession;
  close(): Promise<void>;
}

async function serve(era: 'legacy' | 'modern', traced: boolean): Promise<Served> {
  const server = createServer({
    name: 's',
    version: '1',
    extensions: [{
      definition: meters,
      handlers: {
        'meters/read': (params) => {
          return outputOf(String(params?.['kind']), params?.['shape'] === 'progress-like' ? progressLike : answer) as JsonObject;
        },
      },
    }],
  });
  if (traced) server.use(tracing());
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSide = withSchemaOracle(serverEnd, { role: 'server' });
  server.accept(serverSide.transport);
  const client = createClient({ name: 'c', version: '1', era, extensions: { [METERS]: {} } });
  const session = await client.connect(clientEnd);
  return {
    session,
    close: async () => {
      await session.close();
      await server.close();
    },
  };
}

/** Calls `meters/read` with progress asked for; returns the result and the progress reported. */
async function call(session: ClientSession, kind: string, shape: 'answer' | 'progress-like' = 'answer'): Promise<{ result: JsonObject; progress: unknown[] }> {
  const reported: unknown[] = [];
  const answered = await session.session.request<JsonObject>(read.method, { kind, shape }, { onProgress: (event) => reported.push({ ...event }) });
  // The modern era completes every result (the server's `_meta`, `resultType`): the handler's answer is the rest.
  const { _meta: _added, resultType: _complete, ...result } = answered;
  return { result, progress: reported };
}

for (const era of ['legacy', 'modern'] as const) {
  for (const traced of [false, true]) {
    describe(`handler output kinds (${era} era${traced ? ', tracing() installed' : ''})`, () => {
      test('every kind answers with the same result; streams send their progress first', async () => {
        const served = await serve(era, traced);
        try {
          for (const kind of KINDS) {
            const { result, progress: reported } = await call(served.session, kind);
            assert.deepEqual(result, answer, `${kind}: the answer`);
            if (kind === 'observable+progress') {
              assert.deepEqual(reported.map((event) => (event as { progress: number }).progress), [1, 2], `${kind}: numbers and progress() go out; a held value that is no report is dropped`);
            } else if (kind === 'async-iterable+progress') {
              assert.deepEqual(reported, [{ type: 'progress', progress: 1 }, { type: 'progress', progress: 2, message: 'half' }], kind);
            } else if (kind === 'async-generator-return') {
              assert.deepEqual(reported, [{ type: 'progress', progress: 1 }], kind);
            } else {
              assert.deepEqual(reported, [], `${kind}: no progress`);
            }
          }
        } finally {
          await served.close();
        }
      });

      test('a result made only of progress, total and message is the result, whatever kind returns it', async () => {
        const served = await serve(era, traced);
        try {
          for (const kind of KINDS) {
            const { result, progress: reported } = await call(served.session, kind, 'progress-like');
            assert.deepEqual(result, progressLike, `${kind}: answered with the progress-like result`);
            assert.equal(reported.some((event) => (event as { progress: number }).progress === progressLike.progress), false, `${kind}: the result was not sent as progress`);
          }
        } finally {
          await served.close();
        }
      });
    });
  }
}

test('an async iterable is stopped when its request is cancelled: its finally runs once and nothing is answered', async () => {
  let finallies = 0;
  let steps = 0;
  const server = createServer({
    name: 's',
    version: '1',
    extensions: [{
      definition: meters,
      handlers: {
        'meters/read': () =>
          (async function* () {
            try {
              for (;;) {
                yield progress({ progress: ++steps });
                await new Promise((resolve) => setTimeout(resolve, 1));
              }
            } finally {
              finallies++;
            }
          })() as unknown as JsonObject,
      },
    }],
  });
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSide = withSchemaOracle(serverEnd, { role: 'server' });
  server.accept(serverSide.transport);
  const session = await createClient({ name: 'c', version: '1', era: 'legacy', extensions: { [METERS]: {} } }).connect(clientEnd);
  const controller = new AbortController();
  const outcome = session.session.request<JsonObject>(read.method, {}, { signal: controller.signal }).then(() => 'answered', () => 'failed');
  while (steps < 3) await new Promise((resolve) => setTimeout(resolve, 1));
  controller.abort();
  assert.equal(await outcome, 'failed');
  const deadline = Date.now() + 1_000;
  while (finallies === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
  const stepsThen = steps;
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(finallies, 1, 'the generator was ended once');
  assert.equal(steps, stepsThen, 'and pulled no more');
  serverSide.oracle.assertClean();
  await session.close();
  await server.close();
});

test('an Observable that ends without a value is an error, not a result', async () => {
  const server = createServer({
    name: 's',
    version: '1',
    extensions: [{ definition: meters, handlers: { 'meters/read': () => new Observable<JsonObject>((subscriber) => subscriber.complete()) } }],
  });
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  const session = await createClient({ name: 'c', version: '1', era: 'legacy', extensions: { [METERS]: {} } }).connect(clientEnd);
  await assert.rejects(session.session.request<JsonObject>(read.method, {}), /completed without a result/);
  await session.close();
  await server.close();
});
