/**
 * The in-memory medium under test: one fuzz server for all scenarios, each scenario a new memory pair with the
 * JSON codec (so raw, undecodable and oversize bytes reach the server as they would off a wire), a bystander
 * session beside it, and the heap watched. A stalled reader is one that unsubscribes from its end.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Subscription } from 'rxjs';
import { type LocalError, type McpServer, createClient } from '../../index.ts';
import { jsonCodec } from '../../engine.ts';
import { type MemoryTransport, createMemoryPair } from '../../transports/memory/index.ts';
import { Bystander, HeapWatch } from './bystander.ts';
import { type Connection, drive } from './driver.ts';
import { FRAME_LIMIT, fuzzServer } from './fuzz-server.ts';
import { type Frame, renderScenario } from './script.ts';
import type { Scenario, TrafficBounds } from './traffic.ts';
import type { RunResult, TransportUnderTest } from './under-test.ts';

const encoder = new TextEncoder();

class MemoryConnection implements Connection {
  readonly messages: unknown[] = [];
  readonly problems: string[] = [];
  private subscription: Subscription | undefined;
  private closed: { reason: LocalError | undefined } | undefined;

  constructor(readonly client: MemoryTransport) {
    client.status$.subscribe((status) => {
      if (status.type === 'closed') this.closed = { reason: status.reason };
    });
    this.resumeReading();
  }

  async send(frames: readonly Frame[]): Promise<void> {
    for (const frame of frames) {
      if (this.closed !== undefined) return;
      this.client.sendBytes(encoder.encode(frame.text));
    }
  }

  pauseReading(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  resumeReading(): void {
    this.subscription ??= this.client.incoming$.subscribe({
      next: (frame) => {
        if (frame.type === 'message') this.messages.push(frame.payload);
        else this.problems.push(`the client end received a ${frame.type} frame`);
      },
      error: (error: unknown) => this.problems.push(`the client end failed: ${String(error)}`),
    });
  }

  ended(): { reason: string | undefined } | undefined {
    if (this.closed === undefined) return undefined;
    return { reason: this.closed.reason === undefined ? undefined : `${this.closed.reason.code}: ${this.closed.reason.message}` };
  }
}

export function memoryUnderTest(bounds: Partial<TrafficBounds> = {}): TransportUnderTest {
  let server: McpServer | undefined;
  let bystander: Bystander | undefined;
  let heap: HeapWatch | undefined;
  async function setUp(): Promise<{ server: McpServer; bystander: Bystander; heap: HeapWatch }> {
    if (server === undefined || bystander === undefined || heap === undefined) {
      server = fuzzServer();
      const [clientEnd, serverEnd] = createMemoryPair();
      server.accept(serverEnd);
      bystander = new Bystander(await createClient({ name: 'bystander', version: '1.0.0', era: 'legacy' }).connect(clientEnd));
      bystander.start();
      heap = new HeapWatch();
    }
    return { server, bystander, heap };
  }
  return {
    name: 'memory',
    bounds: { maxSteps: 14, maxBurst: 3000, frameLimit: FRAME_LIMIT, canPauseReading: true, eras: ['legacy', 'modern'], ...bounds },
    render: { batches: true },
    async run(scenario: Scenario): Promise<RunResult> {
      const { server, bystander, heap } = await setUp();
      const [clientEnd, serverEnd] = createMemoryPair({ codec: jsonCodec, maxMessageBytes: FRAME_LIMIT });
      const session = server.accept(serverEnd);
      const connection = new MemoryConnection(clientEnd);
      heap.begin();
      const result = await drive(connection, renderScenario(scenario, this.render));
      await clientEnd.close();
      connection.pauseReading();
      // The client went away: its session must close and leave the server.
      const deadline = Date.now() + 5000;
      while (session.state !== 'closed' && Date.now() < deadline) await sleep(5);
      const violations = [...result.violations, ...bystander.takeFailures()];
      if (session.state !== 'closed') violations.push(`the session was still ${session.state} 5 s after its client closed the transport`);
      if (server.sessions.has(session)) violations.push('the server still lists the session after it closed');
      const measured = heap.end();
      if (measured.violation !== undefined) violations.push(measured.violation);
      return { violations, framesSent: result.framesSent, maxHeapBytes: measured.maxHeapBytes };
    },
    async dispose(): Promise<void> {
      await bystander?.stop();
      await server?.close();
    },
  };
}
