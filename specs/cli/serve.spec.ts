import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/index.ts';
import { spawnStdioServer } from '../../transports/stdio/index.ts';
import { rxmcpArgs } from '../support/rxmcp-command.ts';
import { withSchemaOracle } from '../support/schema-oracle.ts';

const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
});

function demoClient() {
  return createClient({ era: 'legacy', name: 'serve-spec', version: '0.0.0', elicitation: { form: () => ({ action: 'accept', content: {} }) } });
}

/** Starts `rxmcp serve` on a free port and returns the URL it prints. */
async function startServe(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, rxmcpArgs('serve', '--port', '0'), { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 15_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1];
      if (found !== undefined && output.includes('connect an MCP client to')) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
  assert.match(output, /connect an MCP client to/);
  return { child, url };
}

test('rxmcp serve - the demo server answers on Streamable HTTP at 127.0.0.1: progress, elicitation, structured output, a resource that notifies', async () => {
  const { child, url } = await startServe();
  const wrapped = withSchemaOracle(createStreamableHttpClientTransport(url));
  const session = await demoClient().connect(wrapped.transport);
  const names = (await session.listTools()).map((tool) => tool.name);
  assert.deepEqual(names, ['count', 'greet', 'stats', 'whoami']);
  assert.match(JSON.stringify((await session.callTool('whoami')).content), /You are anonymous: this server takes no tokens/, 'no --auth-issuer: nobody signed in');
  const progress: number[] = [];
  const counted = await session.callTool('count', { n: 3 }, { onProgress: (event) => progress.push(event.progress) });
  assert.deepEqual(progress, [1, 2, 3]);
  assert.deepEqual(counted.content, [{ type: 'text', text: 'Counted to 3.' }]);
  assert.deepEqual((await session.callTool('greet')).content, [{ type: 'text', text: 'Hello, friend!' }], 'the default name filled by the client');
  assert.deepEqual((await session.callTool('stats', { numbers: [1, 2, 3] })).structuredContent, { sum: 6, mean: 2 });
  assert.match(JSON.stringify(await session.getPrompt('summarize', { text: 'abc' })), /Please summarize/);
  const clock = await session.readResource('demo://clock');
  assert.match(JSON.stringify(clock.contents), /\d{4}-\d{2}-\d{2}T/);
  await session.close();
  wrapped.oracle.assertClean();
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, 'SIGTERM stops it cleanly');
});

test('rxmcp serve --stdio - the demo server answers on stdio and exits when stdin closes', async () => {
  const transport = await spawnStdioServer({ command: process.execPath, args: rxmcpArgs('serve', '--stdio'), stderr: 'pipe' });
  const wrapped = withSchemaOracle(transport);
  const session = await demoClient().connect(wrapped.transport);
  assert.deepEqual((await session.callTool('stats', { numbers: [4] })).structuredContent, { sum: 4, mean: 4 });
  await session.close();
  assert.deepEqual(await transport.exited, { code: 0, signal: null });
  wrapped.oracle.assertClean();
});
