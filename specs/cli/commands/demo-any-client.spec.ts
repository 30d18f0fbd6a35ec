/**
 * The demo server works with every client, including those that declare no capabilities at all (the official
 * Inspector, mcp-remote): the official SDK 1.x client over Streamable HTTP (`rxmcp serve`), and ours over
 * stdio (`rxmcp serve --stdio`), call every demo tool, read its resources and get its prompt. The list of
 * demo tools is checked against the calls below, so a new demo tool without a case here fails the spec.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '../../../client/create-client.ts';
import { spawnStdioServer } from '../../../transports/stdio/index.ts';
import { REPO_ROOT, killChildren, trackChild } from '../../support/interop-processes.ts';
import { STDIO_DEMO } from './cli-process.ts';
import { rxmcpArgs } from '../../support/rxmcp-command.ts';

after(async () => {
  await killChildren();
});

/** Each demo tool, its arguments, and the text a client without capabilities gets back. */
const calls: Readonly<Record<string, { readonly args: Record<string, unknown>; readonly text: RegExp }>> = {
  count: { args: { n: 2 }, text: /^Counted to 2\.$/ },
  greet: { args: {}, text: /^Hello, friend! \(Your client cannot answer questions/ },
  stats: { args: { numbers: [2, 4] }, text: /"sum":6/ },
  whoami: { args: {}, text: /^You are anonymous: this server takes no tokens/ },
};

/** Starts `rxmcp serve --port 0` and resolves with the URL it prints. */
async function startServe(): Promise<{ readonly child: ChildProcess; readonly url: string }> {
  const child = spawn(process.execPath, rxmcpArgs('serve', '--port', '0'), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  trackChild(child.pid, 'rxmcp serve');
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rxmcp serve printed no URL: ${output}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1];
      if (found === undefined) return;
      clearTimeout(timer);
      resolve(found);
    });
  });
  return { child, url };
}

test('rxmcp serve - the official SDK 1.x client declaring no capabilities calls every demo tool over Streamable HTTP', async () => {
  const { child, url } = await startServe();
  const client = new Client({ name: 'no-capabilities', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.keys(calls).sort(), 'every demo tool has a case in this spec');
    for (const [name, { args, text }] of Object.entries(calls)) {
      const result = await client.callTool({ name, arguments: args });
      assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result)}`);
      const content = result.content as Array<{ type: string; text?: string }>;
      assert.match(content[0]?.text ?? '', text, name);
    }
    const named = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    assert.deepEqual(named.content, [{ type: 'text', text: 'Hello, Ada!' }], 'greet takes the name as an argument instead');
    const clock = await client.readResource({ uri: 'demo://clock' });
    assert.match(JSON.stringify(clock.contents), /\d{4}-\d{2}-\d{2}T/);
    const echo = await client.readResource({ uri: 'demo://echo/hi' });
    assert.equal((echo.contents[0] as { text?: string }).text, 'hi');
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'abc' } });
    assert.match(JSON.stringify(prompt.messages), /Please summarize/);
  } finally {
    await client.close();
    child.kill('SIGTERM');
  }
});

for (const era of ['auto', 'legacy'] as const) {
  test(`rxmcp serve --stdio - our client declaring no capabilities (${era} era) calls every demo tool`, async () => {
    const [command, ...args] = STDIO_DEMO as [string, ...string[]];
    const transport = await spawnStdioServer({ command, args, cwd: REPO_ROOT, stderr: 'ignore' });
    trackChild(transport.pid, 'rxmcp serve --stdio');
    const session = await createClient({ name: 'no-capabilities', version: '1.0.0', era, probeTimeoutMs: 60_000 }).connect(transport, { initializeTimeoutMs: 60_000 });
    try {
      assert.equal(session.session.era, era === 'auto' ? 'modern' : 'legacy');
      assert.deepEqual(session.session.ownCapabilities, {}, 'nothing declared');
      const tools = await session.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.keys(calls).sort(), 'every demo tool has a case in this spec');
      for (const [name, { args: toolArgs, text }] of Object.entries(calls)) {
        const result = await session.callTool(name, toolArgs as Record<string, never>);
        assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result)}`);
        assert.match((result.content?.[0] as { text?: string } | undefined)?.text ?? '', text, name);
      }
      assert.equal((await session.readResource('demo://echo/x')).contents[0]?.['text' as never], 'x');
    } finally {
      await session.close();
    }
    assert.deepEqual(await transport.exited, { code: 0, signal: null });
  });
}
