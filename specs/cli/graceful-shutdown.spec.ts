/**
 * The programs shut down gracefully on SIGTERM: `rxmcp serve --stdio`, `rxmcp serve` (HTTP), `rxmcp gateway` and
 * `rxmcp bridge to-nats`, each a real process, with calls in flight that must all be answered, and exit code 0.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { createNatsClientTransport } from '../../transports/nats/index.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect } from '@nats-io/transport-node';
import { RawMcp, asStream } from '../support/http-raw-client.ts';
import { freePort, startNatsServer } from '../support/nats-server.ts';
import { PROCESS_MS, REPO_ROOT, killChildren, trackChild, until } from '../support/interop-processes.ts';
import { startToNats } from './bridge/bridge-processes.ts';
import { rxmcpArgs } from '../support/rxmcp-command.ts';
import { programArgs } from '../support/spec-program.ts';

const SLOW_SERVER = fileURLToPath(new URL('../support/stdio-fixtures/graceful-server.ts', import.meta.url));

after(async () => {
  await killChildren();
});

interface Program {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startProgram(args: readonly string[]): Program {
  const child = spawn(process.execPath, rxmcpArgs(...args), { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  trackChild(child.pid, `rxmcp ${args.join(' ')}`);
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  if (!args.includes('--stdio')) child.stdout?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

const countCall = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'count', arguments: { n: 5 } } });

describe('programs: graceful shutdown on SIGTERM', { timeout: 120_000 }, () => {
  test('rxmcp serve --stdio: SIGTERM with 3 calls in flight answers all 3, then exits 0', async () => {
    const program = startProgram(['serve', '--stdio']);
    const answers = new Map<number, Record<string, unknown>>();
    createInterface({ input: program.child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (typeof message['id'] === 'number') answers.set(message['id'], message);
    });
    const send = (message: Record<string, unknown>): void => void program.child.stdin?.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '1' } } });
    await until(() => answers.has(0), `the initialize answer; it wrote:\n${program.output()}`, PROCESS_MS);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (const id of [1, 2, 3]) send(countCall(id));
    send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    await until(() => answers.has(9), 'the ping answer (the calls are running)', PROCESS_MS);
    program.child.kill('SIGTERM');
    assert.deepEqual(await program.exited, { code: 0, signal: null }, program.output());
    for (const id of [1, 2, 3]) assert.match(JSON.stringify(answers.get(id)?.['result']), /Counted to 5\./, `call ${id} was answered`);
  });

  test('rxmcp serve (HTTP): SIGTERM with a call in flight answers it, refuses new sessions, then exits 0', async () => {
    const program = startProgram(['serve', '--port', '0']);
    await until(() => /listening at (\S+)/.test(program.output()), `the server to listen; it wrote:\n${program.output()}`, PROCESS_MS);
    const url = (/listening at (\S+)/.exec(program.output()) as RegExpExecArray)[1] as string;
    const mcp = new RawMcp(url);
    await mcp.initialize();
    const call = asStream(await mcp.post(countCall(mcp.id())));
    program.child.kill('SIGTERM');
    await until(() => program.output().includes('stopping (SIGTERM)'), 'the shutdown to start', PROCESS_MS);
    const refused = await new RawMcp(url).post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '0' } } });
    assert.equal(refused.status, 503);
    assert.match(JSON.stringify(await mcp.responseOf(call)), /Counted to 5\./);
    assert.equal(await call.done, 'ended');
    assert.deepEqual(await program.exited, { code: 0, signal: null }, program.output());
    assert.match(program.output(), /stopped/);
  });

  test('rxmcp gateway and rxmcp bridge to-nats: SIGTERM to each with a call in flight through it; the call is answered, each exits 0', async () => {
    await using nats = await startNatsServer();
    const bridge = await startToNats(nats.url, 'slow', { command: [process.execPath, ...programArgs(SLOW_SERVER), '10000'] });
    const port = await freePort();
    const gateway = startProgram(['gateway', '--nats', nats.url, '--name', 'slow', '--port', String(port)]);
    await until(() => /listening at (\S+)/.test(gateway.output()), `the gateway to listen; it wrote:\n${gateway.output()}`, PROCESS_MS);
    const url = (/listening at (\S+)/.exec(gateway.output()) as RegExpExecArray)[1] as string;

    // Through the gateway (the official SDK client): HTTP -> NATS -> bridge -> the server process.
    const sdk = new Client({ name: 'graceful-spec', version: '0.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
    const viaGateway = sdk.callTool({ name: 'slow', arguments: { ms: 1500 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    gateway.child.kill('SIGTERM');
    const viaResult = await viaGateway.catch((error: unknown) => assert.fail(`${String(error)}; the gateway wrote:\n${gateway.output()}\nthe bridge wrote:\n${bridge.stderr()}`));
    assert.match(JSON.stringify(viaResult.content), /slept 1500 ms/);
    assert.deepEqual(await gateway.exited, { code: 0, signal: null }, gateway.output());
    await sdk.close().catch(() => undefined);

    // Straight on NATS to the bridge; SIGTERM to the bridge while the call runs in its server process.
    const connection = await connect({ servers: nats.url });
    try {
      const client = await createClient({ name: 'spec', version: '1', era: 'legacy' }).connect(createNatsClientTransport({ connection, name: 'slow' }));
      const call = client.callTool('slow', { ms: 1500 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      bridge.signal('SIGTERM');
      const result = await call;
      assert.match(JSON.stringify(result.content), /slept 1500 ms/);
      assert.deepEqual(await bridge.exited, { code: 0, signal: null }, bridge.stderr());
      await client.close().catch(() => undefined);
    } finally {
      await connection.close();
    }
  });
});
