/**
 * Elicitation through the public API: form mode with every field type of 2025-11-25 and their defaults,
 * decline/cancel, schema checks on both ends of the server, URL mode with its completion notification and the
 * -32042 error, and what 2025-06-18 allows (FEATURES rows 79-84).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FormElicitationHandler, UrlElicitationHandler } from '../../actors/features/client-requests.ts';
import { LocalError, isLocalError, isWireError, urlElicitationRequired } from '../../core/errors.ts';
import type { ElicitParams, ElicitRequestURLParams, ElicitRequestedSchema, ElicitResult } from '../../core/protocol/elicitation.ts';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import type { McpServer } from '../../server/create-server.ts';
import { type ClientSetup, clientPair, paramsOf, rejectionOf, requestsOf, settle, textOf } from '../support/client-pair.ts';

/** Every field type 2025-11-25 allows, each with a default. */
const everyField: ElicitRequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', description: 'Your name', minLength: 2, maxLength: 20, default: 'Ada' },
    email: { type: 'string', format: 'email', default: 'ada@example.com' },
    birthday: { type: 'string', format: 'date', default: '1815-12-10' },
    homepage: { type: 'string', format: 'uri', default: 'https://example.com/ada' },
    // An integral default: the official JSON Schema types submitted values as string | integer | boolean | string[].
    height: { type: 'number', minimum: 0.5, maximum: 2.5, default: 2 },
    guests: { type: 'integer', minimum: 0, maximum: 10, default: 2 },
    subscribe: { type: 'boolean', default: true },
    size: { type: 'string', enum: ['s', 'm', 'l'], default: 'm' },
    colour: { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }, { const: '#00f', title: 'Blue' }], default: '#00f' },
    toppings: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['cheese', 'ham', 'olives'] }, default: ['cheese'] },
    days: { type: 'array', items: { anyOf: [{ const: 'mon', title: 'Monday' }, { const: 'tue', title: 'Tuesday' }] }, default: ['mon', 'tue'] },
    plan: { type: 'string', enum: ['free', 'pro'], enumNames: ['Free', 'Professional'], default: 'free' },
  },
  required: ['name', 'guests'],
};

type Elicited = { result?: ElicitResult; error?: unknown };

/** Registers `ask`: elicits with the given params and records what came back (or what was thrown). */
function askTool(server: McpServer, params: ElicitParams, record: Elicited): void {
  server.tool({ name: 'ask' }, async (_args, ctx) => {
    try {
      record.result = await ctx.elicit(params);
    } catch (error) {
      record.error = error;
      throw error;
    }
    return JSON.stringify(record.result);
  });
}

async function pairFor(revision: LegacyRevision, client: ClientSetup, params: ElicitParams) {
  const record: Elicited = {};
  const pair = await clientPair({ protocolVersion: revision, client, setup: (server) => askTool(server, params, record) });
  return { pair, record };
}

function formClient(reply: (params: Parameters<FormElicitationHandler>[0]) => ElicitResult): { form: FormElicitationHandler; seen: ElicitParams[] } {
  const seen: ElicitParams[] = [];
  return { seen, form: (params) => (seen.push(params), reply(params)) };
}

test('elicitation - form mode with every 2025-11-25 field type: the client fills the defaults of omitted fields', async () => {
  const client = formClient(() => ({ action: 'accept', content: { name: 'Grace', guests: 4, toppings: ['ham', 'olives'] } }));
  const params: ElicitParams = { message: 'Tell us about you', requestedSchema: everyField };
  const { pair, record } = await pairFor('2025-11-25', { elicitation: { form: client.form } }, params);
  assert.deepEqual(pair.serverSession.peerCapabilities, { elicitation: { form: {} } }, 'a form handler declares elicitation.form');

  const result = await pair.session.callTool('ask');
  assert.equal(result.isError, undefined, textOf(result));
  assert.deepEqual(client.seen, [params], 'the client handler saw the message and schema as sent');
  assert.deepEqual(record.result, {
    action: 'accept',
    content: {
      name: 'Grace', guests: 4, toppings: ['ham', 'olives'], // answered
      email: 'ada@example.com', birthday: '1815-12-10', homepage: 'https://example.com/ada', height: 2, subscribe: true,
      size: 'm', colour: '#00f', days: ['mon', 'tue'], plan: 'free', // defaults
    },
  });
  const [request] = requestsOf(pair.serverSent, 'elicitation/create');
  assert.deepEqual(paramsOf(request), params, 'on the wire: the params as given (mode omitted means form)');
  const answer = pair.clientSent.find((message) => message['id'] === request?.['id'] && message['method'] === undefined);
  assert.deepEqual((answer?.['result'] as ElicitResult | undefined)?.content, record.result?.content, 'the defaults were filled on the client, before sending');
  await pair.finish();
});

test('elicitation - accepting without content fills every default; an explicit mode "form" works the same', async () => {
  const client = formClient(() => ({ action: 'accept' }));
  const schema: ElicitRequestedSchema = { type: 'object', properties: { size: { type: 'string', enum: ['s', 'm'], default: 's' }, n: { type: 'integer', default: 1 }, note: { type: 'string' } } };
  const { pair, record } = await pairFor('2025-11-25', { elicitation: { form: client.form } }, { mode: 'form', message: 'Size?', requestedSchema: schema });
  await pair.session.callTool('ask');
  assert.deepEqual(record.result, { action: 'accept', content: { size: 's', n: 1 } }, 'defaults only: a field without default stays absent');
  await pair.finish();
});

for (const action of ['decline', 'cancel'] as const) {
  test(`elicitation - ${action} passes through without content or defaults`, async () => {
    const client = formClient(() => ({ action }));
    const { pair, record } = await pairFor('2025-11-25', { elicitation: { form: client.form } }, { message: 'Name?', requestedSchema: everyField });
    const result = await pair.session.callTool('ask');
    assert.equal(result.isError, undefined);
    assert.deepEqual(record.result, { action });
    await pair.finish();
  });
}

test('elicitation - a disallowed schema (nested object) is refused by the server before anything is sent', async () => {
  const client = formClient(() => ({ action: 'accept' }));
  const nested = { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } } as unknown as ElicitRequestedSchema;
  const { pair, record } = await pairFor('2025-11-25', { elicitation: { form: client.form } }, { message: 'Where?', requestedSchema: nested });
  const result = await pair.session.callTool('ask');
  assert.ok(record.error instanceof LocalError, `a local error, got ${String(record.error)}`);
  assert.equal(record.error.code, 'ProtocolViolation');
  assert.match(record.error.message, /address.*nested objects are not allowed/);
  assert.equal(result.isError, true, 'the tool reported the failure as an isError result');
  assert.deepEqual(requestsOf(pair.serverSent, 'elicitation/create'), [], 'nothing was sent');
  assert.equal(client.seen.length, 0);
  await pair.finish();
});

const contentMismatches: ReadonlyArray<readonly [string, ElicitResult['content']]> = [
  ['a string where an integer is asked', { name: 'Grace', guests: 'four' }],
  ['an integer above its maximum', { name: 'Grace', guests: 11 }],
  ['a string shorter than minLength', { name: 'G', guests: 1 }],
  ['a value outside the enum', { name: 'Grace', guests: 1, size: 'xl' }],
  ['a titled option that does not exist', { name: 'Grace', guests: 1, colour: '#0f0' }],
  ['too many multi-select items', { name: 'Grace', guests: 1, toppings: ['cheese', 'ham', 'olives', 'cheese'] }],
  ['a malformed email', { name: 'Grace', guests: 1, email: 'not-an-email' }],
];

for (const [what, content] of contentMismatches) {
  test(`elicitation - accepted content with ${what} is refused on the server side (ProtocolViolation)`, async () => {
    const client = formClient(() => ({ action: 'accept', ...(content === undefined ? {} : { content }) }));
    const { pair, record } = await pairFor('2025-11-25', { elicitation: { form: client.form } }, { message: 'About you', requestedSchema: everyField });
    const result = await pair.session.callTool('ask');
    assert.ok(isLocalError(record.error, 'ProtocolViolation'), `ProtocolViolation, got ${String(record.error)}`);
    assert.match((record.error as Error).message, /does not match the requested schema/);
    assert.equal(result.isError, true);
    await pair.finish();
  });
}

test('elicitation - a missing required field without default is refused on the server side', async () => {
  const schema: ElicitRequestedSchema = { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] };
  const client = formClient(() => ({ action: 'accept', content: {} }));
  const { pair, record } = await pairFor('2025-11-25', { elicitation: { form: client.form } }, { message: 'Code?', requestedSchema: schema });
  await pair.session.callTool('ask');
  assert.ok(isLocalError(record.error, 'ProtocolViolation'), `got ${String(record.error)}`);
  await pair.finish();
});

// --- URL mode ----------------------------------------------------------------------------------------------

function urlClient(): { url: UrlElicitationHandler; seen: ElicitRequestURLParams[] } {
  const seen: ElicitRequestURLParams[] = [];
  return { seen, url: (params) => (seen.push(params), { action: 'accept' }) };
}

test('elicitation - URL mode: an elicitationId is generated when absent, and notifyElicitationComplete reaches elicitationComplete$', async () => {
  const client = urlClient();
  // The caller leaves the id out (the type asks for one; the runtime must cope with its absence).
  const params = { mode: 'url', message: 'Link your account', url: 'https://auth.example.com/link?session=1' } as unknown as ElicitParams;
  const { pair, record } = await pairFor('2025-11-25', { elicitation: { url: client.url } }, params);
  assert.deepEqual(pair.serverSession.peerCapabilities, { elicitation: { url: {} } });
  const completed: string[] = [];
  pair.session.elicitationComplete$.subscribe((id) => completed.push(id));

  const result = await pair.session.callTool('ask');
  assert.equal(result.isError, undefined);
  assert.deepEqual(record.result, { action: 'accept' }, 'accept in URL mode carries no content');
  const id = client.seen[0]?.elicitationId;
  assert.ok(typeof id === 'string' && id.length > 0, 'the client got a generated elicitationId');
  assert.equal(client.seen[0]?.url, 'https://auth.example.com/link?session=1', 'the full URL, unchanged');
  assert.equal(client.seen[0]?.mode, 'url');

  pair.server.notifyElicitationComplete(pair.serverSession, id);
  await settle();
  assert.deepEqual(completed, [id]);
  await pair.finish();
});

test('elicitation - URL mode: an empty elicitationId is replaced, a given one is kept', async () => {
  const client = urlClient();
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    client: { elicitation: { url: client.url } },
    setup: (server) =>
      server.tool({ name: 'ask' }, async (_args, ctx) => {
        await ctx.elicit({ mode: 'url', message: 'Pay', url: 'https://pay.example.com/', elicitationId: '' });
        await ctx.elicit({ mode: 'url', message: 'Pay', url: 'https://pay.example.com/', elicitationId: 'mine-42' });
        return 'ok';
      }),
  });
  await pair.session.callTool('ask');
  assert.equal(client.seen.length, 2);
  assert.notEqual(client.seen[0]?.elicitationId, '');
  assert.equal(client.seen[1]?.elicitationId, 'mine-42');
  assert.notEqual(client.seen[0]?.elicitationId, client.seen[1]?.elicitationId);
  await pair.finish();
});

const urlParams: ElicitParams = { mode: 'url', message: 'Sign in', url: 'https://auth.example.com/', elicitationId: 'e-1' };

test('elicitation - URL mode needs the client\'s elicitation.url: a form-only client is refused locally', async () => {
  const client = formClient(() => ({ action: 'accept' }));
  const { pair, record } = await pairFor('2025-11-25', { elicitation: { form: client.form } }, urlParams);
  const result = await pair.session.callTool('ask');
  assert.ok(isLocalError(record.error, 'CapabilityNotNegotiated'), `got ${String(record.error)}`);
  assert.match((record.error as Error).message, /elicitation\.url/);
  assert.equal(result.isError, true);
  assert.deepEqual(requestsOf(pair.serverSent, 'elicitation/create'), []);
  await pair.finish();
});

test('elicitation - form mode needs elicitation.form: a URL-only client is refused locally', async () => {
  const client = urlClient();
  const { pair, record } = await pairFor('2025-11-25', { elicitation: { url: client.url } }, { message: 'Name?', requestedSchema: everyField });
  await pair.session.callTool('ask');
  assert.ok(isLocalError(record.error, 'CapabilityNotNegotiated'), `got ${String(record.error)}`);
  assert.match((record.error as Error).message, /elicitation\.form/);
  await pair.finish();
});

test('elicitation - a client without elicitation handlers does not declare it: elicit is refused locally', async () => {
  const { pair, record } = await pairFor('2025-11-25', {}, { message: 'Name?', requestedSchema: everyField });
  await pair.session.callTool('ask');
  assert.ok(isLocalError(record.error, 'CapabilityNotNegotiated'), `got ${String(record.error)}`);
  await pair.finish();
});

test('elicitation - a handler throwing urlElicitationRequired gives the client a WireError -32042 with data.elicitations', async () => {
  const elicitations = [
    { mode: 'url', message: 'Authorize GitHub', url: 'https://github.example.com/oauth?state=1', elicitationId: 'gh-1' },
    { mode: 'url', message: 'Authorize Drive', url: 'https://drive.example.com/oauth?state=2', elicitationId: 'dr-2' },
  ] as const;
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    client: { elicitation: { url: urlClient().url } },
    setup: (server) => server.tool({ name: 'sync' }, () => { throw urlElicitationRequired(elicitations); }),
  });
  const error = await rejectionOf(pair.session.callTool('sync'));
  assert.ok(isWireError(error), `a WireError, got ${String(error)}`);
  assert.equal(error.code, -32042);
  assert.deepEqual(error.data, { elicitations });
  await pair.finish();
});

test('elicitation - under 2025-06-18 form mode works, URL mode is a clear local error and nothing is sent', async () => {
  const form = formClient(() => ({ action: 'accept', content: { name: 'Grace' } }));
  const url = urlClient();
  const record: Elicited = {};
  let formResult: ElicitResult | undefined;
  const schema: ElicitRequestedSchema = { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] };
  const pair = await clientPair({
    protocolVersion: '2025-06-18',
    client: { elicitation: { form: form.form, url: url.url } },
    setup: (server) => {
      server.tool({ name: 'form' }, async (_args, ctx) => ((formResult = await ctx.elicit({ message: 'Name?', requestedSchema: schema })), 'ok'));
      askTool(server, urlParams, record);
    },
  });
  await pair.session.callTool('form');
  assert.deepEqual(formResult, { action: 'accept', content: { name: 'Grace' } });

  const result = await pair.session.callTool('ask');
  assert.ok(record.error instanceof LocalError, `a LocalError, got ${String(record.error)}`);
  assert.ok(['MethodNotInRevision', 'CapabilityNotNegotiated'].includes(record.error.code), `a clear refusal, got ${record.error.code}`);
  assert.match(record.error.message, /2025-11-25|elicitation\.url/, 'the message says why');
  assert.equal(result.isError, true);
  assert.equal(url.seen.length, 0, 'the URL handler never ran');
  assert.equal(requestsOf(pair.serverSent, 'elicitation/create').length, 1, 'only the form elicitation was sent');

  // The completion notification does not exist in 2025-06-18 either: a clear local error, nothing sent.
  assert.throws(() => pair.server.notifyElicitationComplete(pair.serverSession, 'e-1'), (error: unknown) => isLocalError(error, 'MethodNotInRevision'));
  assert.ok(!pair.serverSent.some((message) => message['method'] === 'notifications/elicitation/complete'));
  await pair.finish();
});

for (const [kind, property] of [
  ['a multi-select (array) field', { type: 'array', items: { type: 'string', enum: ['a', 'b'] } }],
  ['a titled single-select (oneOf) field', { type: 'string', oneOf: [{ const: 'a', title: 'A' }] }],
] as const) {
  test(`elicitation - under 2025-06-18 ${kind} (2025-11-25 only) is refused locally before sending`, async () => {
    const client = formClient(() => ({ action: 'accept' }));
    const schema = { type: 'object', properties: { pick: property } } as ElicitRequestedSchema;
    const { pair, record } = await pairFor('2025-06-18', { elicitation: { form: client.form } }, { message: 'Pick', requestedSchema: schema });
    await pair.session.callTool('ask');
    assert.ok(record.error instanceof LocalError, `a LocalError, got ${String(record.error)}`);
    assert.match(record.error.message, /2025-11-25/, 'the message names the revision the field kind needs');
    assert.deepEqual(requestsOf(pair.serverSent, 'elicitation/create'), []);
    await pair.finish();
  });
}

test('elicitation - elicitationComplete$ ignores ids this client was never given and ids already completed', async () => {
  const client = urlClient();
  const { pair } = await pairFor('2025-11-25', { elicitation: { url: client.url } }, urlParams);
  const completed: string[] = [];
  pair.session.elicitationComplete$.subscribe((id) => completed.push(id));
  await pair.session.callTool('ask');
  pair.server.notifyElicitationComplete(pair.serverSession, 'never-given');
  pair.server.notifyElicitationComplete(pair.serverSession, 'e-1');
  pair.server.notifyElicitationComplete(pair.serverSession, 'e-1');
  await settle();
  assert.deepEqual(completed, ['e-1'], 'only the known id, once (FEATURES row 83: the client MUST ignore unknown or finished ids)');
  await pair.finish();
});
