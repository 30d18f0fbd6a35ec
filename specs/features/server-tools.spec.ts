/**
 * Server tools (FEATURES rows 43-51, 96-100): schemas in every accepted form, validation compiled once, the
 * two error families, structured output, every content block kind per revision, display fields, names, and
 * streamed progress. Every test runs a real server and client over the memory pair, checked by the oracle.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { Effect, Schema } from 'effect';
import { Subject, concat, interval, map, of, take } from 'rxjs';
import * as v from 'valibot';
import { z } from 'zod';
import { WireError } from '../../core/errors.ts';
import { effectSchema } from '../../core/schema/effect-schema.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CallToolResult, ContentBlock, Tool } from '../../core/protocol/index.ts';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import { DIALECT_URIS, isSchemaError, schemaCompilerStats, type StandardSchemaV1 } from '../../core/schema/index.ts';
import { REVISIONS, featurePair, featureServer, wireErrorOf } from '../support/feature-pair.ts';
import { eventually } from '../support/harness.ts';
import { progress as progressReport } from '../../index.ts';

const text = (result: CallToolResult): string => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
const listed = async (tools: Promise<Tool[]>, name: string): Promise<Tool> => {
  const found = (await tools).find((tool) => tool.name === name);
  assert.ok(found, `tool ${name} is listed`);
  return found;
};

describe('server tools: input schemas', () => {
  test('tools - a JSON Schema without $schema is listed verbatim and validated as 2020-12', async () => {
    const inputSchema: JsonObject = {
      type: 'object',
      $defs: { city: { type: 'string', minLength: 1 } },
      properties: { city: { $ref: '#/$defs/city' }, c: { type: 'string' }, d: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
      dependentRequired: { c: ['d'] }, // a 2020-12 keyword: enforced only in that dialect
    };
    const seen: JsonObject[] = [];
    await using pair = await featurePair((server) => server.tool({ name: 'weather', inputSchema }, (args) => (seen.push(args), 'ok')));
    assert.deepEqual((await listed(pair.client.listTools(), 'weather')).inputSchema, inputSchema);
    assert.equal((await pair.client.callTool('weather', { city: 'Oslo' })).isError, undefined);
    const dependent = await pair.client.callTool('weather', { city: 'Oslo', c: 'x' });
    assert.equal(dependent.isError, true);
    assert.match(text(dependent), /must have property d when property c is present/);
    const extra = await pair.client.callTool('weather', { city: 'Oslo', zip: '0150' });
    assert.equal(extra.isError, true);
    assert.match(text(extra), /\/zip is not allowed/);
    const wrong = await pair.client.callTool('weather', { city: 3 });
    assert.equal(wrong.isError, true);
    assert.match(text(wrong), /Invalid arguments: \/city must be string/);
    assert.deepEqual(seen, [{ city: 'Oslo' }], 'the handler ran only for valid arguments');
    pair.assertClean();
  });

  test('tools - a declared draft-07 schema is listed with its $schema and validated by draft-07 rules', async () => {
    const inputSchema: JsonObject = {
      $schema: DIALECT_URIS['draft-07'],
      type: 'object',
      definitions: { name: { type: 'string' } },
      properties: { a: { $ref: '#/definitions/name' } },
      dependencies: { a: ['b'] }, // draft-07 keyword
      dependentRequired: { c: ['d'] }, // not a draft-07 keyword: ignored
    };
    await using pair = await featurePair((server) => server.tool({ name: 'd7', inputSchema }, () => 'ok'));
    const tool = await listed(pair.client.listTools(), 'd7');
    assert.deepEqual(tool.inputSchema, inputSchema);
    assert.equal(tool.inputSchema.$schema, 'http://json-schema.org/draft-07/schema#');
    const missing = await pair.client.callTool('d7', { a: 'x' });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /must have property b when property a is present/);
    assert.equal((await pair.client.callTool('d7', { c: 'x' })).isError, undefined, 'dependentRequired is not draft-07');
    pair.assertClean();
  });

  test('tools - zod 4 schemas are listed as 2020-12 JSON Schema with $defs and additionalProperties kept', async () => {
    const Address = z.object({ street: z.string() }).meta({ id: 'Address' });
    const schema = z.strictObject({ home: Address, work: Address, units: z.enum(['metric', 'imperial']).default('metric') });
    const got: unknown[] = [];
    await using pair = await featurePair((server) => server.tool({ name: 'zod', inputSchema: schema }, (args) => (got.push(args), 'ok')));
    const tool = await listed(pair.client.listTools(), 'zod');
    assert.equal(tool.inputSchema.$schema, DIALECT_URIS['2020-12']);
    assert.equal(tool.inputSchema['additionalProperties'], false);
    assert.deepEqual(tool.inputSchema['$defs'], { Address: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] } });
    const bad = await pair.client.callTool('zod', { home: { street: 1 }, work: { street: 'w' } });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /\/home\/street/);
    await pair.client.callTool('zod', { home: { street: 'h' }, work: { street: 'w' } });
    assert.deepEqual(got, [{ home: { street: 'h' }, work: { street: 'w' }, units: 'metric' }], 'the handler gets the parsed value');
    pair.assertClean();
  });

  test('tools - valibot wrapped with toStandardJsonSchema is listed and validated', async () => {
    const schema = toStandardJsonSchema(v.strictObject({ city: v.string(), days: v.pipe(v.number(), v.minValue(1)) }));
    await using pair = await featurePair((server) => server.tool({ name: 'valibot', inputSchema: schema }, (args) => `${args.city}:${args.days}`));
    const tool = await listed(pair.client.listTools(), 'valibot');
    assert.equal(tool.inputSchema.$schema, DIALECT_URIS['2020-12']);
    assert.equal(tool.inputSchema['additionalProperties'], false);
    assert.deepEqual(tool.inputSchema.required, ['city', 'days']);
    assert.equal(text(await pair.client.callTool('valibot', { city: 'Oslo', days: 2 })), 'Oslo:2');
    const bad = await pair.client.callTool('valibot', { city: 'Oslo', days: 0 });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /\/days/);
    pair.assertClean();
  });

  test('tools - an Effect Schema (effect v4) is listed as JSON Schema and validated', async () => {
    const schema = Schema.Struct({ city: Schema.String, days: Schema.optionalKey(Schema.Finite) });
    const byHand = Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(schema));
    await using pair = await featurePair((server) => {
      server.tool({ name: 'effect', inputSchema: byHand }, (args) => `${args.city}/${args.days ?? '-'}`);
      server.tool({ name: 'effect-schema', inputSchema: effectSchema(schema) }, (args) => JSON.stringify(args));
    });
    const tools = await pair.client.listTools();
    for (const name of ['effect', 'effect-schema']) {
      const tool = await listed(Promise.resolve(tools), name);
      assert.equal(tool.inputSchema.$schema, DIALECT_URIS['2020-12']);
      assert.equal(tool.inputSchema.type, 'object');
      assert.deepEqual(tool.inputSchema.required, ['city']);
      const bad = await pair.client.callTool(name, { city: 7 });
      assert.equal(bad.isError, true);
      assert.match(text(bad), /\/city/);
    }
    assert.equal(text(await pair.client.callTool('effect', { city: 'Oslo', days: 2 })), 'Oslo/2');
    assert.equal(text(await pair.client.callTool('effect-schema', { city: 'Oslo' })), '{"city":"Oslo"}');
    pair.assertClean();
  });

  test('tools - a bare Effect Schema is refused at registration, naming effectSchema of rxmcp/effect', async () => {
    await using h = featureServer();
    const bare = Schema.Struct({ city: Schema.String }) as unknown as StandardSchemaV1<unknown, JsonObject>;
    assert.throws(
      () => h.server.tool({ name: 'bare', inputSchema: bare }, () => 'never'),
      (error) => isSchemaError(error) && error.code === 'InvalidSchema' && /effectSchema\(schema\) from "rxmcp\/effect"/.test(error.message),
    );
  });

  test('tools - an unsupported dialect (draft-04) is refused at registration with a clear error', async () => {
    await using h = featureServer();
    const draft04 = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' };
    assert.throws(
      () => h.server.tool({ name: 'old', inputSchema: draft04 }, () => 'never'),
      (error) => isSchemaError(error) && error.code === 'UnsupportedDialect' && /draft-04/.test(error.message) && /2020-12/.test(error.message),
    );
    h.server.tool({ name: 'old', inputSchema: { type: 'object' } }, () => 'ok'); // the refused one left nothing behind
    const { client } = await h.connect();
    assert.deepEqual((await client.listTools()).map((tool) => tool.name), ['old']);
    h.assertClean();
  });

  test('tools - validators are compiled once at registration, never per call', async () => {
    await using h = featureServer();
    const before = schemaCompilerStats().compilations;
    h.server.tool(
      { name: 'sum', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, outputSchema: { type: 'object', properties: { s: { type: 'number' } } } },
      (args) => ({ structuredContent: { s: Number(args['a']) + 1 } }),
    );
    const registered = schemaCompilerStats().compilations;
    assert.equal(registered - before, 2, 'input and output schema compiled at registration');
    const { client } = await h.connect();
    for (let i = 0; i < 50; i++) await client.callTool('sum', i % 2 === 0 ? { a: i } : { a: 'bad' });
    assert.equal(schemaCompilerStats().compilations, registered);
    h.assertClean();
  });
});

describe('server tools: errors and results', () => {
  test('tools - a throwing handler gives isError; a thrown WireError is a JSON-RPC error; an unknown tool is -32602', async () => {
    await using pair = await featurePair((server) => {
      server.tool({ name: 'boom' }, () => {
        throw new Error('disk full');
      });
      server.tool({ name: 'rejects' }, () => Promise.reject(new Error('later')));
      server.tool({ name: 'denied' }, () => {
        throw new WireError(-32001, 'not allowed', { data: { who: 'me' } });
      });
    });
    assert.deepEqual(await pair.client.callTool('boom'), { content: [{ type: 'text', text: 'disk full' }], isError: true });
    assert.deepEqual(await pair.client.callTool('rejects'), { content: [{ type: 'text', text: 'later' }], isError: true });
    const denied = await wireErrorOf(pair.client.callTool('denied'), -32001);
    assert.equal(denied.message, 'not allowed');
    assert.deepEqual(denied.data, { who: 'me' });
    assert.match((await wireErrorOf(pair.client.callTool('nope'), -32602)).message, /unknown tool "nope"/);
    pair.assertClean();
  });

  test('tools - outputSchema: valid structuredContent passes with a text mirror; invalid is -32603', async () => {
    const outputSchema: JsonObject = { type: 'object', properties: { t: { type: 'number' } }, required: ['t'] };
    await using pair = await featurePair((server) => {
      server.tool({ name: 'good', outputSchema }, () => ({ structuredContent: { t: 21 } }));
      server.tool({ name: 'own-text', outputSchema }, () => ({ structuredContent: { t: 1 }, content: [{ type: 'text', text: 'one' }] }));
      server.tool({ name: 'bad', outputSchema }, () => ({ structuredContent: { t: 'warm' } }));
    });
    const tools = await pair.client.listTools();
    assert.deepEqual(tools.find((tool) => tool.name === 'good')?.outputSchema, outputSchema);
    assert.deepEqual(await pair.client.callTool('good'), { structuredContent: { t: 21 }, content: [{ type: 'text', text: '{"t":21}' }] });
    assert.deepEqual((await pair.client.callTool('own-text')).content, [{ type: 'text', text: 'one' }]);
    assert.match((await wireErrorOf(pair.client.callTool('bad', {}, { validateOutput: false }), -32603)).message, /outputSchema.*\/t must be number/);
    pair.assertClean();
  });
});

const blocks: Readonly<Record<string, ContentBlock>> = {
  text: { type: 'text', text: 'hello', annotations: { audience: ['user'], priority: 0.5 } },
  image: { type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' },
  audio: { type: 'audio', data: Buffer.from('wav').toString('base64'), mimeType: 'audio/wav' },
  'resource-text': { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'A' } },
  'resource-blob': { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob: Buffer.from([1, 2]).toString('base64') } },
  resource_link: { type: 'resource_link', uri: 'file:///b.txt', name: 'b', mimeType: 'text/plain', size: 3 },
};
/** The first revision whose schema has each block kind (audio: 2025-03-26; resource_link: 2025-06-18). */
const firstRevision: Readonly<Record<string, LegacyRevision>> = { audio: '2025-03-26', resource_link: '2025-06-18' };

describe('server tools: content blocks', () => {
  test('tools - every content block kind passes the oracle under 2025-11-25', async () => {
    await using pair = await featurePair((server) => server.tool({ name: 'all' }, () => ({ content: Object.values(blocks) })), { protocolVersion: '2025-11-25' });
    assert.deepEqual((await pair.client.callTool('all')).content, Object.values(blocks));
    pair.assertClean();
  });

  for (const revision of REVISIONS) {
    for (const [kind, block] of Object.entries(blocks)) {
      const known = (firstRevision[kind] ?? '2024-11-05') <= revision;
      test(`tools - ${kind} content sent to a ${revision} client is valid in that revision`, async () => {
        await using pair = await featurePair((server) => server.tool({ name: 'one' }, () => ({ content: [block] })), { protocolVersion: revision });
        const result = await pair.client.callTool('one');
        assert.equal(pair.session.revision, revision);
        pair.assertClean(); // 2024-11-05 is checked against the 2025-03-26 schema, which has audio: hence the next line
        if (known) assert.deepEqual(result.content, [block]);
        else assert.ok(result.content.every((sent) => sent.type !== block.type), `no ${block.type} block reaches a ${revision} client`);
      });
    }
  }
});

describe('server tools: listing and registration', () => {
  test('tools - title, annotations, icons, _meta and execution are listed', async () => {
    const definition = {
      name: 'deploy',
      title: 'Deploy',
      description: 'Ships it',
      annotations: { title: 'Deploy!', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      icons: [{ src: 'https://example.com/deploy.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' as const }],
      _meta: { 'example.com/team': 'ops' },
      execution: { taskSupport: 'optional' as const },
    };
    await using pair = await featurePair((server) => server.tool(definition, () => 'ok'));
    const { name, title, description, annotations, icons, _meta, execution, inputSchema } = await listed(pair.client.listTools(), 'deploy');
    assert.deepEqual({ name, title, description, annotations, icons, _meta, execution }, definition);
    assert.deepEqual(inputSchema, { type: 'object', additionalProperties: false }, 'no inputSchema: no arguments');
    assert.match(text(await pair.client.callTool('deploy', { force: true })), /\/force is not allowed/);
    pair.assertClean();
  });

  test('tools - names: 128 characters accepted; 129, spaces and empty refused at registration', async () => {
    await using h = featureServer();
    const ok = 'a'.repeat(128);
    h.server.tool({ name: ok }, () => 'ok');
    h.server.tool({ name: 'Mixed_case-1.2' }, () => 'ok');
    for (const name of ['a'.repeat(129), 'has space', '', 'comma,name']) {
      assert.throws(() => h.server.tool({ name }, () => 'no'), RangeError, JSON.stringify(name));
    }
    assert.throws(() => h.server.tool({ name: 'x'.repeat(129) }, () => 'no'), /at most 128/);
    assert.throws(() => h.server.tool({ name: 'a b' }, () => 'no'), /" " at position 2/);
    const { client } = await h.connect();
    assert.deepEqual((await client.listTools()).map((tool) => tool.name), [ok, 'Mixed_case-1.2']);
    h.assertClean();
  });

  test('tools - registering a name twice throws; after remove() it may be registered again', async () => {
    await using h = featureServer();
    const first = h.server.tool({ name: 'dup' }, () => 'first');
    assert.throws(() => h.server.tool({ name: 'dup' }, () => 'second'), /already registered/);
    first.remove();
    h.server.tool({ name: 'dup' }, () => 'third');
    first.remove(); // a stale handle does not remove the new registration
    const { client } = await h.connect();
    assert.equal(text(await client.callTool('dup')), 'third');
    h.assertClean();
  });
});

describe('server tools: streamed progress', () => {
  test('tools - an Observable handler streams progress to a client that asks for it', async () => {
    await using pair = await featurePair((server) =>
      server.tool({ name: 'count' }, () => interval(1).pipe(take(4), map((i) => (i < 3 ? { progress: i + 1, total: 3, message: `step ${i + 1}` } : 'done')))),
    );
    const progress: number[] = [];
    const result = await pair.client.callTool('count', {}, { onProgress: (event) => progress.push(event.progress) });
    assert.equal(text(result), 'done');
    assert.deepEqual(progress, [1, 2, 3]);
    const sent = pair.serverSent('notifications/progress').map((message) => (message['params'] as JsonObject)['message']);
    assert.deepEqual(sent, ['step 1', 'step 2', 'step 3']);
    await pair.client.callTool('count'); // no token: no progress
    assert.equal(pair.serverSent('notifications/progress').length, 3);
    pair.assertClean();
  });

  test('tools - an Observable handler\'s progress() report reaches the client before the handler emits again', async () => {
    const gate = new Subject<string>();
    await using pair = await featurePair((server) =>
      server.tool({ name: 'gated' }, () => concat(of(progressReport({ progress: 1, total: 2 })), gate)),
    );
    const progress: number[] = [];
    const call = pair.client.callTool('gated', {}, { onProgress: (event) => progress.push(event.progress) });
    await eventually(() => progress.length === 1, 1_000, 'the first report while the handler still waits');
    gate.next('done');
    gate.complete();
    assert.equal(text(await call), 'done');
    assert.deepEqual(progress, [1]);
    pair.assertClean();
  });

  test('tools - an Effect handler reports progress through the context and its value is the result', async () => {
    await using pair = await featurePair((server) =>
      server.tool({ name: 'fx', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, (args, context) =>
        Effect.gen(function* () {
          for (let i = 1; i <= 2; i++) {
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)));
            context.progress({ progress: i, total: 2 });
          }
          return { content: [{ type: 'text' as const, text: `n=${String(args['n'])}` }] };
        }),
      ),
    );
    const progress: Array<[number, number | undefined]> = [];
    const result = await pair.client.callTool('fx', { n: 5 }, { onProgress: (event) => progress.push([event.progress, event.total]) });
    assert.equal(text(result), 'n=5');
    assert.deepEqual(progress, [[1, 2], [2, 2]]);
    pair.assertClean();
  });
});
