/**
 * The names of requests in telemetry: span names (a resource URI only on request), error.type from wire errors,
 * local errors and other throwables, tool errors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalError, WireError } from '../../core/errors.ts';
import type { InterceptedRequest } from '../../actors/interceptors.ts';
import { errorTypeOf, isToolError, spanAttributesOf, spanNameOf, statusCodeOf } from '../../otel/attributes.ts';

function request(method: string, target: string | undefined): InterceptedRequest {
  const session = { role: 'server', era: 'legacy', revision: '2025-06-18', peerInfo: undefined, peerCapabilities: undefined, principal: undefined, id: 's1' } as const;
  const made: InterceptedRequest = { direction: 'incoming', method, params: undefined, meta: undefined, id: 7, target, session, signal: new AbortController().signal, with: () => made };
  return made;
}

test('span names: tools and prompts name their target, resources only when asked, others the method', () => {
  assert.equal(spanNameOf(request('tools/call', 'search')), 'tools/call search');
  assert.equal(spanNameOf(request('prompts/get', 'greet')), 'prompts/get greet');
  assert.equal(spanNameOf(request('resources/read', 'file:///a')), 'resources/read');
  assert.equal(spanNameOf(request('resources/read', 'file:///a'), true), 'resources/read file:///a');
  assert.equal(spanNameOf(request('tools/list', undefined)), 'tools/list');
});

test('span attributes of a legacy tool call', () => {
  assert.deepEqual(spanAttributesOf(request('tools/call', 'search')), {
    'mcp.method.name': 'tools/call',
    'mcp.protocol.version': '2025-06-18',
    'gen_ai.tool.name': 'search',
    'gen_ai.operation.name': 'execute_tool',
    'jsonrpc.protocol.version': '2.0',
    'jsonrpc.request.id': '7',
    'mcp.session.id': 's1',
  });
  assert.equal(spanAttributesOf(request('resources/read', 'file:///a'))['mcp.resource.uri'], 'file:///a');
});

test('error.type: a JSON-RPC code, a local error code, an error name; tool errors', () => {
  assert.equal(errorTypeOf(new WireError(-32602, 'bad')), '-32602');
  assert.equal(statusCodeOf(new WireError(-32602, 'bad')), '-32602');
  assert.equal(errorTypeOf(new LocalError('RequestTimeout', 'slow')), 'RequestTimeout');
  assert.equal(statusCodeOf(new LocalError('RequestTimeout', 'slow')), undefined);
  assert.equal(errorTypeOf(new TypeError('x')), 'TypeError');
  assert.equal(errorTypeOf('text'), '_OTHER');
  assert.equal(isToolError('tools/call', { content: [], isError: true }), true);
  assert.equal(isToolError('tools/call', { content: [] }), false);
  assert.equal(isToolError('prompts/get', { isError: true }), false);
});
