/**
 * A protected MCP server built the SDK 1.x way, for our OAuth client to log in to: express, the SDK's own
 * `mcpAuthMetadataRouter` (RFC 9728 protected-resource metadata naming the authorization server) and
 * `requireBearerAuth` middleware (401/403 with `WWW-Authenticate`), in front of an SDK `McpServer` on the SDK's
 * `StreamableHTTPServerTransport` (stateless: one server and transport per request).
 *
 * The SDK leaves token verification to the program (`OAuthTokenVerifier`); here it is jose against the
 * authorization server's JWKS, issuer and audience checked, and `resource` reported so the middleware's
 * `expectedResource` check applies too.
 *
 * Tools: `whoami` -> JSON {subject, clientId, scopes} of the caller as the SDK handed it to the handler.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';

/** The little of express this file uses (express ships no types, and the SDK's auth helpers are express middleware). */
type Handler = (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => void;
interface ExpressApp {
  use(handler: unknown): void;
  post(path: string, ...handlers: unknown[]): void;
  all(path: string, handler: Handler): void;
  listen(port: number, host: string, ready: () => void): Server;
}
interface ExpressModule {
  (): ExpressApp;
  json(): unknown;
}
const express = createRequire(import.meta.url)('express') as ExpressModule;

export interface SdkProtectedServerOptions {
  /** The authorization server's issuer (its metadata is fetched from OpenID discovery). */
  readonly issuer: string;
  readonly jwksUri: string;
  /** Scopes every request must carry (the middleware answers 403 insufficient_scope otherwise). */
  readonly requiredScopes: readonly string[];
  /** The scopes announced in the protected-resource metadata. */
  readonly scopesSupported: readonly string[];
}

export interface SdkProtectedServer {
  /** `http://127.0.0.1:<port>/mcp`: the canonical resource URI too. */
  readonly url: string;
  /** How many MCP requests reached the SDK server (past the middleware). */
  readonly served: number;
  close(): Promise<void>;
}

export async function startSdkProtectedServer(options: SdkProtectedServerOptions): Promise<SdkProtectedServer> {
  const discovery = await fetch(`${options.issuer}/.well-known/openid-configuration`);
  const oauthMetadata = (await discovery.json()) as OAuthMetadata;
  const jwks = createRemoteJWKSet(new URL(options.jwksUri));

  const app = express();
  const http: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = http.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/mcp`;
  const resource = new URL(url);

  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer: options.issuer, audience: url });
        return {
          token,
          clientId: typeof payload['client_id'] === 'string' ? payload['client_id'] : '',
          scopes: typeof payload['scope'] === 'string' ? payload['scope'].split(' ').filter((s) => s !== '') : [],
          ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
          resource,
          extra: { subject: payload.sub },
        };
      } catch (error) {
        throw new InvalidTokenError(error instanceof Error ? error.message : 'invalid token');
      }
    },
  };

  let served = 0;
  app.use(
    mcpAuthMetadataRouter({
      oauthMetadata,
      resourceServerUrl: resource,
      scopesSupported: [...options.scopesSupported],
      resourceName: 'sdk protected server',
    }),
  );
  app.post(
    '/mcp',
    express.json(),
    requireBearerAuth({
      verifier,
      requiredScopes: [...options.requiredScopes],
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
      expectedResource: resource,
    }),
    ((req, res) => {
      served += 1;
      const server = new McpServer({ name: 'sdk-protected', version: '1.0.0' });
      server.registerTool('whoami', { description: 'who the caller is' }, (extra) => ({
        content: [
          {
            type: 'text',
            text: JSON.stringify({
              subject: extra.authInfo?.extra?.['subject'],
              clientId: extra.authInfo?.clientId,
              scopes: extra.authInfo?.scopes,
            }),
          },
        ],
      }));
      const transport = new StreamableHTTPServerTransport({});
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      void server
        .connect(transport)
        .then(() => transport.handleRequest(req, res, req.body))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500).end();
        });
    }) satisfies Handler,
  );
  // Stateless: no standalone stream, no session to delete.
  app.all('/mcp', (_req, res) => void res.writeHead(405, { allow: 'POST' }).end());

  return {
    url,
    get served() {
      return served;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
