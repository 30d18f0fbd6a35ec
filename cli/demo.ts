/**
 * `rxmcp demo`: the embedded default. A server and a client in one process over the in-memory transport,
 * showing the handshake, ping, a request that streams progress, a cancelled request and a clean shutdown.
 * Needs no external server.
 */
import { interval, map, take } from 'rxjs';
import type { RequestHandler } from '../actors/handler-types.ts';
import { isLocalError } from '../core/errors.ts';
import { toolsCall } from '../core/protocol/declarations/tools.ts';
import { connectSession } from '../client/connect-session.ts';
import { createSessionAcceptor } from '../server/session-acceptor.ts';
import { createMemoryPair } from '../transports/memory/index.ts';
import { parseCommand } from './args.ts';

type Print = (line: string) => void;

export const demoUsage = `usage: rxmcp demo

Runs a client and a server in this one process, over the in-memory transport, and prints what happens: the
handshake, a ping, a request that streams progress, a cancelled request, and a clean shutdown. Needs nothing
else running.

options:
  -h, --help       show this help`;

const demoCommand = { command: 'rxmcp demo', usage: demoUsage, options: {} } as const;

/** Runs `rxmcp demo <argv>`; resolves with the exit code (undefined: help was asked for). */
export async function runDemoCommand(argv: readonly string[], print: Print): Promise<number | undefined> {
  if (parseCommand(demoCommand, argv).help) return undefined;
  await runDemo(print);
  return 0;
}

export async function runDemo(print: Print): Promise<void> {
  const requests = new Map<string, RequestHandler>([
    [
      toolsCall.method,
      (params, context) => {
        if (params?.['name'] === 'wait-forever') {
          return new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
        }
        // Values before the last are progress; the last is the result.
        return interval(10).pipe(
          take(4),
          map((step) => (step < 3 ? { progress: step + 1, total: 3, message: `step ${step + 1} of 3` } : { content: [{ type: 'text', text: 'counted to 3' }] })),
        );
      },
    ],
  ]);
  const acceptor = createSessionAcceptor({
    serverInfo: { name: 'rxmcp-demo', version: '0.1.0' },
    capabilities: { tools: {} },
    instructions: 'A demonstration server.',
    handlers: { requests, notifications: new Map() },
  });
  const [clientEnd, serverEnd] = createMemoryPair();
  const server = acceptor.accept(serverEnd);
  server.state$.subscribe((state) => print(`server state: ${state}`));

  const client = await connectSession(clientEnd, { clientInfo: { name: 'rxmcp-demo-client', version: '0.1.0' }, capabilities: {} });
  print(`connected: revision ${client.revision}, server ${client.peerInfo?.name} ${client.peerInfo?.version}`);

  const started = performance.now();
  await client.ping();
  print(`ping answered in ${(performance.now() - started).toFixed(2)} ms`);

  await new Promise<void>((resolve, reject) => {
    client.request$(toolsCall, { name: 'count', arguments: {} }).subscribe({
      next: (event) => print(event.type === 'progress' ? `progress ${event.progress}/${event.total ?? '?'}: ${event.message ?? ''}` : `result: ${JSON.stringify(event.result)}`),
      error: reject,
      complete: resolve,
    });
  });

  const abort = new AbortController();
  const waiting = client.request(toolsCall, { name: 'wait-forever', arguments: {} }, { signal: abort.signal });
  setTimeout(() => abort.abort(), 20);
  try {
    await waiting;
  } catch (error) {
    print(`cancelled request ended with ${isLocalError(error) ? error.code : String(error)}`);
  }

  await client.close();
  await server.closed;
  print('both sessions closed');
}
