/**
 * `rxmcp gateway --mesh`: the mesh (rxmcp/mesh, createMesh with its default discovery) on Streamable HTTP (and
 * HTTP+SSE for 2024-11-05 clients), and with `--serve-nats NAME` on NATS too, until SIGINT or SIGTERM. Unlike the
 * named gateway it runs the MCP sessions itself (one session host), so a legacy HTTP session lives in this process
 * only; what the members serve is reached over the NATS connection, one client session per member.
 *
 * `/readyz` follows the NATS connection as the named gateway's does: with the connection down no member answers.
 */
import type { MeshEvent, MeshMember } from '../../mesh/index.ts';
import { createSessionHost } from '../../server/session-host.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { type StopSignal, onStopSignals } from '../../transports/stdio/stop-signals.ts';
import { bearerAuthOf, describeAuth } from '../auth-args.ts';
import { readPrivateKey } from '../gateway-keys.ts';
import { listenOrExplain } from '../listen.ts';
import { withNats } from '../optional-peer.ts';
import { LAST_ANSWERS_MS } from '../stopping.ts';
import type { MeshGatewayArgs } from './gateway-args.ts';
import { bindingSelector } from './mesh-args.ts';

/** One line for the operator per member event. */
function describeEvent(event: MeshEvent): string {
  const member = `member "${event.member.binding}"${event.member.prefix === 'mcp' ? '' : ` (prefix ${event.member.prefix})`}`;
  switch (event.type) {
    case 'joined':
      return `${member} joined: ${event.items} item(s)`;
    case 'relisted':
      return `${member} listed again: ${event.items} item(s)`;
    case 'down':
      return `${member} is down: ${event.reason}`;
    case 'left':
      return `${member} left`;
    case 'skipped':
      return `${member}: ${event.item.kind} ${JSON.stringify(event.item.name)} left out: ${event.reason}`;
  }
}

export async function runMeshGateway(args: MeshGatewayArgs, print: (line: string) => void): Promise<void> {
  const [{ closeNats, connectNats }, { createMesh }, { createIdentitySigner, serveNats }, { watchNatsConnection }] = await withNats(() =>
    Promise.all([import('../bridge/connect.ts'), import('../../mesh/index.ts'), import('../../transports/nats/index.ts'), import('./nats-readiness.ts')]),
  );
  const { mesh: face } = args;
  const identity = args.identityKey === undefined ? undefined : createIdentitySigner({ key: readPrivateKey(args.identityKey), ...(args.identityIssuer === undefined ? {} : { issuer: args.identityIssuer }) });
  const selected = face.select === undefined ? () => true : bindingSelector(face.select);
  const own = face.serveNats;
  // The mesh's own NATS face is left out by its binding too, whatever server name another process announces there.
  const select = (member: MeshMember): boolean => selected(member.binding) && !(own !== undefined && member.binding === own.name && member.prefix === own.prefix);
  const connection = await connectNats(args.nats.url, `rxmcp-gateway-mesh-${face.meshName}`, args.nats.credentials, { maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const mesh = createMesh({
    connection,
    server: { name: face.meshName },
    select,
    naming: face.naming,
    ...(face.discoveryMs === undefined ? {} : { discovery: { intervalMs: face.discoveryMs } }),
    ...(identity === undefined ? {} : { identity }),
    onEvent: (event) => print(describeEvent(event)),
  });
  // One host owns the HTTP sessions: a maximum, idle expiry, and clients that stop reading are dropped.
  const host = createSessionHost(mesh.server, { maxSessions: 1000, idleTimeoutMs: 30 * 60_000 });
  const hostEvents = host.events$.subscribe((event) => {
    if (event.type === 'dropped') print(`session dropped: ${event.reason.message}`);
    else if (event.type === 'refused' && event.reason.code === 'SessionLimit') print(`session refused: ${event.reason.message}`);
  });
  const readiness = watchNatsConnection(connection);
  const http = createStreamableHttpServer({
    server: host,
    path: args.path,
    legacySse: { ssePath: '/sse', messagesPath: '/messages' },
    sse: { retryMs: 1000 },
    health: { readiness: () => readiness.reason() },
    ...(args.auth === undefined ? {} : bearerAuthOf(args.auth.args, args.auth.resource)),
  });
  let serving: Awaited<ReturnType<typeof serveNats>> | undefined;
  const stopAll = async (drainMs: number, listener?: { close(): Promise<void> }): Promise<void> => {
    await Promise.all([http.close({ drainMs, flushMs: LAST_ANSWERS_MS }), serving?.close('end', { drainMs, flushMs: LAST_ANSWERS_MS })]);
    await listener?.close();
    await host.close();
    hostEvents.unsubscribe();
    await mesh.close();
    readiness.stop();
    await closeNats(connection);
  };
  let listening: Awaited<ReturnType<typeof http.listen>>;
  try {
    if (own !== undefined) {
      serving = await serveNats(mesh.server, { connection, name: own.name, prefix: own.prefix, ...(args.replicas === undefined ? {} : { sessionRecords: { replicas: args.replicas } }) });
    }
    mesh.start();
    listening = await listenOrExplain(() => http.listen(args.port, args.host), args.port, args.host);
  } catch (error) {
    await stopAll(0);
    throw error;
  }
  print(`rxmcp gateway for the mesh "${face.meshName}" of the servers on ${args.nats.url}${face.select === undefined ? '' : ` (only ${face.select.join(', ')})`} listening at ${listening.url}`);
  if (own !== undefined) print(`the mesh is served on NATS too, as ${own.prefix}.${own.name}`);
  if (args.auth !== undefined) print(`${describeAuth(args.auth.args, args.auth.resource)}${identity === undefined ? '' : '; the servers are told who each caller is (--identity-key)'}`);
  else if (identity !== undefined) print('note: --identity-key vouches only for authenticated callers, and without --auth-issuer every caller is anonymous');
  let removeSignals = (): void => undefined;
  const signal = await new Promise<StopSignal>((resolve) => (removeSignals = onStopSignals({ graceful: resolve })));
  print(`stopping (${signal}): new requests are refused, requests in flight have ${args.drainMs} ms to be answered; a second signal ends at once`);
  // Sessions drain first (HTTP and NATS at once: their answers come from the members, over the connection), then
  // the listener, the session host, the mesh's member sessions and the connection.
  await stopAll(args.drainMs, listening);
  removeSignals();
  print('stopped');
}
