/**
 * The Streamable HTTP medium under test, legacy era (a session opened by `initialize`, `Mcp-Session-Id` on every
 * later POST) or modern era (2026-07-28: every POST stands alone, with `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers). One server on 127.0.0.1 for all scenarios; each frame is one raw POST (node:http, so a
 * body can be anything and a response can be left unread); answers are read from JSON bodies and SSE streams
 * alike. The session ended, for the client, when a POST naming it is refused with 404 (the body says why). A
 * bystander session (the project's own HTTP client) runs beside it; the heap is watched.
 */
import { Agent, type IncomingMessage, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type McpServer, createClient } from '../../index.ts';
import { type StreamableHttpServer, createStreamableHttpClientTransport, createStreamableHttpServer } from '../../transports/http/index.ts';
import { SseParser } from '../support/sse-test-parser.ts';
import { Bystander, HeapWatch } from './bystander.ts';
import { type Connection, drive } from './driver.ts';
import { FRAME_LIMIT, fuzzServer } from './fuzz-server.ts';
import { type Frame, MODERN, renderScenario } from './script.ts';
import type { Scenario, TrafficBounds } from './traffic.ts';
import type { RunResult, TransportUnderTest } from './under-test.ts';

/** POSTs a burst keeps open at once: past the in-flight cap of 256, within the test machine's sockets. */
const BURST_CONCURRENCY = 400;

class HttpConnection implements Connection {
  readonly messages: unknown[] = [];
  readonly problems: string[] = [];
  private sessionId: string | undefined;
  private endedWith: { reason: string | undefined } | undefined;
  private paused = false;
  private readonly open = new Set<IncomingMessage>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly url: URL,
    private readonly agent: Agent,
    private readonly era: Scenario['era'],
  ) {}

  async send(frames: readonly Frame[]): Promise<void> {
    for (const frame of frames) {
      if (this.endedWith !== undefined) return;
      // Frames of a burst overlap; any other frame waits until the ones before it were taken (headers back),
      // so ordering that matters (a cancellation after its request) holds.
      while (this.pending.size >= BURST_CONCURRENCY) await Promise.race(this.pending);
      const posted = this.post(frame);
      const tracked = posted.headers.finally(() => this.pending.delete(tracked));
      this.pending.add(tracked);
      if (frames.length === 1) await posted.headers;
    }
  }

  /** One POST; `headers` settles once the response head arrived (or the request failed). */
  private post(frame: Frame): { headers: Promise<void> } {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.era === 'modern') {
      headers['mcp-protocol-version'] = MODERN;
      if (frame.method !== undefined) headers['mcp-method'] = frame.method;
      if (frame.tool !== undefined) headers['mcp-name'] = frame.tool;
    } else if (this.sessionId !== undefined) {
      headers['mcp-session-id'] = this.sessionId;
      headers['mcp-protocol-version'] = '2025-03-26';
    }
    return {
      headers: new Promise<void>((resolve) => {
        const outgoing = request(this.url, { method: 'POST', agent: this.agent, headers }, (response) => {
          resolve();
          this.read(response, frame);
        });
        outgoing.on('error', (error) => {
          if (this.endedWith === undefined) this.problems.push(`a POST failed: ${error.message}`);
          resolve();
        });
        outgoing.end(frame.text);
      }),
    };
  }

  private read(response: IncomingMessage, frame: Frame): void {
    const status = response.statusCode ?? 0;
    const id = response.headers['mcp-session-id'];
    if (typeof id === 'string' && frame.id === 'init') this.sessionId = id;
    if (this.paused) response.pause();
    this.open.add(response);
    const sse = String(response.headers['content-type'] ?? '').startsWith('text/event-stream');
    const parser = new SseParser();
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      if (!sse) body += chunk;
      else for (const event of parser.push(chunk)) if (event.data !== '') this.take(event.data, status);
    });
    response.on('error', () => undefined);
    response.on('close', () => {
      this.open.delete(response);
      if (sse || body === '') {
        if (status >= 500) this.problems.push(`HTTP ${status} for ${frame.text.slice(0, 80)}`);
        return;
      }
      if (status === 404 && this.sessionId !== undefined) this.endedWith = { reason: `404 ${body.slice(0, 200)}` };
      if (status >= 500) this.problems.push(`HTTP ${status} for ${frame.text.slice(0, 80)}: ${body.slice(0, 200)}`);
      this.take(body, status);
    });
  }

  private take(text: string, status: number): void {
    try {
      this.messages.push(JSON.parse(text));
    } catch {
      // A plain-text error body (413, 406...) answers no id, which is allowed; a 2xx must be JSON.
      if (status < 300) this.problems.push(`a ${status} answer that is not JSON: ${text.slice(0, 80)}`);
    }
  }

  pauseReading(): void {
    this.paused = true;
    for (const response of this.open) response.pause();
  }

  resumeReading(): void {
    this.paused = false;
    for (const response of this.open) response.resume();
  }

  ended(): { reason: string | undefined } | undefined {
    return this.endedWith;
  }

  /** Ends the session (DELETE) and drops every open stream. */
  async close(): Promise<void> {
    for (const response of this.open) response.destroy();
    await Promise.allSettled(this.pending);
    if (this.sessionId === undefined) return;
    await new Promise<void>((resolve) => {
      const outgoing = request(this.url, { method: 'DELETE', agent: this.agent, headers: { 'mcp-session-id': this.sessionId ?? '' } }, (response) => {
        response.resume();
        response.on('close', resolve);
      });
      outgoing.on('error', () => resolve());
      outgoing.end();
    });
  }
}

export function httpUnderTest(era: Scenario['era'], bounds: Partial<TrafficBounds> = {}): TransportUnderTest {
  let setup: { server: McpServer; http: StreamableHttpServer; url: URL; agent: Agent; bystander: Bystander; heap: HeapWatch } | undefined;
  async function setUp(): Promise<NonNullable<typeof setup>> {
    if (setup !== undefined) return setup;
    const server = fuzzServer();
    const http = createStreamableHttpServer({ server, maxBodyBytes: FRAME_LIMIT });
    const url = new URL((await http.listen()).url);
    const agent = new Agent({ keepAlive: true, maxSockets: BURST_CONCURRENCY + 16 });
    const bystander = new Bystander(await createClient({ name: 'bystander', version: '1.0.0', era }).connect(createStreamableHttpClientTransport(url)));
    bystander.start();
    return (setup = { server, http, url, agent, bystander, heap: new HeapWatch() });
  }
  return {
    name: `http ${era}`,
    bounds: { maxSteps: 12, maxBurst: 1500, frameLimit: FRAME_LIMIT, canPauseReading: true, ...bounds, eras: [era] },
    render: { batches: era === 'legacy' },
    async run(scenario: Scenario): Promise<RunResult> {
      const { url, agent, bystander, heap, server } = await setUp();
      const connection = new HttpConnection(url, agent, era);
      heap.begin();
      const result = await drive(connection, renderScenario(scenario, this.render));
      await connection.close();
      const violations = [...result.violations, ...bystander.takeFailures()];
      // A deleted legacy session leaves nothing behind; modern POSTs leave their caller one idle pooled connection
      // (a burst's surplus closes as it ends), which the bystander, the same anonymous caller, shares.
      const deadline = Date.now() + 5000;
      while (server.sessions.size > 1 && Date.now() < deadline) await sleep(10);
      if (server.sessions.size > 1) violations.push(`${server.sessions.size - 1} sessions still open 5 s after the client deleted its session and closed its streams`);
      const measured = heap.end();
      if (measured.violation !== undefined) violations.push(measured.violation);
      return { violations, framesSent: result.framesSent, maxHeapBytes: measured.maxHeapBytes };
    },
    async dispose(): Promise<void> {
      if (setup === undefined) return;
      await setup.bystander.stop();
      setup.agent.destroy();
      await setup.http.close();
      await setup.server.close();
      setup = undefined;
    },
  };
}
