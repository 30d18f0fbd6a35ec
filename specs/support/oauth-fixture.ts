/**
 * A scriptable OAuth authorization server and protected MCP server pair on node:http (127.0.0.1, port 0), for
 * the OAuth client specs: enough of RFC 8414, 7591, 6749 and 9728 to run the authorization-code flow without a
 * browser (the authorization endpoint redirects at once), every request recorded, and every document
 * replaceable (a wrong issuer, a non-HTTPS endpoint, a huge body). Tokens are opaque strings the pair shares.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type MockServer, type ReceivedRequest, startMockServer } from './http-mock-server.ts';

export interface AsRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly form: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
}

export interface FakeAuthorizationServer {
  readonly issuer: string;
  readonly requests: AsRequest[];
  /** Replaces fields of the metadata document (undefined deletes one). */
  metadata: Record<string, unknown>;
  /** Replaces the whole metadata body (a raw string), e.g. a huge document. */
  rawMetadata: string | undefined;
  /** Access tokens issued, with the scope granted. */
  readonly issued: Map<string, string>;
  /** Lifetime of issued access tokens, seconds. */
  expiresIn: number;
  close(): Promise<void>;
  paths(): string[];
}

export async function startAuthorizationServer(): Promise<FakeAuthorizationServer> {
  const requests: AsRequest[] = [];
  const issued = new Map<string, string>();
  let counter = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((incoming, response) => void handle(incoming, response));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeAuthorizationServer = {
    issuer,
    requests,
    metadata: {},
    rawMetadata: undefined,
    issued,
    expiresIn: 3600,
    paths: () => requests.map((request) => `${request.method} ${request.path}`),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(incoming.url ?? '/', issuer);
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const form = incoming.headers['content-type']?.startsWith('application/x-www-form-urlencoded') === true ? new URLSearchParams(text) : new URLSearchParams();
    requests.push({ method: incoming.method ?? '', path: url.pathname, query: url.searchParams, form, headers: incoming.headers });
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    };
    if (incoming.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      if (fake.rawMetadata !== undefined) return void response.writeHead(200, { 'content-type': 'application/json' }).end(fake.rawMetadata);
      const document: Record<string, unknown> = {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['mcp:read', 'mcp:write', 'offline_access'],
      };
      for (const [name, value] of Object.entries(fake.metadata)) {
        if (value === undefined) delete document[name];
        else document[name] = value;
      }
      return json(200, document);
    }
    if (incoming.method === 'POST' && url.pathname === '/register') {
      const body = JSON.parse(text) as Record<string, unknown>;
      counter += 1;
      return json(201, { ...body, client_id: `client-${counter}-of-${new URL(issuer).port}` });
    }
    if (incoming.method === 'GET' && url.pathname === '/authorize') {
      counter += 1;
      const back = new URL(url.searchParams.get('redirect_uri') ?? 'http://127.0.0.1:1/cb');
      back.searchParams.set('code', `code-${counter}`);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return void response.writeHead(302, { location: back.href }).end();
    }
    if (incoming.method === 'POST' && url.pathname === '/token') {
      counter += 1;
      const token = `at-${counter}-of-${new URL(issuer).port}`;
      const previous = form.get('grant_type') === 'refresh_token' ? form.get('refresh_token')?.replace(/^rt-/, '') : undefined;
      const lastAuthorize = [...requests].reverse().find((r) => r.path === '/authorize');
      const granted = previous !== undefined ? (issued.get(previous) ?? '') : (lastAuthorize?.query.get('scope') ?? '');
      issued.set(token, granted);
      return json(200, { access_token: token, token_type: 'Bearer', expires_in: fake.expiresIn, refresh_token: `rt-${token}`, scope: granted });
    }
    response.writeHead(404).end();
  }
  return fake;
}

export interface ProtectedServerOptions {
  /** The authorization servers the PRM names (a function: may change between calls). */
  readonly authorizationServers: () => readonly string[];
  /** The PRM's `resource` (default: the MCP URL). */
  readonly resource?: (mcpUrl: string) => string;
  /** Scopes a tools/call needs (403 insufficient_scope otherwise). */
  readonly callScope?: string;
  /** Tokens accepted: by default those the authorization servers issued. */
  readonly accepts: (token: string) => string | undefined;
  /** Every authorized request is refused with 403 insufficient_scope (a server no token satisfies). */
  readonly alwaysForbid?: boolean;
  /** Speak the 2024-11-05 HTTP+SSE transport (stream at the MCP URL, POSTs to /messages). */
  readonly legacy?: boolean;
}

/** The MCP mock server behind bearer tokens, with its PRM at the path-aware well-known location. */
export async function startProtectedServer(options: ProtectedServerOptions): Promise<MockServer & { readonly prmUrl: string }> {
  let prmUrl = '';
  const mock = await startMockServer({
    ...(options.legacy === true ? { legacy: true } : {}),
    sessions: false,
    notificationBody: false,
    tools: { echo: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }) },
    intercept: (request: ReceivedRequest, response: ServerResponse, self: MockServer) => {
      if (request.method === 'GET' && request.path === '/.well-known/oauth-protected-resource/mcp') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            resource: options.resource?.(self.url) ?? self.url,
            authorization_servers: options.authorizationServers(),
            scopes_supported: ['mcp:read'],
          }),
        );
        return true;
      }
      if (request.method === 'GET' && request.path.startsWith('/.well-known/')) {
        response.writeHead(404).end();
        return true;
      }
      const header = request.headers['authorization'];
      const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
      const scope = token === undefined ? undefined : options.accepts(token);
      if (scope === undefined) {
        response.writeHead(401, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${prmUrl}"`, 'content-type': 'application/json' }).end('{}');
        return true;
      }
      const body = request.body as { readonly method?: string } | undefined;
      const needs = options.callScope;
      const forbidden = options.alwaysForbid === true || (needs !== undefined && body?.method === 'tools/call' && !scope.split(' ').includes(needs));
      if (forbidden) {
        const wanted = needs ?? 'mcp:admin';
        response.writeHead(403, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${prmUrl}"`, 'content-type': 'application/json' }).end('{}');
        return true;
      }
      return false;
    },
  });
  prmUrl = new URL('/.well-known/oauth-protected-resource/mcp', mock.url).href;
  return Object.assign(mock, { prmUrl });
}
