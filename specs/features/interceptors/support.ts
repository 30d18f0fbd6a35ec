/**
 * Shared scaffolding of the interceptor specs: a server with the tools they call, a client connected to it over
 * memory in either era, and an interceptor that counts its subscriptions and teardowns.
 */
import { Observable, from } from 'rxjs';
import type { InterceptedRequest, Interceptor } from '../../../actors/interceptors.ts';
import { type ClientOptions, type McpClient, createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { createMemoryPair } from '../../../transports/memory/index.ts';
import { deferred } from '../../support/harness.ts';

export interface Served {
  readonly server: McpServer;
  /** Calls of each tool's handler, by tool name. */
  readonly calls: Map<string, number>;
  /** Resolves with the abort reason once the `hang` tool's signal aborts. */
  readonly hangAborted: Promise<unknown>;
  /** Resolves once the `hang` tool started. */
  readonly hangStarted: Promise<void>;
}

/** A server with the tools, a resource and a prompt the specs use. */
export function servedTools(): Served {
  const server = createServer({ name: 'intercepted', version: '1.0.0' });
  const calls = new Map<string, number>();
  const count = (name: string): number => {
    const next = (calls.get(name) ?? 0) + 1;
    calls.set(name, next);
    return next;
  };
  const aborted = deferred<unknown>();
  const started = deferred<void>();
  server.tool({ name: 'echo', inputSchema: { type: 'object' } }, (args, context) => {
    count('echo');
    return { content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: { args, meta: context.meta ?? null } };
  });
  server.tool({ name: 'other' }, () => {
    count('other');
    return 'other';
  });
  server.tool({ name: 'steps' }, () => {
    count('steps');
    return from([{ progress: 1, total: 3 }, { progress: 2, total: 3 }, { progress: 3, total: 3 }, 'stepped']);
  });
  server.tool({ name: 'reported' }, async (_args, context) => {
    count('reported');
    context.progress({ progress: 1, message: 'one' });
    context.progress({ progress: 2, message: 'two' });
    await Promise.resolve();
    return 'reported';
  });
  server.tool({ name: 'flaky' }, () => {
    if (count('flaky') === 1) throw new Error('first call fails');
    return 'steady';
  });
  server.tool({ name: 'hang' }, (_args, context) => {
    count('hang');
    started.resolve();
    return new Promise<string>((_resolve, reject) => {
      context.signal.addEventListener('abort', () => {
        aborted.resolve(context.signal.reason);
        reject(context.signal.reason);
      });
    });
  });
  server.tool({ name: 'ask' }, async (_args, context) => {
    count('ask');
    const answer = await context.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${String(answer.content?.['name'] ?? answer.action)}`;
  });
  server.resource({ uri: 'memo://a', name: 'a', mimeType: 'text/plain' }, () => 'a');
  server.resource({ uri: 'memo://b', name: 'b', mimeType: 'text/plain' }, () => 'b');
  server.prompt({ name: 'greet' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }));
  server.prompt({ name: 'part' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'bye' } }] }));
  return { server, calls, hangAborted: aborted.promise, hangStarted: started.promise };
}

/** A client that answers form elicitation with the name "Ada". */
export function askingClient(era: 'legacy' | 'modern', options: Partial<ClientOptions> = {}): McpClient {
  return createClient({
    name: 'intercepting',
    version: '1.0.0',
    era,
    elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
    ...options,
  });
}

/** Connects `client` to `server` over memory. */
export async function connect(server: McpServer, client: McpClient): Promise<ClientSession> {
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  return client.connect(clientEnd);
}

/** Counts subscriptions to and teardowns of what an interceptor returns; passes everything through. */
export class CountingInterceptor {
  subscribed = 0;
  tornDown = 0;
  readonly seen: InterceptedRequest[] = [];

  readonly interceptor: Interceptor = (request, next) =>
    new Observable((subscriber) => {
      this.subscribed++;
      this.seen.push(request);
      const inner = next(request).subscribe(subscriber);
      return () => {
        this.tornDown++;
        inner.unsubscribe();
      };
    });
}
