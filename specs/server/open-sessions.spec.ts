/**
 * server/open-sessions.ts: the open sessions, and the runtime each is accepted with.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { McpSession, SessionRuntimeOptions } from '../../session/session-core.ts';
import { OpenSessions } from '../../server/open-sessions.ts';
import { fakeSession } from './fakes.ts';

describe('server open sessions', () => {
  test('a closed session leaves the set, the server forgets it, then the caller hears of it, in that order', () => {
    const events: string[] = [];
    const open = new OpenSessions({ onClosed: () => events.push('server option') }, () => events.push('forget'));
    const { session } = fakeSession();
    open.add(session);
    assert.ok(open.all.has(session));
    const runtime: SessionRuntimeOptions = {
      onClosed: (closed) => events.push(`caller, still open: ${open.all.has(closed)}`),
    };
    open.runtimeFor(runtime).onClosed?.(session, undefined);
    assert.deepEqual(events, ['forget', 'caller, still open: false']);
    assert.equal(open.all.size, 0);
    events.length = 0;
    open.runtimeFor(undefined).onClosed?.(session, undefined);
    assert.deepEqual(events, ['forget', 'server option'], "without the caller's own, the server's option is called");
  });

  test("the server options under the caller's; one merged runtime per runtime passed, none remembered for one connection", () => {
    const serverFlow = (): void => undefined;
    const callerFlow = (): void => undefined;
    const open = new OpenSessions({ onFlow: serverFlow, limits: { maxOutboundQueue: 7 } }, () => undefined);
    assert.equal(open.runtimeFor(undefined), open.runtimeFor(undefined));
    assert.equal(open.runtimeFor(undefined).onFlow, serverFlow);
    const shared: SessionRuntimeOptions = { onFlow: callerFlow };
    const merged = open.runtimeFor(shared);
    assert.equal(open.runtimeFor(shared), merged, 'a host passing the same runtime for every session shares one');
    assert.equal(merged.onFlow, callerFlow);
    assert.deepEqual(merged.limits, { maxOutboundQueue: 7 });
    const perConnection: SessionRuntimeOptions = { knownEra: 'modern' };
    assert.notEqual(open.runtimeFor(perConnection), open.runtimeFor(perConnection));
    assert.equal(open.runtimeFor(perConnection).knownEra, 'modern');
    assert.equal(open.runtimeFor(perConnection).onFlow, serverFlow);
  });

  test('add returns the session it adds', () => {
    const open = new OpenSessions(undefined, () => undefined);
    const sessions: McpSession[] = [fakeSession().session, fakeSession().session];
    for (const session of sessions) assert.equal(open.add(session), session);
    assert.deepEqual([...open.all], sessions);
  });
});
