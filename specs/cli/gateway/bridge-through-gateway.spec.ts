/**
 * The whole distributed path with real parts: `@modelcontextprotocol/server-everything` on stdio, put on NATS by
 * `rxmcp bridge to-nats` (a real process), served over Streamable HTTP by `rxmcp gateway` (a real process), and
 * called by the official SDK 1.x client over HTTP: tools listed and called, progress included.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type BridgeProcess, startToNats, stopBridge } from '../bridge/bridge-processes.ts';
import { rxmcpArgs } from '../../support/rxmcp-command.ts';
import { freePort, type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { PROCESS_MS, REPO_ROOT, killChildren, trackChild, until } from '../../support/interop-processes.ts';

const NAME = 'everything';

describe('gateway in front of a bridged stdio server', () => {
  let nats: NatsServerProcess;
  let bridge: BridgeProcess;
  let gatewayUrl: string;
  let gatewayPid: number;
  let gatewayExited: Promise<unknown>;

  before(async () => {
    nats = await startNatsServer();
    bridge = await startToNats(nats.url, NAME);
    const port = await freePort();
    const child = spawn(process.execPath, rxmcpArgs('gateway', '--nats', nats.url, '--name', NAME, '--port', String(port)), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    gatewayPid = child.pid as number;
    trackChild(gatewayPid, 'rxmcp gateway');
    gatewayExited = new Promise((resolve) => child.once('exit', resolve));
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    await until(() => /listening at (\S+)/.test(output), `the gateway to listen; it wrote:\n${output}`, PROCESS_MS);
    gatewayUrl = (/listening at (\S+)/.exec(output) as RegExpExecArray)[1] as string;
  });

  after(async () => {
    process.kill(gatewayPid, 'SIGTERM');
    await Promise.race([gatewayExited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    await stopBridge(bridge);
    await killChildren();
    await nats.dispose();
  });

  test('gateway - the official SDK client lists and calls server-everything tools through gateway, NATS and bridge', async () => {
    const client = new Client({ name: 'sdk-through-gateway', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gatewayUrl)));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      assert.ok(names.includes('echo'), `echo among ${names.join(', ')}`);
      const echoed = await client.callTool({ name: 'echo', arguments: { message: 'across the bus' } });
      assert.match(JSON.stringify(echoed.content), /across the bus/);
      const progress: number[] = [];
      const slow = names.find((name) => name === 'trigger-long-running-operation' || name === 'longRunningOperation');
      assert.ok(slow !== undefined, `a long-running tool among ${names.join(', ')}`);
      const done = await client.callTool({ name: slow, arguments: { duration: 1, steps: 3 } }, CallToolResultSchema, {
        onprogress: (event) => void progress.push(event.progress),
        timeout: 15_000,
      });
      assert.match(JSON.stringify(done.content), /complete|Long running operation/i);
      assert.deepEqual(progress, [1, 2, 3], 'every progress step through the whole chain');
    } finally {
      await client.close();
    }
  });
});
