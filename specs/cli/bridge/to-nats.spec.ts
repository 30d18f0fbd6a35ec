/**
 * `rxmcp bridge to-nats` against real processes: a nats-server, the bridge (the `rxmcp` command, specs/support/rxmcp-command.ts),
 * and `@modelcontextprotocol/server-everything` (SDK 1.x) as the stdio server it spawns per session. Our
 * client speaks to it over NATS as to any NATS-hosted server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { lastValueFrom, toArray } from 'rxjs';
import { isWireError } from '../../../core/errors.ts';
import type { CallToolResult } from '../../../core/protocol/index.ts';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { PROCESS_MS, isRunning, killChildren, until } from '../../support/interop-processes.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type BridgeProcess, startToNats, stopBridge } from './bridge-processes.ts';

const ROOT = { uri: 'file:///tmp/rxmcp-bridge', name: 'bridge root' };

let nats: NatsServerProcess | undefined;
const connections: NatsConnection[] = [];
const sessions: ClientSession[] = [];

before(async () => {
  nats = await startNatsServer();
});

after(async () => {
  let leftovers: string[] = [];
  try {
    await Promise.allSettled(sessions.map((session) => session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    leftovers = await killChildren();
  } finally {
    await nats?.dispose();
  }
  assert.deepEqual(leftovers, [], 'every bridge and server process had ended');
});

async function connectClient(name: string, options: { readonly roots?: boolean } = {}): Promise<ClientSession> {
  assert.ok(nats !== undefined);
  const connection = await connect({ servers: nats.url });
  connections.push(connection);
  const client = createClient({ era: 'legacy', name: 'bridge-spec-client', version: '0.0.0', ...(options.roots === true ? { roots: () => [ROOT] } : {}) });
  const session = await client.connect(createNatsClientTransport({ connection, name }), { initializeTimeoutMs: PROCESS_MS });
  sessions.push(session);
  return session;
}

function textOf(result: CallToolResult): string {
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('rxmcp bridge to-nats: server-everything on NATS', { timeout: 90_000 }, () => {
  let bridge: BridgeProcess | undefined;

  before(async () => {
    assert.ok(nats !== undefined);
    bridge = await startToNats(nats.url, 'everything');
  });

  test('bridge to-nats - an rxmcp client lists the tools, calls echo, and follows a long operation\'s progress', async () => {
    assert.ok(bridge !== undefined);
    const session = await connectClient('everything');
    assert.equal(session.session.peerInfo?.name, 'mcp-servers/everything', 'the handshake reached server-everything');
    const names = (await session.listTools()).map((tool) => tool.name);
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    assert.equal(textOf(await session.callTool('echo', { message: 'over NATS' }, { timeoutMs: 10_000 })), 'Echo: over NATS');
    const events = await lastValueFrom(session.callTool$('trigger-long-running-operation', { duration: 0.3, steps: 3 }, { progress: true, timeoutMs: 10_000 }).pipe(toArray()));
    assert.deepEqual(events.filter((event) => event.type === 'progress').map((event) => [event.progress, event.total]), [[1, 3], [2, 3], [3, 3]]);
    const last = events.at(-1);
    assert.ok(last?.type === 'result');
    assert.equal(textOf(last.result), 'Long running operation completed. Duration: 0.3 seconds, Steps: 3.');
    assert.equal(bridge.childPids().length, 1, 'one server process for the session');
    const [child] = bridge.childPids() as [number];
    await session.close();
    await until(() => !isRunning(child), 'closing the session stopped its server process', PROCESS_MS);
  });

  test('bridge to-nats - every session gets a process of its own', async () => {
    assert.ok(bridge !== undefined);
    const before = bridge.childPids().length;
    const [first, second] = await Promise.all([connectClient('everything'), connectClient('everything')]);
    const [a, b] = await Promise.all([first.callTool('get-sum', { a: 1, b: 2 }), second.callTool('get-sum', { a: 3, b: 4 })]);
    assert.match(textOf(a), /3/);
    assert.match(textOf(b), /7/);
    assert.equal(bridge.childPids().length, before + 2);
    await Promise.all([first.close(), second.close()]);
  });

  test('bridge to-nats - SIGTERM ends the sessions, stops every server process and exits 0', async () => {
    assert.ok(bridge !== undefined);
    const session = await connectClient('everything');
    assert.equal(textOf(await session.callTool('echo', { message: 'x' })), 'Echo: x');
    const exit = await stopBridge(bridge);
    assert.deepEqual(exit, { code: 0, signal: null }, bridge.stderr());
    assert.match(bridge.stderr(), /stopping \(SIGTERM\): .*then ending 1 session\(s\)/);
    await assert.rejects(session.callTool('echo', { message: 'y' }, { timeoutMs: 10_000 }), (error: unknown) => /Session not found|No MCP server answers/.test(String(error)));
  });
});

describe('rxmcp bridge to-nats: limits and failures', { timeout: 90_000 }, () => {
  test('bridge to-nats - past --max-children a new session is refused with a clear error, and served again once a process is free', async () => {
    assert.ok(nats !== undefined);
    const bridge = await startToNats(nats.url, 'limited', { flags: ['--max-children', '1'] });
    const first = await connectClient('limited');
    await assert.rejects(connectClient('limited'), (error: unknown) => isWireError(error) && /already runs 1 server processes, its limit/.test(error.message));
    await bridge.waitFor(/refused a session: 1 server processes run already \(--max-children 1\)/, 'it reported the refusal');
    await first.close();
    await until(() => bridge.childPids().every((pid) => !isRunning(pid)), 'the first session\'s process ended', PROCESS_MS);
    const again = await connectClient('limited');
    assert.equal(textOf(await again.callTool('echo', { message: 'room again' })), 'Echo: room again');
    await again.close();
    assert.deepEqual(await stopBridge(bridge), { code: 0, signal: null });
  });

  test('bridge to-nats - a command that cannot start fails the handshake with the reason', async () => {
    assert.ok(nats !== undefined);
    // The bridge checks its command before serving (specs/cli/commands/usage.spec.ts): this one exists then,
    // and is gone by the time a session needs a process.
    const directory = await mkdtemp(join(tmpdir(), 'rxmcp-bridge-'));
    const server = join(directory, 'mcp-server');
    await writeFile(server, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    try {
      const bridge = await startToNats(nats.url, 'broken', { command: [server] });
      await rm(server);
      const failure = new RegExp(`could not start ${server.replace(/[.]/g, '\\.')}: ENOENT`);
      await assert.rejects(connectClient('broken'), (error: unknown) => failure.test(String(error)));
      await bridge.waitFor(failure, 'it reported the failed start');
      assert.deepEqual(await stopBridge(bridge), { code: 0, signal: null });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('rxmcp bridge to-nats: takeover when a bridge process dies', { timeout: 90_000 }, () => {
  test('bridge to-nats - SIGKILL the bridge that owns a session: the other bridge starts a new process, replays the handshake, and the next request succeeds', async () => {
    assert.ok(nats !== undefined);
    const bridges = await Promise.all([startToNats(nats.url, 'takeover'), startToNats(nats.url, 'takeover')]);
    const session = await connectClient('takeover', { roots: true });
    assert.equal(textOf(await session.callTool('echo', { message: 'before' })), 'Echo: before');
    const owner = bridges.find((bridge) => bridge.childPids().length === 1);
    const other = bridges.find((bridge) => bridge !== owner);
    assert.ok(owner !== undefined && other !== undefined && other.childPids().length === 0, bridges.map((bridge) => bridge.stderr()).join('\n---\n'));

    owner.signal('SIGKILL');
    await owner.exited;
    // Its server process lost its stdin; server-everything keeps running past that, so the spec ends it (by pid).
    const orphan = owner.childPids()[0] as number;
    if (isRunning(orphan)) process.kill(orphan, 'SIGKILL');
    await until(() => !isRunning(orphan), 'the dead bridge\'s server process is gone');

    assert.equal(textOf(await session.callTool('echo', { message: 'after' }, { timeoutMs: PROCESS_MS })), 'Echo: after');
    assert.match(other.stderr(), /server process \d+ started for a session taken over \(replaying its 2025-11-25 handshake\)/);
    assert.equal(other.childPids().length, 1);
    // The replayed initialize carried the client's capabilities: server-everything registers its roots tool for them.
    await until(async () => (await session.listTools()).some((tool) => tool.name === 'get-roots-list'), 'the new process saw the roots capability', PROCESS_MS);
    assert.match(textOf(await session.callTool('get-roots-list', {}, { timeoutMs: 10_000 })), /bridge root/);
    await session.close();
    await until(() => other.childPids().every((pid) => !isRunning(pid)), 'closing the session stopped the new process', PROCESS_MS);
    assert.deepEqual(await stopBridge(other), { code: 0, signal: null });
  });
  test('bridge to-nats --handover - SIGTERM the owner: it stops its process but leaves the session, which the other bridge takes over', async () => {
    assert.ok(nats !== undefined);
    const bridges = await Promise.all([startToNats(nats.url, 'handover', { flags: ['--handover'] }), startToNats(nats.url, 'handover', { flags: ['--handover'] })]);
    const session = await connectClient('handover');
    assert.equal(textOf(await session.callTool('echo', { message: 'before' })), 'Echo: before');
    const owner = bridges.find((bridge) => bridge.childPids().length === 1);
    const other = bridges.find((bridge) => bridge !== owner);
    assert.ok(owner !== undefined && other !== undefined);

    assert.deepEqual(await stopBridge(owner), { code: 0, signal: null }, owner.stderr());
    assert.match(owner.stderr(), /stopping \(SIGTERM\): .*then leaving 1 session\(s\)/);
    assert.equal(textOf(await session.callTool('echo', { message: 'after' }, { timeoutMs: PROCESS_MS })), 'Echo: after');
    assert.match(other.stderr(), /started for a session taken over/);
    await session.close();
    assert.deepEqual(await stopBridge(other), { code: 0, signal: null });
  });
});
