/**
 * A client: it starts an MCP server program on stdio (this same file, run with `serve`) and uses it: lists and
 * calls tools, reads a resource, gets a prompt, and answers the server's elicitation request. Then it closes the
 * session, which ends the child (stdin closed, then SIGTERM, then SIGKILL if it lingers).
 *
 * Run: node client.js (after tsc), exits 0 when every assertion holds. `node client.js serve` is the server alone,
 * which is how a desktop client would start it.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createClient, createServer } from 'rxmcp';
import { serveStdio, spawnStdioServer } from 'rxmcp/stdio';
import { lastValueFrom, toArray } from 'rxjs';

if (process.argv[2] === 'serve') {
  const server = createServer({ name: 'greeter', version: '1.0.0' });
  server.tool(
    { name: 'greet', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    async (args, ctx) => {
      // Asks the user through the client; the handler waits for the answer.
      const answer = await ctx.elicit({
        message: 'Formal greeting?',
        requestedSchema: { type: 'object', properties: { formal: { type: 'boolean' } } },
      });
      const formal = answer.action === 'accept' && answer.content?.['formal'] === true;
      return formal ? `Good day, ${String(args['name'])}.` : `Hi ${String(args['name'])}!`;
    },
  );
  server.resource({ uri: 'greeter://motto', name: 'motto', mimeType: 'text/plain' }, () => 'Be kind.');
  server.prompt({ name: 'welcome', arguments: [{ name: 'who', required: true }] }, ({ who }) => `Write a welcome note for ${who}.`);
  // Once serveStdio has been called, stdout carries only MCP: console output goes to stderr. (Log after
  // calling it, not before.) It resolves once stdin ends.
  const serving = serveStdio(server);
  console.log('greeter: serving on stdio');
  await serving;
} else {
  const client = createClient({
    name: 'example-client',
    version: '1.0.0',
    // Declares the elicitation capability and answers the server's questions.
    elicitation: { form: ({ message }) => ({ action: 'accept', content: { formal: message.startsWith('Formal') } }) },
    // The client asks the server which protocol era it speaks and, with no answer within this time, takes it
    // for a legacy-era server. A program launched on stdio may take seconds to start (npx, a loader, a cold
    // disk), so wait longer than the default 5 s for it.
    probeTimeoutMs: 30_000,
  });

  // This file again, as the server: the same node, with the same flags (a loader, if one runs this example).
  const transport = await spawnStdioServer({
    command: process.execPath,
    args: [...process.execArgv, fileURLToPath(import.meta.url), 'serve'],
    stderr: 'pipe',
  });
  const serverLog: string[] = [];
  transport.stderr$.subscribe((line) => serverLog.push(line));
  const session = await client.connect(transport);

  assert.equal(session.session.peerInfo?.name, 'greeter');
  const tools = await lastValueFrom(session.tools$().pipe(toArray())); // pages are fetched as they are read
  assert.deepEqual(tools.map((tool) => tool.name), ['greet']);

  const greeting = await session.callTool('greet', { name: 'Ada' });
  assert.deepEqual(greeting.content, [{ type: 'text', text: 'Good day, Ada.' }]);

  const motto = await session.readResource('greeter://motto');
  assert.deepEqual(motto.contents, [{ uri: 'greeter://motto', mimeType: 'text/plain', text: 'Be kind.' }]);

  const prompt = await session.getPrompt('welcome', { who: 'Grace' });
  assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Write a welcome note for Grace.' });

  await session.close();
  const exit = await transport.exited;
  assert.deepEqual(exit, { code: 0, signal: null }, 'the server ended when its stdin closed');
  assert.ok(serverLog.includes('greeter: serving on stdio'), `console output went to stderr: ${JSON.stringify(serverLog)}`);
  console.log('client: ok');
}
