/**
 * The server every reliability property runs against: `createServer` from the public API with the four kinds
 * of tool the traffic calls (fast, slow, one that reports progress, one that throws), both eras, and a frame
 * limit small enough that oversize frames stay cheap to send.
 */
import { type McpServer, createServer } from '../../index.ts';

/** The frame limit of the fuzz servers, in bytes (oversize frames are sent up to 3 times it). */
export const FRAME_LIMIT = 64 * 1024;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

const count = (value: unknown, fallback: number, most: number): number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? Math.min(value, most) : fallback;

export function fuzzServer(options: { readonly eras?: 'both' | 'legacy' | 'modern' } = {}): McpServer {
  const server = createServer({
    name: 'fuzz-server',
    version: '1.0.0',
    eras: options.eras ?? 'both',
    session: { limits: { maxMessageBytes: FRAME_LIMIT } },
  });
  const object = { type: 'object' } as const;
  server.tool({ name: 'fast', inputSchema: object }, () => 'fast');
  server.tool({ name: 'slow', inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } } }, async (args, context) => {
    await sleep(count(args['ms'], 50, 5000), context.signal);
    return 'slow';
  });
  server.tool({ name: 'progress', inputSchema: { type: 'object', properties: { steps: { type: 'integer' } } } }, async (args, context) => {
    const steps = count(args['steps'], 3, 100);
    for (let step = 1; step <= steps; step++) {
      context.progress({ progress: step, total: steps });
      await sleep(1, context.signal);
    }
    return 'progressed';
  });
  server.tool({ name: 'throws', inputSchema: object }, () => {
    throw new Error('the throws tool threw, as it always does');
  });
  return server;
}
