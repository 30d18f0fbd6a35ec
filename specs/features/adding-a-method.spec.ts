/**
 * Adding a method is one declaration, one feature and its spec. This spec is all three for a method nothing else
 * in the code knows, `tools/preview` of a test-only extension (`com.example/preview`): a declaration that names
 * the tool it addresses (`target`), where the tool's access rule is (`access: 'tools'`), that the tool's name
 * names spans, and that `Mcp-Name` mirrors it; and a feature, the extension's handler. With no other file
 * touched it gets what the derived lookups give every method:
 * - interceptor targets and scopes (`request.target`, a `{ tool }` scope covers it), on the server and the client;
 * - step-up before a legacy SSE stream opens (403 `insufficient_scope` over Streamable HTTP);
 * - its span name and attributes (rxmcp/otel with the real SDK);
 * - the `Mcp-Name` mirror over modern Streamable HTTP (the client sends it, the server refuses a wrong one);
 * - a typed client call: `session.request(declaration, params)` resolves with `ResultOf<typeof declaration>`.
 *
 * @own-process: registers the OpenTelemetry SDK globally (specs/otel/support.ts), once per process
 */
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { lastValueFrom } from 'rxjs';
import { createClient } from '../../client/create-client.ts';
import type { AuthInfo } from '../../core/auth.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { type ResultOf, request as declareRequest } from '../../core/protocol/declarations/declaration.ts';
import { defineExtension } from '../../core/protocol/extensions.ts';
import { isJsonObject } from '../../core/protocol/guards.ts';
import { tracing } from '../../otel/tracing.ts';
import { createServer } from '../../server/create-server.ts';
import type { ServerExtension } from '../../server/server-api.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../transports/http/index.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { ACCEPT_BOTH, RawMcp, asBody, asStream, rawRequest } from '../support/http-raw-client.ts';
import { MODERN, withEnvelope } from '../support/modern-envelope.ts';
import { eventually, installTelemetry, spansNamed } from '../otel/support.ts';

// ---- the declaration ----

interface PreviewParams {
  readonly name: string;
  readonly arguments?: JsonObject;
  readonly _meta?: JsonObject;
}
interface PreviewResult {
  readonly preview: string;
}

const PREVIEW = 'com.example/preview';
const toolsPreview = declareRequest<PreviewParams, PreviewResult>('tools/preview', {
  legacy: { sender: 'client', since: '2025-06-18' },
  modern: { sender: 'client', extension: PREVIEW, nameHeader: 'name' },
  target: { field: 'name', item: 'tool', access: 'tools', span: 'name' },
  params: (value): value is PreviewParams => isJsonObject(value) && typeof value['name'] === 'string',
  result: (value): value is PreviewResult => isJsonObject(value) && typeof value['preview'] === 'string',
});
const preview = defineExtension({ id: PREVIEW, methods: [toolsPreview] });

// ---- the feature ----

const previewFeature: ServerExtension = {
  definition: preview,
  settings: {},
  handlers: { [toolsPreview.method]: (params) => ({ preview: `would call ${String(params?.['name'])}` }) },
};

// ---- the spec ----

const telemetry = installTelemetry();
beforeEach(() => telemetry.spans.reset());
after(() => telemetry.meterProvider.shutdown());

function previewServer() {
  const server = createServer({ name: 'previews', version: '1', extensions: [previewFeature] });
  server.tool({ name: 'echo' }, () => 'echo');
  server.tool({ name: 'admin', requires: ['mcp:admin'] }, () => 'admin');
  return server;
}

const caller = (scopes: string[]): AuthInfo => ({ principal: 'grace', subject: 'grace', scopes, claims: { sub: 'grace' } });
const protectedResource = { metadata: { resource: 'https://mcp.example.test/mcp', authorization_servers: ['https://as.example.test'] } };

for (const era of ['legacy', 'modern'] as const) {
  describe(`a declared method over memory, ${era} era`, () => {
    test('interceptors see its target and a tool scope covers it, on both sides; the typed call resolves with its result type', async () => {
      const server = previewServer();
      const served: string[] = [];
      const sent: string[] = [];
      server.use((request, next) => {
        served.push(`${request.method} ${request.target}`);
        return next(request);
      }, { tool: 'echo' });
      const client = createClient({ name: 'c', version: '1', era });
      client.use((request, next) => {
        sent.push(`${request.method} ${request.target}`);
        return next(request);
      }, { tool: ['echo', 'admin'], direction: 'outgoing' });
      const [clientEnd, serverEnd] = createMemoryPair();
      server.accept(serverEnd);
      const session = await client.connect(clientEnd);
      try {
        const result: ResultOf<typeof toolsPreview> = await session.request(toolsPreview, { name: 'echo' });
        assert.equal(result.preview, 'would call echo');
        assert.equal((await session.session.request(toolsPreview, { name: 'admin' })).preview, 'would call admin');
        const last = await lastValueFrom(session.request$(toolsPreview, { name: 'echo' }));
        assert.equal(last.type === 'result' ? last.result.preview : undefined, 'would call echo');
        // @ts-expect-error the params are the declaration's: a name is a string (tsc checks this line)
        await assert.rejects(session.request(toolsPreview, { name: 7 }), (error: unknown) => (error as { code?: unknown }).code === ErrorCode.InvalidParams);
        assert.deepEqual(served, ['tools/preview echo', 'tools/preview echo'], 'the server interceptor saw the requests naming its tool');
        assert.deepEqual(sent, ['tools/preview echo', 'tools/preview admin', 'tools/preview echo'], 'the client interceptor saw every request it covers');
      } finally {
        await session.close();
        await server.close();
      }
    });

    test('its span is named after its target, with the conventions\' tool attribute, on both sides', async () => {
      const server = previewServer();
      server.use(tracing());
      const client = createClient({ name: 'c', version: '1', era });
      client.use(tracing());
      const [clientEnd, serverEnd] = createMemoryPair();
      server.accept(serverEnd);
      const session = await client.connect(clientEnd);
      try {
        await session.request(toolsPreview, { name: 'echo' });
        await eventually(() => spansNamed(telemetry.spans, 'tools/preview echo').length === 2);
        const spans = spansNamed(telemetry.spans, 'tools/preview echo');
        assert.deepEqual(spans.map((span) => span.kind).sort(), [SpanKind.SERVER, SpanKind.CLIENT].sort());
        for (const span of spans) {
          assert.equal(span.attributes['mcp.method.name'], 'tools/preview');
          assert.equal(span.attributes['gen_ai.tool.name'], 'echo');
          // Executing a tool is what tools/call does; a preview is not that.
          assert.equal(span.attributes['gen_ai.operation.name'], undefined);
        }
      } finally {
        await session.close();
        await server.close();
      }
    });
  });
}

describe('a declared method over Streamable HTTP', () => {
  test('legacy, SSE answers: a preview of a tool the caller lacks a scope for steps up with 403 before any stream opens', async () => {
    const server = previewServer();
    let ran = 0;
    server.use((request, next) => {
      ran++;
      return next(request);
    });
    const authenticate = (): AuthInfo => caller(['mcp:tools']);
    const http = createStreamableHttpServer({ server, authenticate, protectedResource });
    const { url } = await http.listen();
    try {
      const client = new RawMcp(url);
      await client.initialize('2025-06-18');
      const id = client.id();
      const refused = asBody(await client.post({ jsonrpc: '2.0', id, method: 'tools/preview', params: { name: 'admin' } }));
      assert.equal(refused.status, 403);
      assert.match(String(refused.headers['www-authenticate']), /scope="mcp:admin", error="insufficient_scope"/);
      assert.deepEqual(refused.json, {
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InsufficientScope, message: 'Insufficient scope: tools/preview needs the scope(s) mcp:admin', data: { requiredScopes: ['mcp:admin'] } },
      });
      assert.equal(ran, 0, 'refused before the request reached the server');
      const allowed = await client.call('tools/preview', { name: 'echo' });
      assert.equal(asStream(allowed.reply).status, 200);
      assert.deepEqual(allowed.response['result'], { preview: 'would call echo' });
      assert.equal(ran, 1);
    } finally {
      await http.close();
      await server.close();
    }
  });

  test('modern: the client mirrors the target into Mcp-Name; the server refuses one that is missing or differs', async () => {
    const server = previewServer();
    const names: (string | undefined)[] = [];
    const authenticate = (request: { header(name: string): string | undefined }): AuthInfo => {
      if (request.header('mcp-method') === 'tools/preview') names.push(request.header('mcp-name'));
      return caller(['mcp:tools', 'mcp:admin']);
    };
    const http = createStreamableHttpServer({ server, authenticate, protectedResource });
    const { url } = await http.listen();
    const client = createClient({ name: 'c', version: '1', era: 'modern' });
    const session = await client.connect(createStreamableHttpClientTransport(url));
    try {
      assert.equal((await session.request(toolsPreview, { name: 'echo' })).preview, 'would call echo');
      assert.deepEqual(names, ['echo'], 'the client sent Mcp-Name: echo');

      const post = (name: string | undefined) =>
        rawRequest(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: ACCEPT_BOTH,
            'mcp-protocol-version': MODERN,
            'mcp-method': 'tools/preview',
            ...(name === undefined ? {} : { 'mcp-name': name }),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/preview', params: withEnvelope({ name: 'echo' }) }),
        });
      for (const name of [undefined, 'admin']) {
        const refused = asBody(await post(name));
        assert.equal(refused.status, 400, String(name));
        assert.equal((refused.json as { error: { code: number } }).error.code, ErrorCode.HeaderMismatch, String(name));
        assert.match((refused.json as { error: { message: string } }).error.message, /Mcp-Name/);
      }
      const served = await post('echo');
      assert.equal(served.status, 200);
    } finally {
      await session.close();
      await http.close();
      await server.close();
    }
  });
});
