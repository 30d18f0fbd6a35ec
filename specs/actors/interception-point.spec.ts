/**
 * What interceptors cost when they are not there: the handler tables keep the very handler functions they had,
 * methods no interceptor covers keep theirs once others are wrapped, removing the last interceptor restores the
 * raw table and takes the outgoing interception away; a chain that finishes at once is answered synchronously.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isObservable, map } from 'rxjs';
import type { RequestContext, RequestEvent, RequestHandler } from '../../actors/handler-types.ts';
import { InterceptionPoint } from '../../actors/interception-point.ts';
import type { InterceptableHandlerTable } from '../../actors/outgoing-request.ts';

const raw = (): Map<string, RequestHandler> =>
  new Map<string, RequestHandler>([
    ['tools/call', () => ({ content: [] })],
    ['tools/list', () => ({ tools: [] })],
  ]);

const context = { id: 7, method: 'tools/call', meta: undefined, session: { role: 'server', revision: '2025-11-25', peerInfo: undefined, peerCapabilities: {} } } as unknown as RequestContext;

describe('interception point', () => {
  test('without interceptors nothing changes; uncovered methods keep their raw handler; removal restores the table', () => {
    const requests = raw();
    const before = new Map(requests);
    const table: InterceptableHandlerTable = { requests, notifications: new Map() };
    const point = new InterceptionPoint([requests], table);
    assert.equal(table.outgoing, undefined);
    const registration = point.use((request, next) => next(request), { method: 'tools/call' });
    assert.notEqual(requests.get('tools/call'), before.get('tools/call'));
    assert.equal(requests.get('tools/list'), before.get('tools/list'), 'an uncovered method keeps its raw handler');
    assert.notEqual(table.outgoing, undefined);
    registration.remove();
    for (const [method, handler] of before) assert.equal(requests.get(method), handler, `${method} has its raw handler again`);
    assert.equal(table.outgoing, undefined, 'no outgoing interception is left');
  });

  test('a chain that finishes within the call answers synchronously, as the raw handler would', () => {
    const requests = raw();
    const point = new InterceptionPoint([requests], { requests, notifications: new Map() });
    point.use((request, next) => next(request).pipe(map((event): RequestEvent => (event.type === 'result' ? { type: 'result', result: { ...event.result, tagged: true } } : event))));
    const output = (requests.get('tools/call') as RequestHandler)({ name: 'x' }, context);
    assert.equal(isObservable(output), false);
    assert.deepEqual(output, { content: [], tagged: true });
    point.use(() => {
      throw new Error('refused at once');
    }, { method: 'tools/list' });
    assert.throws(() => (requests.get('tools/list') as RequestHandler)(undefined, context), /refused at once/);
  });
});
