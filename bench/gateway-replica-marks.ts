/**
 * What the stream-start marker costs a legacy call through `rxmcp gateway` (one extra JetStream publish per POST
 * stream of a shared session, so followers can answer its requests should this replica die): sequential
 * `tools/call`s of one session through a gateway on a real nats-server, in rounds alternating the marker on and off
 * (the store's `startStream` removed), CPU of this process (gateway, server and client all in it) per call.
 *
 *   npx tsx bench/gateway-replica-marks.ts [calls per round = 200] [rounds = 6] [aa]
 */
import { connect } from '@nats-io/transport-node';
import { createGateway } from '../cli/gateway/gateway.ts';
import { createClient } from '../client/create-client.ts';
import { createServer } from '../server/create-server.ts';
import { createStreamableHttpClientTransport } from '../transports/http/index.ts';
import { JetStreamEventStore, serveNats } from '../transports/nats/index.ts';
import { startNatsServer } from '../specs/support/nats-server.ts';

const calls = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 6);
/** `aa`: the marker stays on in every round (how far apart two identical halves come out: the noise floor). */
const control = process.argv[4] === 'aa';
const nats = await startNatsServer();
const serverConnection = await connect({ servers: nats.url });
const gatewayConnection = await connect({ servers: nats.url });
const server = createServer({ name: 'bench', version: '0' });
server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => String(args['text']));
const serving = await serveNats(server, { connection: serverConnection, name: 'bench' });
const gateway = await createGateway({ connection: gatewayConnection, name: 'bench' });
const listening = await gateway.http.listen(0, '127.0.0.1');
const session = await createClient({ name: 'bench', version: '0', era: 'legacy' }).connect(createStreamableHttpClientTransport(listening.url));
const startStream = Object.getOwnPropertyDescriptor(JetStreamEventStore.prototype, 'startStream');
const figures: Record<'on' | 'off', number[]> = { on: [], off: [] };
for (let index = 0; index < 20; index++) await session.callTool('echo', { text: 'warm' });
for (let round = 0; round < rounds; round++) {
  // ABBA order: a drift of the machine's load over the run weighs on both alike.
  const mode = round % 4 === 0 || round % 4 === 3 ? 'on' : 'off';
  if (mode === 'off' && !control) delete (JetStreamEventStore.prototype as { startStream?: unknown }).startStream;
  else if (startStream !== undefined) Object.defineProperty(JetStreamEventStore.prototype, 'startStream', startStream);
  const before = process.cpuUsage();
  for (let index = 0; index < calls; index++) await session.callTool('echo', { text: 'x' });
  const used = process.cpuUsage(before);
  figures[mode].push((used.user + used.system) / calls);
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
console.log(JSON.stringify({ calls, rounds, cpuMicrosPerCall: { markerOn: median(figures.on), markerOff: median(figures.off) }, ratio: median(figures.on) / median(figures.off), loadavg: (await import('node:os')).loadavg() }));
await session.close();
await listening.close();
await gateway.close();
await serving.close('end');
await server.close();
await serverConnection.close();
await gatewayConnection.close();
await nats.dispose();
