/** The transports' sections of bench/RESULTS.md (see bench/transports.ts). */
import { clientsMethod } from './contender-hosts.ts';
import type { Figures } from './harness.ts';
import { type HttpContender, httpContenders } from './http-calls.ts';
import { type IdleImpl, idleImpls, idleLabels } from './http-idle-sessions.ts';
import { type Loader, fmt } from './lib.ts';
import { levelTitle } from './contenders-levels.ts';
import { rel, table, tag, verdict } from './markdown.ts';
import { type StdioContender, stdioContenders } from './stdio-calls.ts';
import type { PeerSample } from './transport-lib.ts';
import type { TransportsRun } from './transports.ts';

const throughputTarget = 0.5;
const idleHeapTarget = 8 * 1024;

interface Load<N extends string> {
  readonly title: string;
  readonly figures: Record<N, Figures>;
  readonly server: Record<N, number>;
}

const pct = (value: number, floor: number): string => `${fmt((100 * value) / floor, 1)} %`;
const us = (value: number): string => `${fmt(value, 1)} µs`;

/** One row per contender: calls/s and its share of the floor's per load, then CPU per call (client, server) per load. */
function loadTable<N extends string>(names: readonly N[], loads: readonly Load<N>[], loader: Loader): string {
  const header = ['contender', ...loads.flatMap((l) => [`calls/s, ${l.title}`, 'of floor']), ...loads.map((l) => `CPU/call client + server, ${l.title}`)];
  const rows = names.map((name) => [
    `${(loads[0]?.figures[name] as Figures).label} (${tag(loader)})`,
    ...loads.flatMap((l) => [fmt(l.figures[name].medianOpsPerSec, 0), pct(l.figures[name].medianOpsPerSec, l.figures['floor' as N].medianOpsPerSec)]),
    ...loads.map((l) => `${us(l.figures[name].medianCpuUsPerOp)} + ${us(l.server[name])}`),
  ]);
  return table(header, rows);
}

function sampleLines<N extends string>(names: readonly N[], loads: readonly Load<N>[], prefix: string): string[] {
  return loads.flatMap((l) => names.map((name) => {
    const samples = l.figures[name].samples as readonly PeerSample[];
    return `- ${prefix}, ${l.title}, ${l.figures[name].label}: calls/s ${samples.map((s) => fmt(s.opsPerSec, 0)).join(', ')}; ` +
      `client CPU µs ${samples.map((s) => fmt(s.cpuUsPerOp, 1)).join(', ')}; server CPU µs ${samples.map((s) => fmt(s.peerCpuUsPerOp, 1)).join(', ')}`;
  }));
}

const share = (figures: Record<string, Figures>, name: string): number =>
  (figures[name]?.medianOpsPerSec ?? Number.NaN) / (figures['floor']?.medianOpsPerSec ?? Number.NaN);

/** calls/s of each contender over rxmcp's at each load (the chart of throughput against concurrency, as ratios). */
function relativeTable<N extends string>(names: readonly N[], loads: readonly Load<N>[], rxmcp: N, loader: Loader): string {
  return table(['contender', ...loads.map((l) => `÷ rxmcp, ${l.title}`)], names.map((name) => [
    `${(loads[0]?.figures[name] as Figures).label} (${tag(loader)})`,
    ...loads.map((l) => `${fmt(l.figures[name].medianOpsPerSec / l.figures[rxmcp].medianOpsPerSec, 2)}×`),
  ]));
}

export function transportsMarkdown({ options, stdio, http, idle }: TransportsRun): { sections: string; commands: string[] } {
  const { window } = options;
  const stdioLoads = stdio.map(({ result }) => ({
    loader: result.loader,
    loads: result.loads.map((l) => ({ title: levelTitle(l.width), figures: l.figures, server: l.serverCpuUsPerCall })) as Load<StdioContender>[],
  }));
  const httpLoads = http.map(({ result }) => ({
    loader: result.loader,
    sessions: result.sessions,
    loads: [
      ...result.loads.map((l) => ({ title: levelTitle(l.width), figures: l.figures, server: l.serverCpuUsPerCall })),
      { title: `${result.sessions} sessions`, figures: result.concurrentSessions.figures, server: result.concurrentSessions.serverCpuUsPerCall },
    ] as Load<HttpContender>[],
  }));
  const levelsOf = (levels: readonly number[] | undefined): string => (levels ?? []).map(levelTitle).join(', ');

  const targetRows: string[][] = [];
  for (const { result } of stdio) {
    const f = result.windowed.figures;
    targetRows.push([`stdio: rxmcp ≥ 50 % of the floor's calls/s at ${window} in flight (SDK ~19 %)`, `${tag(result.loader)}: rxmcp ${pct(share(f, 'rxmcp'), 1)}, SDK ${pct(share(f, 'sdk'), 1)}`,
      verdict(share(f, 'rxmcp') >= throughputTarget)]);
  }
  for (const { result } of http) {
    const f = result.windowed.figures;
    const [json, sse] = [share(f, 'rxmcpJson'), share(f, 'rxmcpSse')];
    targetRows.push([`HTTP: rxmcp ≥ 50 % of the floor's calls/s at ${window} in flight (SDK ~5 %)`,
      `${tag(result.loader)}: rxmcp json ${pct(json, 1)}, sse ${pct(sse, 1)}; SDK json ${pct(share(f, 'sdkJson'), 1)}, SSE ${pct(share(f, 'sdkSse'), 1)}`,
      `json: ${verdict(json >= throughputTarget)}, sse: ${verdict(sse >= throughputTarget)}`]);
  }
  for (const result of idle) {
    const f = result.figures;
    const worst = Math.max(f.rxmcpSse.heapBytesPerSession, f.rxmcpJson.heapBytesPerSession);
    targetRows.push([`HTTP: rxmcp ≤ 8 KiB heap per idle session (SDK ~52 KiB)`,
      `${tag(result.loader)}: rxmcp sse ${fmt(f.rxmcpSse.heapBytesPerSession / 1024)} KiB, json ${fmt(f.rxmcpJson.heapBytesPerSession / 1024)} KiB; SDK ${fmt(f.sdk.heapBytesPerSession / 1024)} KiB`,
      verdict(worst <= idleHeapTarget)]);
  }

  const idleRows = idle.flatMap((result) => idleImpls.map((impl: IdleImpl) => {
    const f = result.figures[impl];
    return [`${idleLabels[impl]} (${tag(result.loader)})`, `${fmt(f.heapBytesPerSession / 1024)} KiB (${fmt(f.heapBytesPerSession, 0)} B)`, `${fmt(f.rssBytesPerSession / 1024)} KiB`,
      fmt(f.heapBytesPerSession / result.figures.sdk.heapBytesPerSession, 3), fmt(f.heapBytesPerSession / result.figures.rxmcpSse.heapBytesPerSession, 2), `${fmt(f.serverSessions, 0)}`];
  }));
  const primaryIdle = idle[0];
  const failed = http.flatMap(({ result }) => httpContenders.flatMap((name) => {
    const f = result.failures[name];
    return f === undefined ? [] : [`${tag(result.loader)}, ${result.sequential.figures[name].label}: ${fmt(f.count, 0)} (first: ${f.first})`];
  }));
  const warnings = http.map(({ result }) => `${tag(result.loader)}: ${fmt(result.listenerWarnings, 0)}`).join(', ');
  const s = options.stdio;
  const h = options.http;
  // Results written before the client hosts existed carry no placement: theirs was the shared process.
  const stdioClients = stdio[0]?.result.clientProcess ?? 'shared';

  const sections = `## Transports: \`tools/call\` over stdio

Command: ${stdio.map(({ command }) => `\`${rel(command)}\``).join(' and ')}.

${stdioLoads.map(({ loader, loads }) => loadTable(stdioContenders, loads, loader)).join('\n\n')}

"of floor" is the contender's calls/s over the floor's (higher is better). CPU per call: the client's process
(\`process.cpuUsage()\`; ${stdioClients === 'own' ? "each client's own process" : 'the benchmark process, all clients in it'}) + the server child (\`/proc/<pid>/stat\` utime+stime, 10 ms ticks), medians over rounds.
tmcp has no client: its row is the rxmcp client (legacy era) against tmcp's stdio server, so its client CPU is rxmcp's.

${stdioLoads.map(({ loader, loads }) => relativeTable(stdioContenders, loads, 'rxmcp', loader)).join('\n\n')}

## Transports: \`tools/call\` over Streamable HTTP (127.0.0.1)

Command: ${http.map(({ command }) => `\`${rel(command)}\``).join(' and ')}.

${httpLoads.map(({ loader, loads }) => loadTable(httpContenders, loads, loader)).join('\n\n')}

${httpLoads.map(({ loader, loads }) => relativeTable(httpContenders, loads, 'rxmcpJson', loader)).join('\n\n')}

tmcp's row is the rxmcp client against tmcp's \`HttpTransport\`, so its client CPU is rxmcp's (answering on SSE streams).

"${h.sessions} sessions": ${h.sessions} clients, each its own session (and, for the MCP clients, its own transport),
each calling one call after another, all at once; calls/s in aggregate.
Failed calls (an error instead of the echo; counted, the run goes on): ${failed.length === 0 ? 'none' : failed.join('; ')}.

## Transports: memory per idle HTTP session (n=${fmt(options.idleSessions, 0)})

Command: ${primaryIdle === undefined ? '' : idleImpls.map((impl) => `\`${rel(primaryIdle.figures[impl].command)}\``).join(', ')} (each driven by \`bench/http-idle-sessions.ts\`).

${table(['server', 'heap per idle session', 'RSS per idle session', 'heap ratio to SDK 1.x', 'heap ratio to rxmcp (sse)', 'sessions open at the end'], idleRows)}

tmcp's "sessions open" counts the \`initialize\` requests its server answered (its \`initialize\` event); tmcp never drops a session
on its own, so that is the sessions it holds.

## Transports: targets

${table(['target', 'measured', 'verdict'], targetRows)}

## Transports method

Run alone with \`npx tsx bench/run.ts --only=transports\`. Each benchmark is one fresh process per loader; every
server is a child process (\`bench/transport-programs.ts\`) serving the echo tool of the features benchmark
(\`{ text: string, count: integer ≥ 0, upper: boolean }\`, one text block); rxmcp registers it with JSON Schema,
the SDK with the zod 4 shape. Every contender was checked to answer the echo (the MCP ones also to reject \`count: -1\`).
All contenders of a benchmark are up at once (side by side in one run) and measured in interleaved rounds, the order
rotating each round, after a warm-up (sequential and windowed); medians over rounds; no forced gc.

**stdio**: ${stdioClients === 'own' ? "each client in a process of its own, its server a child of that process" : 'the clients in the benchmark process, each server a child it spawned'}: rxmcp \`createClient().connect(await
spawnStdioServer({ command: node, args: [bench/transport-programs.ts ...] }))\` to \`createServer()\` + \`serveStdio\`;
the SDK's \`Client\` + \`StdioClientTransport\` to \`McpServer\` + \`StdioServerTransport\`; the floor: a line client
(\`JSON.stringify\`, one \`write\` per request, answers split on newlines, \`JSON.parse\`, matched by id in a Map) to a
child that parses each line and writes one answer line (one write per answer and per request, as the SDKs do; rxmcp's
stdio transports, client and server, write the frames of one event-loop turn in batches of up to 16; no handshake, no checks). Also the official SDK 2.x: its \`Client\` (\`@modelcontextprotocol/client\`; its default era is the legacy one, checked
with \`getProtocolEra()\`) + its \`StdioClientTransport\` to \`serveStdio(factory)\` (\`@modelcontextprotocol/server/stdio\`: the opening
\`initialize\` picks the legacy era; one \`McpServer\` from the factory, the tool with the same zod 4 schema); and tmcp,
which has no client: the rxmcp client (legacy era) to \`new StdioTransport(server).listen()\` (\`@tmcp/transport-stdio\`) with
tmcp's \`McpServer\` (\`@tmcp/adapter-zod\`, the same zod 4 schema). tmcp's stdio transport handles 2025-era messages one
after another (each awaits the previous one's answer), so calls in flight queue in the server.
Warm-up ${fmt(s.warmup, 0)} calls each (sequential, then ${window} in flight), then ${s.rounds} rounds × ${fmt(s.count, 0)} calls at each level: ${levelsOf(stdio[0]?.result.levels)}.
${clientsMethod(stdioClients)}

**HTTP**: servers on 127.0.0.1, each in its own child: rxmcp \`createStreamableHttpServer({ server, responseMode })
.listen(0)\` (defaults otherwise: Host/Origin checks, the in-memory event store, priming events in SSE mode); the SDK's
\`StreamableHTTPServerTransport\` on node:http, one \`McpServer\` + transport per session (\`sessionIdGenerator: randomUUID\`,
\`enableJsonResponse\` true or false); the floor: node:http, collects the POST body, \`JSON.parse\`, answers the echo
with \`JSON.stringify\` and a content-length. Clients in the benchmark process: rxmcp \`createClient()\` over
\`createStreamableHttpClientTransport(url)\`; the SDK's \`Client\` over \`StreamableHTTPClientTransport\` (fetch); both
with their defaults, so both open the standalone GET stream after the handshake. The official SDK 2.x: one \`McpServer\` +
\`WebStandardStreamableHTTPServerTransport\` per session (\`sessionIdGenerator: randomUUID\`, SSE answers, its default), the
2025-era sessionful wiring (\`createMcpHandler\`'s own legacy serving is stateless: a fresh server per request, no sessions;
not measured here), with its \`Client\` + \`StreamableHTTPClientTransport\` (legacy era, checked). tmcp: one
\`HttpTransport(server, { path: '/mcp' })\` (\`@tmcp/transport-http\`; it answers every request on an SSE stream and keeps each
session's client info in its in-memory session manager), called by the rxmcp client (tmcp has none). Both are web-standard
handlers (\`Request\` in, \`Response\` out), put on node:http by the same minimal adapter (\`bench/contenders-programs.ts\`:
body read whole, a \`Request\` built, the \`Response\` body piped with \`Readable.fromWeb\`), which costs them both alike.
The floor: \`http.request\` POSTs
on a keep-alive \`http.Agent\` (64 sockets, as rxmcp's client), the whole answer read and \`JSON.parse\`d. Warm-up
${fmt(h.warmup, 0)} calls each, then ${h.rounds} rounds × ${fmt(h.count, 0)} calls on one session at each level (${levelsOf(http[0]?.result.levels)}); then
${h.sessions} sessions per contender, opened 20 at a time and kept, ${h.rounds} rounds of ${fmt(h.sessionCount, 0)} calls
(${fmt(h.sessionCount / h.sessions, 0)} sequential calls per session, all sessions at once). Every contender was
measured against a server that already had all its sessions; nothing is closed between rounds.
Node's fetch (undici, under the SDK client) adds an abort listener per request to the transport's single
\`AbortSignal\` and drops it only when the request is garbage collected: the SDK runs tripped
\`MaxListenersExceededWarning\` (counted, not printed: ${warnings}).

**Idle HTTP sessions**: a fresh server child per implementation (\`node --expose-gc\`); the benchmark process is the
client, so the server's heap holds nothing of it. Sessions are opened with raw node:http POSTs on a keep-alive agent
(16 at a time): \`initialize\` (protocolVersion 2025-11-25, the JSON or SSE answer read to its end), then
\`notifications/initialized\` with \`Mcp-Session-Id\` and \`MCP-Protocol-Version\` (202); then the agent's sockets are
destroyed. 200 warm-up sessions first (kept, so one-time costs fall in the baseline), then the child settles (3
\`setImmediate\` + 50 ms), runs \`gc()\` twice and reports \`heapUsed\`/\`rss\`; then ${fmt(options.idleSessions, 0)} more sessions, and again;
(after − baseline) / n. rxmcp runs with \`maxSessions\` raised above n (its default is 1000). The SDK figure includes an
\`McpServer\` with the echo tool registered per session (its docs' pattern for stateful servers), and so does the SDK 2.x
figure (an \`McpServer\` + \`WebStandardStreamableHTTPServerTransport\` per session); rxmcp shares one server, and tmcp one
server and one \`HttpTransport\` (per session it keeps client info and capabilities in its session manager's maps). RSS moves in pages and keeps what the start-up freed, so it is indicative only.

Per round (calls/s; CPU µs per call, client then server):
${[...stdio.flatMap(({ result }, i) => sampleLines(stdioContenders, stdioLoads[i]?.loads ?? [], `${tag(result.loader)}, stdio`)),
  ...http.flatMap(({ result }, i) => sampleLines(httpContenders, httpLoads[i]?.loads ?? [], `${tag(result.loader)}, HTTP`))].join('\n')}

CPU hotspots: \`node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/stdio-calls.ts --profile=rxmcp --window=64 --server-prof --source-maps=.tmp/maps.json\`
(or \`bench/http-calls.ts --profile=rxmcpJson\`; \`--server-prof\` makes the server child write its own profile to .tmp too), then
\`npx tsx bench/cpuprofile-top.ts .tmp/<file>.cpuprofile --maps=.tmp/maps.json --callers --inclusive\` (the client's maps also resolve the
server's rxmcp modules when both ran under tsx: the maps are per file; \`--inclusive\` adds total time per repo function).
`;
  const commands = [...stdio.map((r) => rel(r.command)), ...http.map((r) => rel(r.command)),
    ...idle.flatMap((r) => idleImpls.map((impl) => rel(r.figures[impl].command)))];
  return { sections, commands };
}
