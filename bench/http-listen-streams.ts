/**
 * Heap per open modern-era (2026-07-28) `subscriptions/listen` stream on rxmcp's Streamable HTTP endpoint: the
 * server a child process (bench/transport-programs.ts, run with --expose-gc), the listens raw node:http POSTs
 * from this process, each held open after its acknowledgement arrived. A benchmark, not a test.
 *
 *   node --import tsx bench/http-listen-streams.ts [--n=500] [--warmup=50] [--loader=tsx|strip]
 *
 * Heap (after gc) is measured in the server once `--warmup` listens are open and again after `--n` more; the
 * difference over n is the cost of one listen: its connection, its POST's transport and whatever the server
 * keeps for it. The endpoint's default `maxListenStreams` (1000) bounds it; n + warmup must stay below that.
 */
import { Agent, type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { type Loader, argInt, argLoader, emitResult, fmt, isMain } from './lib.ts';
import { Program } from './transport-lib.ts';

const MODERN = '2026-07-28';
const listenBody = (id: number): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      notifications: { toolsListChanged: true },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'listen-bench', version: '0.0.0' },
      },
    },
  });

interface Open {
  readonly request: ClientRequest;
  readonly response: IncomingMessage;
}

/** One listen: resolves once its stream brought the acknowledgement; the stream stays open. */
function listen(agent: Agent, url: URL, id: number): Promise<Open> {
  const body = listenBody(id);
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
        'mcp-protocol-version': MODERN,
        'mcp-method': 'subscriptions/listen',
      },
    }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`listen ${id} answered ${response.statusCode}`));
        return;
      }
      let seen = '';
      response.setEncoding('utf8');
      const onData = (chunk: string): void => {
        seen += chunk;
        if (!seen.includes('notifications/subscriptions/acknowledged')) return;
        response.off('data', onData);
        // Keep reading (and dropping) whatever else comes, so the stream never backs up.
        response.on('data', () => undefined);
        resolve({ request, response });
      };
      response.on('data', onData);
    });
    request.once('error', reject);
    request.end(body);
  });
}

async function openListens(agent: Agent, url: URL, from: number, count: number, into: Open[]): Promise<void> {
  for (let i = 0; i < count; i += 25) {
    into.push(...(await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, k) => listen(agent, url, from + i + k)))));
  }
}

export interface ListenFigures {
  readonly n: number;
  readonly warmup: number;
  readonly loader: Loader;
  readonly heapBytesPerListen: number;
  readonly rssBytesPerListen: number;
  readonly baselineHeapBytes: number;
  readonly afterHeapBytes: number;
  readonly command: string;
}

export async function measureListens(n: number, warmup: number, loader: Loader): Promise<ListenFigures> {
  const program = Program.start(loader, ['--transport=http', '--impl=rxmcp', '--mode=json'], ['--expose-gc']);
  const url = new URL(String((await program.ready)['url']));
  const agent = new Agent({ keepAlive: false, maxSockets: n + warmup + 10 });
  const open: Open[] = [];
  await openListens(agent, url, 1, warmup, open);
  const baseline = (await program.command('measure')) as { heapUsed: number; rss: number };
  await openListens(agent, url, warmup + 1, n, open);
  const after = (await program.command('measure')) as { heapUsed: number; rss: number };
  for (const { request } of open) request.destroy();
  agent.destroy();
  await program.stop();
  const figures: ListenFigures = {
    n,
    warmup,
    loader,
    heapBytesPerListen: (after.heapUsed - baseline.heapUsed) / n,
    rssBytesPerListen: (after.rss - baseline.rss) / n,
    baselineHeapBytes: baseline.heapUsed,
    afterHeapBytes: after.heapUsed,
    command: ['node', ...program.child.spawnargs.slice(1)].join(' '),
  };
  console.log(`rxmcp, open subscriptions/listen streams (${warmup} warm-up + ${n}): ${fmt(figures.heapBytesPerListen / 1024)} KiB heap, ${fmt(figures.rssBytesPerListen / 1024)} KiB RSS per listen`);
  return figures;
}

if (isMain(import.meta.url)) {
  emitResult(await measureListens(argInt('n', 500), argInt('warmup', 50), argLoader()));
}
