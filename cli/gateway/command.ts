/**
 * `rxmcp gateway --nats <url> --name <server> [--prefix p] [--host h] [--port n] [--path /mcp]`: serves the
 * NATS-hosted MCP server `<server>` on Streamable HTTP (and HTTP+SSE) until SIGINT/SIGTERM, then shuts down
 * gracefully (a second signal ends at once). Run as many replicas
 * as you like behind a load balancer: they share sessions and SSE events through JetStream.
 */
import { connect } from 'nats';
import { type StopSignal, onStopSignals } from '../../core/stop-signals.ts';
import { createGateway } from './gateway.ts';

export interface GatewayArgs {
  readonly nats: string;
  readonly name: string;
  readonly prefix: string;
  readonly host: string;
  readonly port: number;
  readonly path: string;
}

export function parseGatewayArgs(args: readonly string[]): GatewayArgs {
  const values: Record<string, string> = { nats: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', prefix: 'mcp', host: '127.0.0.1', port: process.env['PORT'] ?? '3000', path: '/mcp' };
  for (let index = 0; index < args.length; index += 2) {
    const flag = args[index] ?? '';
    const value = args[index + 1];
    const key = flag.replace(/^--/, '');
    if (!flag.startsWith('--') || !['nats', 'name', 'prefix', 'host', 'port', 'path'].includes(key) || value === undefined) {
      throw new RangeError(`unknown or incomplete option for gateway: ${flag}`);
    }
    values[key] = value;
  }
  const port = Number(values['port']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`not a port: ${values['port']}`);
  if (values['name'] === undefined) throw new RangeError('gateway needs --name <the MCP server name on NATS>');
  return { nats: values['nats'] as string, name: values['name'], prefix: values['prefix'] as string, host: values['host'] as string, port, path: values['path'] as string };
}

export async function runGateway(args: GatewayArgs, print: (line: string) => void): Promise<void> {
  const connection = await connect({ servers: args.nats, maxReconnectAttempts: -1, reconnectTimeWait: 250, name: `rxmcp-gateway-${args.name}` });
  const gateway = await createGateway({ connection, name: args.name, prefix: args.prefix, http: { path: args.path, legacySse: { ssePath: '/sse', messagesPath: '/messages' } } });
  const listening = await gateway.http.listen(args.port, args.host);
  print(`rxmcp gateway for "${args.name}" on ${args.nats} listening at ${listening.url}`);
  let removeSignals = (): void => undefined;
  const signal = await new Promise<StopSignal>((resolve) => (removeSignals = onStopSignals({ graceful: resolve })));
  print(`stopping (${signal}): new requests are refused, requests in flight have ${DRAIN_MS} ms to be answered; a second signal ends at once`);
  // Sessions drain first, while the sockets are open; closing the gateway's HTTP side stops its listener too.
  await gateway.close({ drainMs: DRAIN_MS });
  await listening.close();
  await connection.drain();
  removeSignals();
  print('stopped');
}

/** How long requests in flight may still be answered once the gateway is told to stop. */
const DRAIN_MS = 10_000;
