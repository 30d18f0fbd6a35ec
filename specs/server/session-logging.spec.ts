/**
 * server/session-logging.ts: `server.log` reaches each operating session at the level it chose.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SessionLogLevels } from '../../server/session-logging.ts';
import { fakeSession } from './fakes.ts';

describe('server session logging', () => {
  test('each operating session gets the message unless its level is above it; closed sessions get nothing', () => {
    const levels = new SessionLogLevels();
    const quiet = fakeSession();
    const chatty = fakeSession();
    const unset = fakeSession();
    const closed = fakeSession();
    closed.close();
    levels.setLogLevel(quiet.session, 'error');
    levels.setLogLevel(chatty.session, 'debug');
    assert.equal(levels.logLevel(quiet.session), 'error');
    assert.equal(levels.logLevel(unset.session), undefined);
    const sessions = [quiet, chatty, unset, closed].map((fake) => fake.session);
    levels.log(sessions, 'info', { n: 1 }, 'db');
    levels.log(sessions, 'critical', 'down', undefined);
    const info = { method: 'notifications/message', params: { level: 'info', data: { n: 1 }, logger: 'db' } };
    const critical = { method: 'notifications/message', params: { level: 'critical', data: 'down' } };
    assert.deepEqual(quiet.sent, [critical]);
    assert.deepEqual(chatty.sent, [info, critical]);
    assert.deepEqual(unset.sent, [info, critical], 'a session that chose no level gets everything');
    assert.deepEqual(closed.sent, []);
  });
});
