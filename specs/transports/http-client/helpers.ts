/**
 * Shared helpers of the HTTP client specs: a `createClient` session over the HTTP client transport to a mock
 * server, with the transport's events recorded, and the end-of-test checks.
 */
import assert from 'node:assert/strict';
import type { LegacyRevision } from '../../../core/protocol/versions.ts';
import { type ClientOptions, createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import {
  type HttpClientEvent,
  type StreamableHttpClientOptions,
  type StreamableHttpClientTransport,
  createStreamableHttpClientTransport,
} from '../../../transports/http/client/index.ts';
import type { Json, MockServer } from '../../support/http-mock-server.ts';

export interface Connected {
  readonly session: ClientSession;
  readonly transport: StreamableHttpClientTransport;
  readonly events: HttpClientEvent[];
}

export interface ConnectOptions {
  readonly transport?: StreamableHttpClientOptions;
  readonly client?: Omit<ClientOptions, 'name' | 'version'>;
  readonly protocolVersion?: LegacyRevision;
  readonly url?: string;
}

export async function connect(mock: MockServer, options: ConnectOptions = {}): Promise<Connected> {
  const transport = createStreamableHttpClientTransport(options.url ?? mock.url, options.transport);
  const events: HttpClientEvent[] = [];
  transport.events$.subscribe((event) => events.push(event));
  const client = createClient({ era: 'legacy',
    name: 'http-client-spec',
    version: '1.0.0',
    ...options.client,
    ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
  });
  const session = await client.connect(transport, { initializeTimeoutMs: 5000 });
  return { session, transport, events };
}

/** Every message the client POSTed matched its schema. */
export function assertValid(mock: MockServer): void {
  assert.deepEqual(mock.violations, [], 'every message the client sent is schema-valid');
}

/** Closes the session and the mock; checks the messages. */
export async function finish(mock: MockServer, connected?: Connected): Promise<void> {
  await connected?.session.close();
  assertValid(mock);
  await mock.close();
}

/** What the client POSTed: `initialize` first, then the rest sorted (concurrent POSTs arrive in any order). */
export function methodsPosted(mock: MockServer): string[] {
  const [first, ...rest] = mock.posts().map((request) => {
    const body = request.body as Json;
    return typeof body['method'] === 'string' ? body['method'] : `response:${String(body['id'])}`;
  });
  return first === undefined ? [] : [first, ...rest.sort()];
}

/** Waits (real time, bounded) until `predicate` holds. */
export async function until(predicate: () => boolean, what: string, maxMs = 2000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${maxMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export const textOf = (result: { readonly content: readonly unknown[] }): string => {
  const first = result.content[0] as { readonly text?: string } | undefined;
  return first?.text ?? '';
};

export const sumTool = (args: Json): Json => ({ content: [{ type: 'text', text: String(Number(args['a']) + Number(args['b'])) }] });
