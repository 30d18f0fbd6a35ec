import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import {
  checkParamHeaders,
  checkStandardHeaders,
  decodeHeaderValue,
  encodeHeaderValue,
  headerAnnotations,
  headerLookup,
  isPlainHeaderValue,
  paramHeaders,
  standardHeaders,
  type HeaderAnnotation,
  type HeaderProblem,
  type MirroredMessage,
} from '../../../core/protocol/header-mirror.ts';

const VERSION = '2026-07-28';

/** Base64 computed by Node's own codec, so the expected values do not come from the code under test. */
function sentinel(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function decoded(raw: string): string {
  const result = decodeHeaderValue(raw);
  assert.ok(result.ok, `expected ${JSON.stringify(raw)} to decode, got ${result.ok ? '' : result.problem}`);
  return result.value;
}

function rejected(raw: string): string {
  const result = decodeHeaderValue(raw);
  assert.equal(result.ok, false, `expected ${JSON.stringify(raw)} to be rejected`);
  return result.ok ? '' : result.problem;
}

function annotationsOf(schema: unknown): readonly HeaderAnnotation[] {
  const result = headerAnnotations(schema);
  assert.ok(result.ok, result.ok ? '' : result.problem);
  return result.annotations;
}

function invalidReason(schema: unknown): string {
  const result = headerAnnotations(schema);
  assert.equal(result.ok, false, 'expected the annotations to be rejected');
  return result.ok ? '' : result.problem;
}

function toolSchema(properties: JsonObject): JsonObject {
  return { type: 'object', properties };
}

function call(name: string, args: JsonObject = {}): MirroredMessage {
  return { method: 'tools/call', params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION } } };
}

function assertProblem(actual: HeaderProblem | undefined, header: string, reason: HeaderProblem['reason']): void {
  assert.ok(actual, `expected a ${reason} problem on ${header}`);
  assert.equal(actual.header, header);
  assert.equal(actual.reason, reason);
  assert.ok(actual.message.includes(header), `message should name the header: ${actual.message}`);
}

/** Strings rich in the cases the encoding rules single out. */
const trickyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'binary-ascii' }),
  fc
    .array(fc.constantFrom(' ', '\t', '\r', '\n', '=?base64?', '?=', 'SGVsbG8=', '日本語', 'a', '\u0000', '\u007f', 'é'), { maxLength: 8 })
    .map((parts) => parts.join('')),
);

describe('header values', () => {
  test('header values - plain visible ASCII, with internal spaces, is sent as is', () => {
    assert.equal(encodeHeaderValue('my_tool'), 'my_tool');
    assert.equal(encodeHeaderValue('us west 2'), 'us west 2');
    assert.equal(encodeHeaderValue('file:///path/to/file%20name.txt'), 'file:///path/to/file%20name.txt');
    assert.equal(encodeHeaderValue('=?base64?SGVsbG8='), '=?base64?SGVsbG8=', 'a half wrapper is not the sentinel');
  });

  test('header values - integers as decimal text and booleans as true/false', () => {
    assert.equal(encodeHeaderValue(42), '42');
    assert.equal(encodeHeaderValue(-7), '-7');
    assert.equal(encodeHeaderValue(0), '0');
    assert.equal(encodeHeaderValue(1e21), '1000000000000000000000');
    assert.equal(encodeHeaderValue(true), 'true');
    assert.equal(encodeHeaderValue(false), 'false');
  });

  test('header values - an empty string is an empty value', () => {
    assert.equal(encodeHeaderValue(''), '');
    assert.equal(decoded(''), '');
  });

  test('header values - non-ASCII, controls, CR/LF, tab and outer whitespace are base64-encoded', () => {
    for (const value of ['日本語', 'café', 'a\r\nb', '\n', 'a\tb', '\u0000', 'del\u007f', ' lead', 'trail ', '   ', '\t']) {
      assert.equal(encodeHeaderValue(value), sentinel(value), JSON.stringify(value));
      assert.equal(isPlainHeaderValue(value), false);
    }
    assert.equal(encodeHeaderValue('日本語'), '=?base64?5pel5pys6Kqe?=');
    assert.equal(encodeHeaderValue('   '), '=?base64?ICAg?=');
  });

  test('header values - a value that looks like the sentinel is encoded so it reads back unchanged', () => {
    for (const value of ['=?base64?SGVsbG8=?=', '=?base64??=', '=?BASE64?SGVsbG8=?=']) {
      const encoded = encodeHeaderValue(value);
      assert.equal(encoded, sentinel(value));
      assert.equal(decoded(encoded), value);
    }
  });

  test('header values - an exact lowercase wrapper of padded standard base64 is decoded', () => {
    assert.equal(decoded('=?base64?SGVsbG8=?='), 'Hello');
    assert.equal(decoded('=?base64?5pel5pys6Kqe?='), '日本語');
    assert.equal(decoded('=?base64??='), '');
    assert.equal(decoded('=?base64?YQ==?='), 'a');
  });

  test('header values - bad padding, a bad alphabet and invalid UTF-8 are rejected', () => {
    assert.match(rejected('=?base64?SGVsbG8?='), /base64/);
    assert.match(rejected('=?base64?SGVs!!!bG8=?='), /base64/);
    rejected('=?base64?SGVsbG8==?=');
    rejected('=?base64?YQ=?=');
    rejected('=?base64?-_-_?=');
    rejected('=?base64?SGVs bG8=?=');
    assert.match(rejected('=?base64?/w==?='), /UTF-8/);
  });

  test('header values - anything not exactly wrapped is literal', () => {
    assert.equal(decoded('=?base64?SGVsbG8='), '=?base64?SGVsbG8=');
    assert.equal(decoded('SGVsbG8=?='), 'SGVsbG8=?=');
    assert.equal(decoded('=?BASE64?SGVsbG8=?='), '=?BASE64?SGVsbG8=?=');
    assert.equal(decoded('x=?base64?SGVsbG8=?='), 'x=?base64?SGVsbG8=?=');
  });

  test('header values - optional whitespace around a value is not part of it', () => {
    assert.equal(decoded('  my_tool  '), 'my_tool');
    assert.equal(decoded('\tmy tool\t '), 'my tool');
    assert.equal(decoded(' =?base64?SGVsbG8=?= '), 'Hello');
  });

  test('header values - a literal with characters the sender had to encode is rejected', () => {
    rejected('日本語');
    rejected('a\tb');
    rejected('a\u0000b');
  });

  test('header values - encode then decode gives back any well-formed string', () => {
    fc.assert(
      fc.property(trickyString, (value) => {
        assert.equal(decoded(encodeHeaderValue(value)), value);
      }),
      { numRuns: 1000 },
    );
  });

  test('header values - an encoded value is always safe to put in a header', () => {
    fc.assert(
      fc.property(trickyString, (value) => {
        const encoded = encodeHeaderValue(value);
        assert.match(encoded, /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/);
        // What HTTP would do to it in transit must not change its meaning.
        assert.equal(decoded(` ${encoded}\t`), value);
      }),
      { numRuns: 500 },
    );
  });

  test('header values - plain values pass through untouched', () => {
    const plain = fc.string({ unit: 'binary-ascii' }).filter(isPlainHeaderValue);
    fc.assert(
      fc.property(plain, (value) => {
        assert.equal(encodeHeaderValue(value), value);
      }),
    );
  });
});

describe('x-mcp-header annotations', () => {
  test('x-mcp-header annotations - collects top-level and nested properties with their paths and types', () => {
    const schema = toolSchema({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      level: { type: 'integer' },
      options: {
        type: 'object',
        properties: {
          dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
          limits: { type: 'object', properties: { count: { type: 'integer', 'x-mcp-header': 'Count' } } },
        },
      },
    });
    assert.deepEqual(annotationsOf(schema), [
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'Dry-Run', path: ['options', 'dryRun'], type: 'boolean' },
      { name: 'Count', path: ['options', 'limits', 'count'], type: 'integer' },
    ]);
  });

  test('x-mcp-header annotations - a schema without annotations is valid and yields none', () => {
    assert.deepEqual(annotationsOf(toolSchema({ a: { type: 'string' } })), []);
    assert.deepEqual(annotationsOf({ type: 'object' }), []);
  });

  test('x-mcp-header annotations - every token character is allowed in a name', () => {
    const name = "!#$%&'*+-.^_`|~09azAZ";
    assert.deepEqual(annotationsOf(toolSchema({ a: { type: 'string', 'x-mcp-header': name } })), [
      { name, path: ['a'], type: 'string' },
    ]);
  });

  test('x-mcp-header annotations - only string, integer and boolean properties may be mirrored', () => {
    const badTypes: readonly unknown[] = ['array', 'null', 'number', 'object', undefined, ['string', 'null'], ['string']];
    for (const type of badTypes) {
      const property: JsonObject = type === undefined ? { 'x-mcp-header': 'H' } : { type, 'x-mcp-header': 'H' };
      assert.match(invalidReason(toolSchema({ p: property })), /type/, JSON.stringify(type));
    }
  });

  test('x-mcp-header annotations - annotations outside a properties chain are invalid', () => {
    const annotated = { type: 'string', 'x-mcp-header': 'H' };
    const schemas: readonly JsonObject[] = [
      toolSchema({ list: { type: 'array', items: annotated } }),
      toolSchema({ list: { type: 'array', prefixItems: [annotated] } }),
      toolSchema({ choice: { anyOf: [annotated, { type: 'integer' }] } }),
      { type: 'object', properties: { ref: { $ref: '#/$defs/X' } }, $defs: { X: annotated } },
      { type: 'object', additionalProperties: annotated },
      { type: 'object', patternProperties: { '^x': annotated } },
      toolSchema({ deep: { type: 'object', oneOf: [{ properties: { inner: annotated } }] } }),
    ];
    for (const schema of schemas) {
      assert.match(invalidReason(schema), /properties/, JSON.stringify(schema));
    }
    assert.match(invalidReason({ type: 'object', 'x-mcp-header': 'Root' }), /root/);
  });

  test('x-mcp-header annotations - a property called x-mcp-header and data in const/default are not annotations', () => {
    const schema = toolSchema({
      'x-mcp-header': { type: 'string' },
      config: { type: 'object', default: { 'x-mcp-header': 'not an annotation' }, const: { 'x-mcp-header': 1 } },
    });
    assert.deepEqual(annotationsOf(schema), []);
  });

  test('x-mcp-header annotations - names must be unique regardless of case', () => {
    const sameCase = toolSchema({
      a: { type: 'string', 'x-mcp-header': 'Region' },
      b: { type: 'string', 'x-mcp-header': 'Region' },
    });
    assert.match(invalidReason(sameCase), /Region/);
    const differentCase = toolSchema({
      a: { type: 'string', 'x-mcp-header': 'MyField' },
      nested: { type: 'object', properties: { b: { type: 'integer', 'x-mcp-header': 'myfield' } } },
    });
    assert.match(invalidReason(differentCase), /MyField/);
  });

  test('x-mcp-header annotations - names must be non-empty header tokens', () => {
    for (const name of ['my field', 'my:field', 'régión', 'bad\u0001name', 'tab\tname', '', 'a/b', '(x)']) {
      invalidReason(toolSchema({ p: { type: 'string', 'x-mcp-header': name } }));
    }
    assert.match(invalidReason(toolSchema({ p: { type: 'string', 'x-mcp-header': '' } })), /empty/);
    assert.match(invalidReason(toolSchema({ p: { type: 'string', 'x-mcp-header': 3 } })), /string/);
  });

  test('x-mcp-header annotations - a problem names where it is', () => {
    const problem = invalidReason(toolSchema({ outer: { type: 'object', properties: { 'a/b': { type: 'number', 'x-mcp-header': 'N' } } } }));
    assert.ok(problem.includes('/properties/outer/properties/a~1b'), problem);
  });
});

describe('paramHeaders', () => {
  const annotations = annotationsOf(
    toolSchema({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      method: { type: 'string', 'x-mcp-header': 'Method' },
      level: { type: 'integer', 'x-mcp-header': 'Level' },
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
      plain: { type: 'string' },
      options: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
    }),
  );

  test('paramHeaders - mirrors each annotated argument, encoded', () => {
    const headers = paramHeaders(annotations, {
      region: '日本語',
      method: 'fast',
      level: 3,
      verbose: false,
      plain: 'not mirrored',
      options: { zone: ' b ' },
    });
    assert.deepEqual(headers, {
      'Mcp-Param-Region': '=?base64?5pel5pys6Kqe?=',
      'Mcp-Param-Method': 'fast',
      'Mcp-Param-Level': '3',
      'Mcp-Param-Verbose': 'false',
      'Mcp-Param-Zone': sentinel(' b '),
    });
  });

  test('paramHeaders - omits null and absent values, including under a null or missing parent', () => {
    assert.deepEqual(paramHeaders(annotations, { region: null, level: 0, options: null }), { 'Mcp-Param-Level': '0' });
    assert.deepEqual(paramHeaders(annotations, { options: {} }), {});
    assert.deepEqual(paramHeaders(annotations, {}), {});
    assert.deepEqual(paramHeaders(annotations, undefined), {});
  });

  test('paramHeaders - mirrors a primitive of the wrong type as its text, leaves out objects and arrays', () => {
    assert.deepEqual(paramHeaders(annotations, { level: '7', verbose: 1.5, region: { x: 1 }, method: ['a'] }), {
      'Mcp-Param-Level': '7',
      'Mcp-Param-Verbose': '1.5',
    });
  });
});

describe('standardHeaders', () => {
  test('standardHeaders - method, version and the per-method name field', () => {
    assert.deepEqual(standardHeaders(call('my-hyphenated-tool')), {
      'MCP-Protocol-Version': VERSION,
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'my-hyphenated-tool',
    });
    const meta = { 'io.modelcontextprotocol/protocolVersion': VERSION };
    assert.equal(standardHeaders({ method: 'resources/read', params: { uri: 'file:///path/to/file%20name.txt', _meta: meta } })['Mcp-Name'], 'file:///path/to/file%20name.txt');
    assert.equal(standardHeaders({ method: 'prompts/get', params: { name: 'test_prompt', _meta: meta } })['Mcp-Name'], 'test_prompt');
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      assert.equal(standardHeaders({ method, params: { taskId: 't-1', _meta: meta } })['Mcp-Name'], 't-1');
    }
    assert.deepEqual(standardHeaders({ method: 'tools/list', params: { _meta: meta } }), {
      'MCP-Protocol-Version': VERSION,
      'Mcp-Method': 'tools/list',
    });
  });

  test('standardHeaders - a name that is not plain ASCII is encoded', () => {
    assert.equal(standardHeaders(call('outil_é'))['Mcp-Name'], sentinel('outil_é'));
  });
});

describe('checkStandardHeaders', () => {
  const consistent = {
    'MCP-Protocol-Version': VERSION,
    'Mcp-Method': 'tools/call',
    'Mcp-Name': 'my_tool',
  };

  test('checkStandardHeaders - consistent headers pass, whatever the case of their names', () => {
    assert.equal(checkStandardHeaders(headerLookup(consistent), call('my_tool')), undefined);
    assert.equal(
      checkStandardHeaders(headerLookup({ 'mcp-protocol-version': VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'my_tool' }), call('my_tool')),
      undefined,
    );
    assert.equal(
      checkStandardHeaders(headerLookup({ 'MCP-PROTOCOL-VERSION': VERSION, 'MCP-METHOD': 'tools/call', 'MCP-NAME': 'my_tool' }), call('my_tool')),
      undefined,
    );
  });

  test('checkStandardHeaders - Mcp-Method missing or different is a mismatch, and values are case-sensitive', () => {
    const list: MirroredMessage = { method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION } } };
    assertProblem(checkStandardHeaders(headerLookup({ 'MCP-Protocol-Version': VERSION }), list), 'Mcp-Method', 'missing');
    assertProblem(checkStandardHeaders(headerLookup({ 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'prompts/list' }), list), 'Mcp-Method', 'differs');
    assertProblem(checkStandardHeaders(headerLookup({ 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'TOOLS/LIST' }), list), 'Mcp-Method', 'differs');
    assert.equal(checkStandardHeaders(headerLookup({ 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'tools/list' }), list), undefined);
  });

  test('checkStandardHeaders - Mcp-Name missing or different is a mismatch; surrounding whitespace is ignored', () => {
    assertProblem(checkStandardHeaders(headerLookup({ ...consistent, 'Mcp-Name': 'wrong_tool_name' }), call('my_tool')), 'Mcp-Name', 'differs');
    assertProblem(checkStandardHeaders(headerLookup({ ...consistent, 'Mcp-Name': undefined }), call('my_tool')), 'Mcp-Name', 'missing');
    assertProblem(checkStandardHeaders(headerLookup({ ...consistent, 'Mcp-Name': 'MY_TOOL' }), call('my_tool')), 'Mcp-Name', 'differs');
    assert.equal(checkStandardHeaders(headerLookup({ ...consistent, 'Mcp-Name': '  my_tool  ' }), call('my_tool')), undefined);
  });

  test('checkStandardHeaders - Mcp-Name follows uri for resources/read and taskId for tasks', () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': VERSION };
    const read: MirroredMessage = { method: 'resources/read', params: { uri: 'test://a', _meta: meta } };
    assert.equal(checkStandardHeaders(headerLookup({ 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'resources/read', 'Mcp-Name': 'test://a' }), read), undefined);
    assertProblem(checkStandardHeaders(headerLookup({ 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'resources/read', 'Mcp-Name': 'test://b' }), read), 'Mcp-Name', 'differs');
    const cancel: MirroredMessage = { method: 'tasks/cancel', params: { taskId: 'task-9', _meta: meta } };
    assertProblem(checkStandardHeaders(headerLookup({ 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'tasks/cancel' }), cancel), 'Mcp-Name', 'missing');
  });

  test('checkStandardHeaders - an encoded Mcp-Name is decoded before comparing; an undecodable one is invalid', () => {
    assert.equal(checkStandardHeaders(headerLookup({ ...consistent, 'Mcp-Name': sentinel('outil_é') }), call('outil_é')), undefined);
    assertProblem(checkStandardHeaders(headerLookup({ ...consistent, 'Mcp-Name': '=?base64?SGVsbG8?=' }), call('Hello')), 'Mcp-Name', 'invalid');
  });

  test('checkStandardHeaders - MCP-Protocol-Version must equal the _meta version; a missing one is reported distinctly', () => {
    assertProblem(checkStandardHeaders(headerLookup({ ...consistent, 'MCP-Protocol-Version': '2025-11-25' }), call('my_tool')), 'MCP-Protocol-Version', 'differs');
    assertProblem(checkStandardHeaders(headerLookup({ ...consistent, 'MCP-Protocol-Version': undefined }), call('my_tool')), 'MCP-Protocol-Version', 'missing');
  });

  test('checkStandardHeaders - a missing version is only reported once everything else agrees', () => {
    const headers = headerLookup({ 'Mcp-Method': 'tools/call', 'Mcp-Name': 'other' });
    assertProblem(checkStandardHeaders(headers, call('my_tool')), 'Mcp-Name', 'differs');
  });

  test('checkStandardHeaders - what a client sends for a message is what the server accepts for it', () => {
    const method = fc.constantFrom('tools/call', 'prompts/get', 'resources/read', 'tasks/get', 'tasks/update', 'tasks/cancel', 'tools/list', 'ping');
    fc.assert(
      fc.property(method, trickyString, trickyString, (m, name, version) => {
        const params = { name, uri: name, taskId: name, _meta: { 'io.modelcontextprotocol/protocolVersion': version } };
        const message: MirroredMessage = { method: m, params };
        assert.equal(checkStandardHeaders(headerLookup(standardHeaders(message)), message), undefined);
      }),
      { numRuns: 300 },
    );
  });
});

describe('checkParamHeaders', () => {
  const annotations = annotationsOf(
    toolSchema({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      level: { type: 'integer', 'x-mcp-header': 'Level' },
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
    }),
  );

  test('checkParamHeaders - matching headers pass, looked up case-insensitively', () => {
    const headers = headerLookup({ 'mcp-param-region': 'us-west', 'MCP-PARAM-LEVEL': '3', 'Mcp-Param-Verbose': 'true' });
    assert.equal(checkParamHeaders(headers, annotations, { region: 'us-west', level: 3, verbose: true }), undefined);
  });

  test('checkParamHeaders - integers compare numerically, booleans as true/false', () => {
    assert.equal(checkParamHeaders(headerLookup({ 'Mcp-Param-Level': '007' }), annotations, { level: 7 }), undefined);
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Level': '8' }), annotations, { level: 7 }), 'Mcp-Param-Level', 'differs');
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Level': '7.0' }), annotations, { level: 7 }), 'Mcp-Param-Level', 'differs');
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Verbose': 'True' }), annotations, { verbose: true }), 'Mcp-Param-Verbose', 'differs');
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Verbose': 'false' }), annotations, { verbose: true }), 'Mcp-Param-Verbose', 'differs');
  });

  test('checkParamHeaders - a header missing while the body has a value is a mismatch', () => {
    assertProblem(checkParamHeaders(headerLookup({}), annotations, { region: 'eu' }), 'Mcp-Param-Region', 'missing');
  });

  test('checkParamHeaders - a header present while the body value is absent or null is a mismatch', () => {
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': 'eu' }), annotations, {}), 'Mcp-Param-Region', 'unexpected');
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': 'eu' }), annotations, { region: null }), 'Mcp-Param-Region', 'unexpected');
    assert.equal(checkParamHeaders(headerLookup({}), annotations, { region: null }), undefined);
  });

  test('checkParamHeaders - base64 values are decoded; bad padding or alphabet is rejected; a half wrapper is literal', () => {
    const hello = { region: 'Hello' };
    assert.equal(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': '=?base64?SGVsbG8=?=' }), annotations, hello), undefined);
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }), annotations, hello), 'Mcp-Param-Region', 'invalid');
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }), annotations, hello), 'Mcp-Param-Region', 'invalid');
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': '=?base64?SGVsbG8=' }), annotations, hello), 'Mcp-Param-Region', 'differs');
    assert.equal(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': '=?base64?SGVsbG8=' }), annotations, { region: '=?base64?SGVsbG8=' }), undefined);
  });

  test('checkParamHeaders - an empty header matches an empty string', () => {
    assert.equal(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': '' }), annotations, { region: '' }), undefined);
    assertProblem(checkParamHeaders(headerLookup({ 'Mcp-Param-Region': '' }), annotations, { region: 'x' }), 'Mcp-Param-Region', 'differs');
  });

  test('checkParamHeaders - what paramHeaders sends is accepted, for any argument values', () => {
    const value = fc.oneof(trickyString, fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }));
    fc.assert(
      fc.property(value, value, value, (region, level, verbose) => {
        const args = { region, level, verbose };
        assert.equal(checkParamHeaders(headerLookup(paramHeaders(annotations, args)), annotations, args), undefined);
      }),
      { numRuns: 500 },
    );
  });

  test('checkParamHeaders - a header sent for one value is refused for a different one', () => {
    fc.assert(
      fc.property(trickyString, trickyString, (sent, body) => {
        fc.pre(sent !== body);
        const headers = headerLookup(paramHeaders(annotations, { region: sent }));
        assertProblem(checkParamHeaders(headers, annotations, { region: body }), 'Mcp-Param-Region', 'differs');
      }),
      { numRuns: 300 },
    );
  });
});
