/**
 * The NATS medium under test (docs/nats-binding.md), both eras, against a real nats-server started here on a
 * free port. The client is raw nats.js: every request goes out with a reply subject of its own under the
 * client's inbox (a modern one to its call subject with the standard headers and the connection's lane, a legacy
 * one to its session subject once `initialize` on `call.initialize` opened it); frames that are no request go
 * where such a client would put them. Answers are read off the reply subjects. A legacy session ended, for the
 * client, when its subject has no responders any more. A bystander session (the project's NATS client) runs
 * beside it; the heap is watched. A stalled reader has no meaning on core NATS (the server drops slow
 * consumers itself), so the traffic has none here.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MsgHdrs, type NatsConnection, type Subscription, connect, headers as natsHeaders } from '@nats-io/transport-node';
import { type McpServer, createClient } from '../../index.ts';
import { type NatsServing, createNatsClientTransport, serveNats, serverSubjects } from '../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../support/nats-server.ts';
import { Bystander, HeapWatch } from './bystander.ts';
import { type Connection, drive } from './driver.ts';
import { FRAME_LIMIT, fuzzServer } from './fuzz-server.ts';
import { type Frame, MODERN, renderScenario } from './script.ts';
import type { Scenario, TrafficBounds } from './traffic.ts';
import type { RunResult, TransportUnderTest } from './under-test.ts';

const NAME = 'fuzz';
const subjects = serverSubjects('mcp', NAME);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

class NatsConnectionUnderTest implements Connection {
  readonly messages: unknown[] = [];
  readonly problems: string[] = [];
  private readonly inbox = `_INBOX.${randomUUID().replaceAll('-', '')}`;
  private readonly lane = randomUUID();
  private readonly subscription: Subscription;
  private sessionId: string | undefined;
  private endedWith: { reason: string | undefined } | undefined;
  private replies = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly era: Scenario['era'],
  ) {
    this.subscription = nc.subscribe(`${this.inbox}.>`, {
      callback: (error, msg) => {
        if (error !== null) return void this.problems.push(`the client inbox failed: ${error.message}`);
        if (msg.headers?.get('Mcp-Frame') === 'keepalive') return void msg.respond();
        const sessionId = msg.headers?.get('Mcp-Session-Id');
        if (sessionId !== undefined && sessionId !== '') this.sessionId = sessionId;
        if (msg.data.length === 0) return;
        try {
          this.messages.push(JSON.parse(decoder.decode(msg.data)));
        } catch {
          this.problems.push(`the server sent a body that is not JSON on ${msg.subject}`);
        }
      },
    });
  }

  async send(frames: readonly Frame[]): Promise<void> {
    for (const frame of frames) {
      if (this.endedWith !== undefined) return;
      const { subject, headers } = this.route(frame);
      const reply = frame.id === undefined && frame.method !== undefined ? undefined : `${this.inbox}.r.${++this.replies}`;
      this.nc.publish(subject, encoder.encode(frame.text), { headers, ...(reply === undefined ? {} : { reply }) });
    }
    await this.nc.flush();
  }

  private route(frame: Frame): { subject: string; headers: MsgHdrs } {
    const headers = natsHeaders();
    if (frame.method !== undefined) headers.set('Mcp-Method', frame.method);
    if (frame.tool !== undefined) headers.set('Mcp-Name', frame.tool);
    if (this.era === 'modern') {
      headers.set('MCP-Protocol-Version', MODERN);
      headers.set('Mcp-Lane', this.lane);
      if (frame.method === 'notifications/cancelled') return { subject: subjects.cancel, headers };
      return { subject: subjects.call(frame.method ?? 'tools/call') ?? `${subjects.callPrefix}tools.call`, headers };
    }
    if (this.sessionId === undefined) {
      headers.set('Mcp-Client-Inbox', `${this.inbox}.s`);
      return { subject: subjects.call('initialize') ?? `${subjects.callPrefix}initialize`, headers };
    }
    headers.set('Mcp-Session-Id', this.sessionId);
    return { subject: subjects.session(this.sessionId), headers };
  }

  pauseReading(): void {
    throw new Error('core NATS has no stalled reader; the NATS traffic has no pauses');
  }

  resumeReading(): void {}

  ended(): { reason: string | undefined } | undefined {
    return this.endedWith;
  }

  /** Legacy: whether the session still answers on its subject (no responders: it ended). */
  async probe(): Promise<void> {
    if (this.era !== 'legacy' || this.sessionId === undefined || this.endedWith !== undefined) return;
    try {
      await this.nc.request(subjects.session(this.sessionId), encoder.encode(JSON.stringify({ jsonrpc: '2.0', id: 'probe', method: 'ping' })), { timeout: 5000 });
    } catch (error) {
      this.endedWith = { reason: undefined };
      this.problems.push(`the legacy session stopped answering on its subject: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async close(): Promise<void> {
    if (this.sessionId !== undefined) {
      const headers = natsHeaders();
      headers.set('Mcp-Frame', 'close');
      headers.set('Mcp-Session-Id', this.sessionId);
      this.nc.publish(subjects.session(this.sessionId), new Uint8Array(), { headers });
    } else if (this.era === 'modern') {
      const headers = natsHeaders();
      headers.set('Mcp-Frame', 'close');
      headers.set('Mcp-Lane', this.lane);
      this.nc.publish(subjects.cancel, new Uint8Array(), { headers });
    }
    await this.nc.flush();
    this.subscription.unsubscribe();
  }
}

export function natsUnderTest(era: Scenario['era'], bounds: Partial<TrafficBounds> = {}): TransportUnderTest {
  let setup:
    | { nats: NatsServerProcess; serverConnection: NatsConnection; clientConnection: NatsConnection; server: McpServer; serving: NatsServing; bystander: Bystander; heap: HeapWatch }
    | undefined;
  async function setUp(): Promise<NonNullable<typeof setup>> {
    if (setup !== undefined) return setup;
    const nats = await startNatsServer({ jetstream: false });
    const serverConnection = await connect({ servers: nats.url });
    const clientConnection = await connect({ servers: nats.url });
    const server = fuzzServer();
    const serving = await serveNats(server, { connection: serverConnection, name: NAME, sessionRecords: false, maxMessageBytes: FRAME_LIMIT });
    const bystanderConnection = await connect({ servers: nats.url });
    const transport = createNatsClientTransport({ connection: bystanderConnection, name: NAME });
    const bystander = new Bystander(await createClient({ name: 'bystander', version: '1.0.0', era }).connect(transport));
    bystander.start();
    return (setup = { nats, serverConnection, clientConnection, server, serving, bystander, heap: new HeapWatch() });
  }
  return {
    name: `nats ${era}`,
    bounds: { maxSteps: 12, maxBurst: 1500, frameLimit: FRAME_LIMIT, ...bounds, canPauseReading: false, eras: [era] },
    render: { batches: false },
    async run(scenario: Scenario): Promise<RunResult> {
      const { clientConnection, bystander, heap } = await setUp();
      const connection = new NatsConnectionUnderTest(clientConnection, era);
      heap.begin();
      const result = await drive(connection, renderScenario(scenario, this.render));
      await connection.probe();
      await connection.close();
      await sleep(20);
      const violations = [...result.violations, ...connection.problems.filter((problem) => !result.violations.includes(problem)), ...bystander.takeFailures()];
      const measured = heap.end();
      if (measured.violation !== undefined) violations.push(measured.violation);
      return { violations, framesSent: result.framesSent, maxHeapBytes: measured.maxHeapBytes };
    },
    async dispose(): Promise<void> {
      if (setup === undefined) return;
      const { nats, serverConnection, clientConnection, server, serving, bystander } = setup;
      setup = undefined;
      await bystander.stop();
      await serving.close();
      await server.close();
      await clientConnection.close();
      await serverConnection.close();
      await nats.dispose();
    },
  };
}
