/**
 * `rxmcp gateway --nats <url> --name <server> [--prefix p] [--host h] [--port n] [--path /mcp]`: serves the
 * NATS-hosted MCP server `<server>` on Streamable HTTP (and HTTP+SSE) until SIGINT/SIGTERM. Run as many replicas
 * as you like behind a load balancer: they share sessions and SSE events through JetStream.
 */
import { connect } from 'nats';
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
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await listening.close();
  await gateway.close();
  await connection.drain();
}
