/**
 * The request log (`requestLog({ logger })`): one entry per request when it ends, with its method, target, id,
 * session, principal, duration and outcome, through a captured logger, a real pino logger writing JSON lines to a
 * stream read back here, and `console`'s call shape.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import pino from 'pino';
import { type LoggerPort, type RequestLogEntry, jsonLinesLogger, requestLog } from '../../../actors/request-log.ts';
import { WireError } from '../../../core/errors.ts';
import { askingClient, connect, servedTools } from './support.ts';
import { eventually } from '../../support/harness.ts';

interface Logged {
  readonly level: 'info' | 'warn' | 'error';
  readonly entry: RequestLogEntry;
  readonly message: string | undefined;
}

function capturingLogger(): LoggerPort & { readonly lines: Logged[] } {
  const lines: Logged[] = [];
  const at = (level: Logged['level']) => (entry: object, message?: string) => void lines.push({ level, entry: entry as RequestLogEntry, message });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** A clock that moves 5 ms per reading. */
function steppingNow(): () => number {
  let now = 0;
  return () => (now += 5);
}

describe('requestLog', () => {
  test('one entry per request: ok, tool error, wire error, internal error, cancelled; levels by outcome', async () => {
    const { server, hangStarted } = servedTools();
    server.resource({ uri: 'memo://refuse', name: 'refuse' }, () => {
      throw new WireError(-32602, 'bad arguments');
    });
    server.resource({ uri: 'memo://crash', name: 'crash' }, () => {
      throw new Error('boom');
    });
    server.tool({ name: 'soft' }, () => ({ content: [{ type: 'text', text: 'no' }], isError: true }));
    const logger = capturingLogger();
    server.use(requestLog({ logger, now: steppingNow() }));
    const session = await connect(server, askingClient('legacy'));
    await session.callTool('echo', { a: 1 });
    await session.callTool('soft');
    await assert.rejects(session.readResource('memo://refuse'));
    await assert.rejects(session.readResource('memo://crash'));
    await session.readResource('memo://a');
    const hanging = session.callTool$('hang').subscribe({ error: () => undefined });
    await hangStarted;
    hanging.unsubscribe();
    await eventually(() => logger.lines.length === 6, 1000, 'six entries');

    const [echo, soft, refuse, crash, read, hang] = logger.lines as [Logged, Logged, Logged, Logged, Logged, Logged];
    assert.equal(echo.level, 'info');
    assert.equal(echo.message, 'tools/call echo');
    const sessionId = echo.entry.sessionId;
    assert.equal(typeof sessionId, 'string');
    assert.deepEqual(echo.entry, {
      direction: 'incoming',
      method: 'tools/call',
      target: 'echo',
      id: echo.entry.id,
      sessionId,
      era: 'legacy',
      revision: '2025-11-25',
      durationMs: 5,
      outcome: 'ok',
    });
    assert.equal(typeof echo.entry.id, 'number');
    assert.deepEqual([soft.level, soft.entry.outcome, soft.entry.toolError], ['info', 'ok', true]);
    assert.deepEqual([refuse.level, refuse.entry.outcome, refuse.entry.code, refuse.entry.error], ['warn', 'error', -32602, 'bad arguments']);
    assert.deepEqual([crash.level, crash.entry.outcome, crash.entry.code, crash.entry.error], ['error', 'error', -32603, 'boom']);
    assert.deepEqual([read.message, read.entry.target, read.entry.outcome], ['resources/read memo://a', 'memo://a', 'ok']);
    assert.deepEqual([hang.level, hang.entry.outcome, hang.entry.target], ['info', 'cancelled', 'hang']);
    assert.ok(logger.lines.every((line) => line.entry.sessionId === sessionId), 'one session, one id');
    await session.close();
    await server.close();
  });

  test('the modern era: no session id, the modern revision', async () => {
    const { server } = servedTools();
    const logger = capturingLogger();
    server.use(requestLog({ logger }), { tool: 'echo' });
    const session = await connect(server, askingClient('modern'));
    await session.callTool('echo', {});
    await session.callTool('other');
    assert.equal(logger.lines.length, 1, 'scoped to one tool');
    const entry = logger.lines[0]?.entry;
    assert.equal(entry?.era, 'modern');
    assert.equal(entry?.revision, '2026-07-28');
    assert.equal(entry?.sessionId, undefined);
    assert.equal(typeof entry?.durationMs, 'number');
    await session.close();
    await server.close();
  });

  test('a client logs the requests it sends', async () => {
    const { server } = servedTools();
    const logger = capturingLogger();
    const client = askingClient('legacy');
    client.use(requestLog({ logger }));
    const session = await connect(server, client);
    await session.callTool('echo', {});
    const call = logger.lines.find((line) => line.entry.method === 'tools/call');
    assert.deepEqual([call?.entry.direction, call?.entry.target, call?.entry.outcome, call?.entry.id], ['outgoing', 'echo', 'ok', undefined]);
    await session.close();
    await server.close();
  });

  test('a real pino logger writes one JSON line per request with pino\'s fields and the entry\'s', async () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    const { server } = servedTools();
    server.use(requestLog({ logger: pino({ base: { service: 'spec' } }, stream) }));
    const session = await connect(server, askingClient('legacy'));
    await session.callTool('echo', { a: 1 });
    await session.getPrompt('greet');
    await eventually(() => chunks.join('').split('\n').filter(Boolean).length === 2, 1000, 'two lines');
    const lines = chunks.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((line) => [line['level'], line['service'], line['msg'], line['method'], line['target'], line['outcome'], line['era'], typeof line['time'], typeof line['durationMs']]),
      [
        [30, 'spec', 'tools/call echo', 'tools/call', 'echo', 'ok', 'legacy', 'number', 'number'],
        [30, 'spec', 'prompts/get greet', 'prompts/get', 'greet', 'ok', 'legacy', 'number', 'number'],
      ],
    );
    await session.close();
    await server.close();
  });

  test('console fits the port; jsonLinesLogger writes JSON lines without a dependency', () => {
    const port: LoggerPort = console;
    assert.equal(typeof port.info, 'function');
    const lines: string[] = [];
    const logger = jsonLinesLogger((line) => lines.push(line), () => 42);
    logger.warn({ method: 'tools/call', outcome: 'error', code: -32602 }, 'tools/call echo');
    logger.info({ method: 'ping' });
    assert.deepEqual(lines.map((line) => JSON.parse(line) as unknown), [
      { level: 'warn', time: 42, method: 'tools/call', outcome: 'error', code: -32602, msg: 'tools/call echo' },
      { level: 'info', time: 42, method: 'ping' },
    ]);
  });
});
