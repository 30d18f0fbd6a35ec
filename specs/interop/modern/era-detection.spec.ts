/**
 * Interop, era detection across SDK generations: a dual-era client must land in the era its server speaks.
 *   - Our client (era `auto`, the default) against legacy-only official servers: the SDK 1.x server on stdio
 *     (spawned by us) and on Streamable HTTP, and the SDK 2.x server pinned to the 2025 revisions on HTTP: the
 *     `server/discover` probe is refused, the client falls back to `initialize` on the same connection (the
 *     stdio server survives the probe) and works.
 *   - The SDK 2.x client (versionNegotiation auto) against our server restricted to one era (`eras: 'legacy'`
 *     or `'modern'`) on HTTP: it lands in that era.
 *   - The SDK 1.x client against our modern-only endpoint: refused, in a way that names what we do support.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createClient } from '../../../client/create-client.ts';
import { createServer } from '../../../server/create-server.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { spawnStdioServer } from '../../../transports/stdio/index.ts';
import { PROCESS_MS, fixtureCommand, killChildren, trackChild } from '../../support/interop-processes.ts';
import { serveSdk1Http, serveSdk2Http } from '../../support/interop-sdk-http.ts';
import { SDK_TOOLS } from '../../support/interop-sdk-servers.ts';
import { firstText, sdk2ModernClient } from './sdk2-modern-client.ts';

const T = { timeout: 15_000 };

after(async () => {
  const leftovers = await killChildren();
  assert.deepEqual(leftovers, [], 'every child exited on its own once its client closed');
});

test('our client (auto) falls back to initialize against the SDK 1.x stdio server, which survives the probe', { timeout: 30_000 }, async () => {
  const raw = await spawnStdioServer({ ...fixtureCommand('sdk1-stdio-server.ts'), stderr: 'pipe' });
  trackChild(raw.pid, 'sdk1 stdio fixture (era detection)');
  const stderr: string[] = [];
  raw.stderr$.subscribe((line) => stderr.push(line));
  const session = await createClient({ name: 'rxmcp-auto-client', version: '0.1.0' }).connect(raw, { initializeTimeoutMs: PROCESS_MS });
  try {
    assert.equal(session.session.era, 'legacy');
    assert.equal(session.session.revision, '2025-11-25');
    assert.deepEqual((await session.listTools()).map((tool) => tool.name).sort(), [...SDK_TOOLS]);
    const echoed = await session.callTool('echo', { text: 'after the probe' });
    assert.match(JSON.stringify(echoed.content), /after the probe/);
  } finally {
    await session.close();
  }
  assert.deepEqual(await raw.exited, { code: 0, signal: null }, `the SDK 1.x server exited by itself; stderr: ${stderr.join('\n')}`);
});

for (const [label, serve] of [
  ['SDK 1.x', serveSdk1Http],
  ['SDK 2.x pinned to the 2025 revisions', serveSdk2Http],
] as const) {
  test(`our client (auto) falls back to initialize against the ${label} Streamable HTTP server`, T, async () => {
    const http = await serve();
    try {
      const session = await createClient({ name: 'rxmcp-auto-client', version: '0.1.0' }).connect(createStreamableHttpClientTransport(http.url));
      try {
        assert.equal(session.session.era, 'legacy');
        assert.equal(session.session.revision, '2025-11-25');
        assert.equal(http.sessions, 1, 'the server holds the session initialize opened');
        assert.deepEqual((await session.listTools()).map((tool) => tool.name).sort(), [...SDK_TOOLS]);
      } finally {
        await session.close();
      }
    } finally {
      await http.close();
    }
  });
}

for (const eras of ['legacy', 'modern'] as const) {
  test(`the SDK 2.x client (auto) lands in the ${eras} era on our eras: '${eras}' endpoint`, T, async () => {
    const server = createServer({ name: `rxmcp-${eras}-only`, version: '1.0.0', eras });
    server.tool({ name: 'era', description: 'The era of the calling request' }, (_args, ctx) => ctx.session.revision ?? '?');
    const http = createStreamableHttpServer({ server });
    const { url } = await http.listen(0);
    const { client, recorded } = sdk2ModernClient();
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 10_000 });
      assert.equal(client.getProtocolEra(), eras);
      const revision = eras === 'modern' ? '2026-07-28' : '2025-11-25';
      assert.equal(client.getNegotiatedProtocolVersion(), revision);
      assert.equal(firstText(await client.callTool({ name: 'era', arguments: {} })), revision);
      assert.equal(http.sessionCount, eras === 'modern' ? 0 : 1);
      assert.deepEqual(recorded.errors, []);
    } finally {
      await client.close();
      await http.close();
      await server.close();
    }
  });
}

test(
  "the SDK 1.x client's initialize on our modern-only endpoint is refused with an error naming 2026-07-28 as supported",
  T,
  async () => {
    const server = createServer({ name: 'rxmcp-modern-only', version: '1.0.0', eras: 'modern' });
    server.tool({ name: 'echo' }, () => 'unreachable for 2025 clients');
    const http = createStreamableHttpServer({ server });
    const { url } = await http.listen(0);
    const client = new Sdk1Client({ name: 'sdk1-legacy-client', version: '1.32.0' });
    try {
      const refusal = await client.connect(new Sdk1HttpTransport(new URL(url))).then(
        () => undefined,
        (error: unknown) => String(error),
      );
      assert.ok(refusal !== undefined, 'the legacy client cannot connect');
      // The SDK 1.x transport quotes the answer's body after "endpoint: ".
      const body = JSON.parse(refusal.slice(refusal.indexOf('{'))) as { error?: { code?: number; data?: { supported?: unknown } } };
      // The versioning rules want UnsupportedProtocolVersion (-32022) with `supported`; our modern router answers a
      // stray initialize with -32601 and the same `supported` list (what the stdio path sends): either tells the
      // client what to speak.
      assert.ok([-32022, -32601].includes(body.error?.code ?? 0), `the refusal is about the version or the method: ${refusal}`);
      const supported = body.error?.data?.supported;
      assert.ok(Array.isArray(supported) && supported.includes('2026-07-28'), `the refusal names 2026-07-28: ${refusal}`);
    } finally {
      await client.close();
      await http.close();
      await server.close();
    }
  },
);
