/**
 * 2026-07-28 on stdio: "the server also sends `notifications/cancelled`, solely to terminate a
 * `subscriptions/listen` stream: it references the ID of the `subscriptions/listen` request". A listen the server
 * ends (it is closing) gets that notification, then its complete result; a listen the client cancelled gets
 * neither; no other request is ever named by a server's `notifications/cancelled`. Every line the server wrote is
 * checked against the 2026-07-28 schema (the notification is a server notification there).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { JsonObject, RequestId } from '../../../core/jsonrpc.ts';
import { createServer } from '../../../server/create-server.ts';
import { createStdioServerTransport } from '../../../transports/stdio/index.ts';
import { delay } from '../../support/harness.ts';
import { validateMessage } from '../../support/schema-oracle.ts';

const MODERN = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'stdio-listener', version: '1' },
};

test('stdio, 2026-07-28: a listen the server ends is named by notifications/cancelled before its result; a cancelled one is not', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = createServer({ name: 'stdio-listen', version: '1' });
  server.tool({ name: 'echo' }, () => 'echo');
  server.accept(createStdioServerTransport({ stdin, stdout, guardConsole: false }));
  const lines: JsonObject[] = [];
  let buffered = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffered.slice(0, end)) as JsonObject);
      buffered = buffered.slice(end + 1);
    }
  });
  const sent = new Map<RequestId, string>();
  const send = (message: JsonObject): void => {
    if (typeof message['id'] === 'string') sent.set(message['id'], message['method'] as string);
    stdin.write(`${JSON.stringify(message)}\n`);
  };
  const until = async (check: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 3000;
    while (!check()) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; got ${JSON.stringify(lines)}`);
      await delay(2);
    }
  };
  const acked = (id: string) => () => lines.some((line) => line['method'] === 'notifications/subscriptions/acknowledged' && (line['params'] as JsonObject)['_meta'] !== undefined && ((line['params'] as JsonObject)['_meta'] as JsonObject)['io.modelcontextprotocol/subscriptionId'] === id);

  send({ jsonrpc: '2.0', id: 'kept', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: envelope } });
  send({ jsonrpc: '2.0', id: 'dropped', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: envelope } });
  send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: envelope } });
  await until(acked('kept'), 'the first acknowledgement');
  await until(acked('dropped'), 'the second acknowledgement');
  await until(() => lines.some((line) => line['id'] === 'call'), 'the tool result');
  send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'dropped', _meta: envelope } });
  await delay(20);
  await server.close();
  await until(() => lines.some((line) => line['id'] === 'kept'), 'the end of the kept listen');

  const cancels = lines.filter((line) => line['method'] === 'notifications/cancelled');
  assert.deepEqual(cancels.map((line) => (line['params'] as JsonObject)['requestId']), ['kept'], 'only the listen the server ended is named');
  const cancelAt = lines.findIndex((line) => line['method'] === 'notifications/cancelled');
  const resultAt = lines.findIndex((line) => line['id'] === 'kept');
  assert.ok(cancelAt >= 0 && cancelAt < resultAt, 'the notification comes before the complete result');
  assert.equal(lines.filter((line) => line['id'] === 'dropped').length, 0, 'a cancelled listen is never answered');
  const problems = lines.flatMap((line) => validateMessage(MODERN, line, { role: 'server', requestFor: (id) => (sent.has(id) ? { method: sent.get(id) as string } : undefined) }));
  assert.deepEqual(problems, []);
});
