/**
 * `rxmcp serve --stdio` (the command the README gives desktop clients) writes nothing but MCP on stdout: a
 * whole session's stdout, read line by line, is JSON-RPC messages only, even with --verbose (whose request
 * log goes to stderr).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, test } from 'node:test';
import { REPO_ROOT, killChildren, trackChild } from '../../support/interop-processes.ts';
import { rxmcpArgs } from '../../support/rxmcp-command.ts';

after(async () => {
  await killChildren();
});

const requests = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'count', arguments: { n: 2 }, _meta: { progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'greet', arguments: {} } },
  { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'demo://echo/abc' } },
  { jsonrpc: '2.0', id: 6, method: 'prompts/get', params: { name: 'summarize', arguments: { text: 't' } } },
  { jsonrpc: '2.0', id: 7, method: 'no/such-method' },
];

test('rxmcp serve --stdio --verbose - every stdout line of a session is a JSON-RPC message; the request log is on stderr', async () => {
  const child = spawn(process.execPath, rxmcpArgs('serve', '--stdio', '--verbose'), { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  trackChild(child.pid, 'rxmcp serve --stdio');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const answered = (id: number): boolean => stdout.split('\n').some((line) => line.startsWith('{') && (JSON.parse(line) as { id?: unknown }).id === id);
  const deadline = Date.now() + 60_000;
  for (const request of requests) {
    child.stdin.write(`${JSON.stringify(request)}\n`);
    // One at a time, so the session's order is the one above.
    if ('id' in request) while (!answered(request.id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.stdin.end();
  assert.equal(await exited, 0, stderr);

  const lines = stdout.split('\n');
  assert.equal(lines.pop(), '', 'stdout ends with a newline');
  const messages = lines.map((line, index) => {
    let message: Record<string, unknown>;
    assert.doesNotThrow(() => (message = JSON.parse(line) as Record<string, unknown>), `stdout line ${index + 1} is JSON: ${line}`);
    message = JSON.parse(line) as Record<string, unknown>;
    assert.equal(message['jsonrpc'], '2.0', `stdout line ${index + 1} is JSON-RPC: ${line}`);
    assert.ok(('id' in message && ('result' in message || 'error' in message)) || typeof message['method'] === 'string', `stdout line ${index + 1} is a response or a notification: ${line}`);
    return message;
  });
  const answers = messages.filter((message) => 'id' in message).map((message) => message['id']);
  assert.deepEqual(answers, [1, 2, 3, 4, 5, 6, 7], 'every request answered once, nothing else with an id');
  assert.equal(messages.filter((message) => message['method'] === 'notifications/progress').length, 2);
  const greet = messages.find((message) => message['id'] === 4) as { result: { content: Array<{ text: string }> } };
  assert.match(greet.result.content[0]?.text ?? '', /^Hello, friend! \(Your client cannot answer questions/);

  // The verbose log: one JSON line per request that reached a handler (the requestLog interceptor).
  const logged = stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  const entry = (method: string, target: string) => logged.find((line) => line['method'] === method && line['target'] === target);
  const count = entry('tools/call', 'count');
  assert.ok(count !== undefined, `the verbose log names the tool: ${stderr}`);
  assert.equal(count['outcome'], 'ok');
  assert.equal(count['level'], 'info');
  assert.equal(count['id'], 3);
  assert.equal(count['era'], 'legacy');
  assert.equal(typeof count['durationMs'], 'number');
  assert.equal(count['msg'], 'tools/call count');
  assert.equal(entry('resources/read', 'demo://echo/abc')?.['outcome'], 'ok');
  assert.equal(entry('prompts/get', 'summarize')?.['outcome'], 'ok');
});
