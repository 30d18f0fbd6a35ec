/**
 * Our MCP server as an OAuth resource server for the end-to-end and interop auth specs: `createServer` (both
 * eras) on `createStreamableHttpServer` with `bearerAuth` (rxmcp/auth) trusting an oidc-provider, which is told
 * about this server's canonical URI so its tokens name it as audience.
 *
 * Every request needs `mcp:read`; the tools:
 *   whoami       -> JSON of the caller's `ctx.auth` {principal, subject, clientId, issuer, scopes, expiresAt}
 *   write-note   -> `requires: [mcp:read, mcp:write]`: hidden from callers without them, and a call refused -32043
 *                   (403 insufficient_scope in JSON answers and the modern era: the step-up)
 */
import { bearerAuth } from '../../auth/index.ts';
import { type McpServer, createServer } from '../../server/create-server.ts';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';
import { freePort } from './nats-server.ts';
import type { OidcProviderHandle } from './oidc-provider.ts';

export const READ_SCOPE = 'mcp:read';
export const WRITE_SCOPE = 'mcp:write';

export interface ProtectedRxmcpServer {
  /** `http://127.0.0.1:<port>/mcp`: the endpoint and canonical resource URI. */
  readonly url: string;
  readonly server: McpServer;
  readonly http: StreamableHttpServer;
  /** Notes written by `write-note`, with who wrote them. */
  readonly notes: Array<{ readonly text: string; readonly principal: string | undefined }>;
  close(): Promise<void>;
}

export async function startProtectedRxmcpServer(
  op: OidcProviderHandle,
  options: {
    readonly accessTokenTtlSeconds?: number;
    readonly path?: string;
    /** Legacy-era answers: `json` lets a handler's -32043 become a 403 step-up challenge; `sse` (the default) streams it. */
    readonly responseMode?: 'sse' | 'json';
    /** The eras the server speaks (default both). */
    readonly eras?: 'both' | 'legacy' | 'modern';
  } = {},
): Promise<ProtectedRxmcpServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${options.path ?? '/mcp'}`;
  op.addResource(url, {
    scopes: [READ_SCOPE, WRITE_SCOPE],
    ...(options.accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: options.accessTokenTtlSeconds }),
  });

  const notes: Array<{ text: string; principal: string | undefined }> = [];
  const server = createServer({ name: 'protected', version: '1.0.0', eras: options.eras ?? 'both' });
  server.tool({ name: 'whoami', description: 'the caller, as the server verified it' }, (_args, ctx) =>
    JSON.stringify({
      principal: ctx.auth?.principal,
      subject: ctx.auth?.subject,
      clientId: ctx.auth?.clientId,
      issuer: ctx.auth?.issuer,
      scopes: ctx.auth?.scopes,
      expiresAt: ctx.auth?.expiresAt,
    }),
  );
  server.tool(
    {
      name: 'write-note',
      description: 'keeps a note (needs mcp:write)',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      // The kit's per-tool rule: refused -32043 (403 insufficient_scope where the status is still free).
      requires: [READ_SCOPE, WRITE_SCOPE],
    },
    (args, ctx) => {
      notes.push({ text: String((args as { text?: unknown }).text), principal: ctx.auth?.principal });
      return 'noted';
    },
  );

  const http = createStreamableHttpServer({
    server,
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.responseMode === undefined ? {} : { responseMode: options.responseMode }),
    ...bearerAuth({
      resource: url,
      authorizationServers: [op.issuer],
      allowLoopbackHttp: true,
      requiredScopes: [READ_SCOPE],
      scopesSupported: [READ_SCOPE, WRITE_SCOPE],
    }),
  });
  await http.listen(port);
  return {
    url,
    server,
    http,
    notes,
    async close() {
      await http.close();
      await server.close();
    },
  };
}
