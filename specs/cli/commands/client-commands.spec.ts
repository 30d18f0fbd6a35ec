/**
 * `rxmcp inspect|call|read|prompt` as real processes against a real demo server over each kind of target:
 * Streamable HTTP on 127.0.0.1 (served in this process), a stdio child (`rxmcp serve --stdio`), and NATS (a
 * real nats-server this spec starts, the demo served on it in this process). Stdout is piped, so results are
 * JSON; progress comes as plain lines on stderr.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { interval, map } from 'rxjs';
import { createDemoServer } from '../../../cli/demo-server.ts';
import { createStreamableHttpServer } from '../../../transports/http/index.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { killChildren } from '../../support/interop-processes.ts';
import { type NatsServerProcess, freePort, startNatsServer } from '../../support/nats-server.ts';
import { STDIO_DEMO, runCli, startCli } from './cli-process.ts';

const demo = createDemoServer();
/** What the slow tool saw: its runs, and the ones whose signal was aborted (the client cancelled). */
const slow = { started: 0, aborted: 0 };
demo.server.tool(
  { name: 'slow', description: 'Reports progress every 100 ms and never finishes on its own' },
  (_args, ctx) => {
    slow.started++;
    ctx.signal.addEventListener('abort', () => slow.aborted++, { once: true });
    return interval(100).pipe(map((step) => ({ progress: step + 1, message: `tick ${step + 1}` })));
  },
);
demo.server.tool({ name: 'fail', description: 'Always reports a tool error' }, () => {
  throw new Error('the fail tool failed, as it always does');
});

const http = createStreamableHttpServer({ server: demo.server, path: '/mcp' });
let httpUrl = '';
let closeHttp = async (): Promise<void> => undefined;
let nats: NatsServerProcess | undefined;
let natsConnection: NatsConnection | undefined;
let natsServing: NatsServing | undefined;
let natsTarget = '';

before(async () => {
  const listening = await http.listen(0, '127.0.0.1');
  httpUrl = listening.url;
  closeHttp = () => listening.close();
  nats = await startNatsServer();
  natsConnection = await connect({ servers: nats.url });
  natsServing = await serveNats(demo.server, { connection: natsConnection, name: 'cli-demo' });
  natsTarget = `${nats.url}/cli-demo`;
});

after(async () => {
  await killChildren();
  demo.stop();
  await natsServing?.close('end');
  await natsConnection?.drain();
  await nats?.dispose();
  await http.close();
  await closeHttp();
});

// The stdio target is `rxmcp serve --stdio` itself: the demo without this spec's extra tools.
const targets = [
  { kind: 'HTTP', target: (): string[] => [httpUrl], tools: ['count', 'fail', 'greet', 'slow', 'stats', 'whoami'] },
  { kind: 'stdio', target: (): string[] => [], tail: STDIO_DEMO, tools: ['count', 'greet', 'stats', 'whoami'] },
  { kind: 'NATS', target: (): string[] => [natsTarget], tools: ['count', 'fail', 'greet', 'slow', 'stats', 'whoami'] },
] as const;

/** `rxmcp <command> <target> <args...>`, the stdio target's `-- <command>` last. */
function line(kind: (typeof targets)[number], command: string, ...args: string[]): string[] {
  return [command, ...kind.target(), ...args, ...('tail' in kind ? ['--', ...kind.tail] : [])];
}

for (const kind of targets) {
  test(`rxmcp inspect|call|read|prompt over ${kind.kind} - the demo server's info, a call with typed arguments and progress, a resource, a prompt`, async () => {
    // One at a time: each is a node process compiling TypeScript, and a stdio target starts a second one.
    const inspected = await runCli(line(kind, 'inspect'));
    const counted = await runCli(line(kind, 'call', 'count', 'n=2'));
    assert.equal(inspected.code, 0, inspected.stderr);
    const inspection = JSON.parse(inspected.stdout) as Record<string, unknown>;
    assert.equal(inspection['era'], 'modern', 'the client finds the modern era on each');
    assert.equal(inspection['revision'], '2026-07-28');
    assert.deepEqual(inspection['server'], { name: 'rxmcp-demo', version: '0.1.0', title: 'rxmcp demo server' });
    assert.match(String(inspection['instructions']), /count tool/);
    const tools = inspection['tools'] as Array<{ name: string; inputSchema: unknown }>;
    assert.deepEqual(tools.map((tool) => tool.name).sort(), kind.tools);
    assert.deepEqual((tools.find((tool) => tool.name === 'count')?.inputSchema as { properties: unknown }).properties, { n: { type: 'integer', minimum: 1, maximum: 20, default: 5 } });
    assert.deepEqual((inspection['resources'] as Array<{ uri: string }>).map((resource) => resource.uri), ['demo://clock']);
    assert.deepEqual((inspection['resourceTemplates'] as Array<{ uriTemplate: string }>).map((template) => template.uriTemplate), ['demo://echo/{text}']);
    assert.deepEqual((inspection['prompts'] as Array<{ name: string }>).map((prompt) => prompt.name), ['summarize']);
    assert.deepEqual((inspection['capabilities'] as Record<string, unknown>)['tools'], { listChanged: true });

    assert.equal(counted.code, 0, counted.stderr);
    assert.deepEqual((JSON.parse(counted.stdout) as { content: unknown }).content, [{ type: 'text', text: 'Counted to 2.' }], 'n=2 was sent as the integer 2');
    assert.match(counted.stderr, /(^|\n)count: progress 1\/2 counted 1\ncount: progress 2\/2 counted 2\n$/, 'piped progress is one plain line per report');

    const stats = await runCli(line(kind, 'call', 'stats', 'numbers=[1,2,3.5]'));
    const read = await runCli(line(kind, 'read', 'demo://echo/hello'));
    const prompt = await runCli(line(kind, 'prompt', 'summarize', 'text=the whole text'));
    assert.equal(stats.code, 0, stats.stderr);
    assert.deepEqual((JSON.parse(stats.stdout) as { structuredContent: unknown }).structuredContent, { sum: 6.5, mean: 6.5 / 3 }, 'an array argument is read as JSON');
    assert.equal(read.code, 0, read.stderr);
    assert.deepEqual((JSON.parse(read.stdout) as { contents: unknown }).contents, [{ uri: 'demo://echo/hello', mimeType: 'text/plain', text: 'hello' }]);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.deepEqual((JSON.parse(prompt.stdout) as { messages: unknown }).messages, [{ role: 'user', content: { type: 'text', text: 'Please summarize:\n\nthe whole text' } }]);
  });
}

test('rxmcp call --era legacy - the legacy era is forced, and inspect reports it', async () => {
  const [inspected, counted] = await Promise.all([runCli(['inspect', httpUrl, '--era', 'legacy']), runCli(['call', '--era', 'legacy', httpUrl, 'count', 'n=1'])]);
  assert.equal(inspected.code, 0, inspected.stderr);
  const inspection = JSON.parse(inspected.stdout) as Record<string, unknown>;
  assert.equal(inspection['era'], 'legacy');
  assert.equal(inspection['revision'], '2025-11-25');
  assert.equal(counted.code, 0, counted.stderr);
  assert.deepEqual((JSON.parse(counted.stdout) as { content: unknown }).content, [{ type: 'text', text: 'Counted to 1.' }]);
});

for (const era of ['modern', 'legacy'] as const) {
  test(`rxmcp call (${era} era) - SIGINT while a slow tool runs cancels it on the server and exits 130`, async () => {
    const before = { ...slow };
    const running = startCli(['call', httpUrl, 'slow', '--era', era]);
    await running.waitForStderr(/slow: progress 2 tick 2\n/);
    assert.equal(slow.started, before.started + 1);
    running.child.kill('SIGINT');
    const run = await running.done;
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, /rxmcp call: cancelled slow\n$/);
    assert.equal(run.stdout, '');
    const deadline = Date.now() + 5000;
    while (slow.aborted === before.aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(slow.aborted, before.aborted + 1, 'the server saw the cancellation');
  });
}

test('rxmcp call - a tool error exits 1 with the error shown; an elicitation without a terminal is declined and said so', async () => {
  const [failed, greeted] = await Promise.all([runCli(['call', httpUrl, 'fail']), runCli(['call', httpUrl, 'greet'])]);
  assert.equal(failed.code, 1, failed.stderr);
  assert.equal((JSON.parse(failed.stdout) as { isError: boolean }).isError, true);
  assert.match(failed.stdout, /the fail tool failed/);
  assert.match(failed.stderr, /rxmcp call: fail reported an error/);
  assert.equal(greeted.code, 0, greeted.stderr);
  assert.match(greeted.stderr, /rxmcp call: the server asks: "What should I call you\?"; declined, as there is no terminal to ask you on/);
  assert.deepEqual((JSON.parse(greeted.stdout) as { content: unknown }).content, [{ type: 'text', text: 'Maybe another time.' }]);
});

test('rxmcp call - argument mistakes found with the input schema, and unknown tools, are usage errors (exit 2)', async () => {
  const [notInteger, unknownTool] = await Promise.all([runCli(['call', httpUrl, 'count', 'n=2.5']), runCli(['call', httpUrl, 'cuont'])]);
  assert.equal(notInteger.code, 2);
  assert.match(notInteger.stderr, /rxmcp call: n must be an integer \(the tool's input schema says integer\), got "2\.5"/);
  assert.equal(unknownTool.code, 2);
  assert.match(unknownTool.stderr, /rxmcp call: the server has no tool "cuont"; did you mean count\?/);
});

test('rxmcp inspect|call - an unreachable target is named with the cause (exit 1); a stdio command that does not exist exit 2', async () => {
  const port = await freePort();
  const [httpDown, natsDown, noCommand] = await Promise.all([
    runCli(['inspect', `http://127.0.0.1:${port}/mcp`]),
    runCli(['call', `nats://127.0.0.1:${port}/demo`, 'count']),
    runCli(['inspect', '--', 'rxmcp-no-such-server-program']),
  ]);
  assert.equal(httpDown.code, 1);
  assert.match(httpDown.stderr, new RegExp(`^rxmcp inspect: cannot reach http://127\\.0\\.0\\.1:${port}/mcp: .*ECONNREFUSED`));
  assert.equal(natsDown.code, 1);
  assert.match(natsDown.stderr, new RegExp(`^rxmcp call: cannot reach nats://127\\.0\\.0\\.1:${port}/demo: could not connect to NATS at nats://127\\.0\\.0\\.1:${port}`));
  assert.equal(noCommand.code, 2);
  assert.match(noCommand.stderr, /rxmcp inspect: cannot run the server command: rxmcp-no-such-server-program is not a program on PATH/);
});
