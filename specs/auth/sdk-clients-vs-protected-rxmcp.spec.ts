/**
 * Interop: the official SDK clients' own OAuth support (1.x `@modelcontextprotocol/sdk`, 2.x
 * `@modelcontextprotocol/client`, each with an `authProvider`) against OUR protected server
 * (protected-rxmcp-server.ts: bearerAuth trusting a real oidc-provider), over Streamable HTTP:
 * 401 -> the SDK's discovery (RFC 9728 then the authorization server) -> dynamic registration -> PKCE
 * authorization (completed headlessly) -> `finishAuth` -> connected; the handler sees the caller in `ctx.auth`;
 * a tool needing more scope answers 403 insufficient_scope and the SDK's step-up gets the wider token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError as Sdk1Unauthorized } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport as Sdk1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2HttpTransport } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { type OidcProviderHandle, startOidcProvider } from '../support/oidc-provider.ts';
import { type ProtectedRxmcpServer, startProtectedRxmcpServer } from '../support/protected-rxmcp-server.ts';
import { HeadlessSdkOAuthProvider } from '../support/sdk-oauth-provider.ts';

interface SdkTransport {
  close(): Promise<void>;
}
interface SdkClient {
  connect(transport: never): Promise<void>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}
interface Flavour {
  readonly name: string;
  client(): SdkClient;
  transport(url: string, provider: HeadlessSdkOAuthProvider): SdkTransport;
  /** Hands the callback to the transport (1.x takes the code; 2.x the parameters, to check `iss`, RFC 9207). */
  finishAuth(transport: SdkTransport, callback: URLSearchParams): Promise<void>;
}

const flavours: readonly Flavour[] = [
  {
    name: 'SDK 1.x',
    client: () => new Sdk1Client({ name: 'sdk1-oauth', version: '1.0.0' }) as unknown as SdkClient,
    transport: (url, provider) => new Sdk1HttpTransport(new URL(url), { authProvider: provider as never }),
    finishAuth: (transport, callback) => (transport as Sdk1HttpTransport).finishAuth(callback.get('code') ?? ''),
  },
  {
    name: 'SDK 2.x',
    client: () => new Sdk2Client({ name: 'sdk2-oauth', version: '2.0.0' }) as unknown as SdkClient,
    transport: (url, provider) => new Sdk2HttpTransport(new URL(url), { authProvider: provider as never }),
    finishAuth: (transport, callback) => (transport as Sdk2HttpTransport).finishAuth(callback),
  },
];

function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ text?: string }> }).content;
  return content?.[0]?.text ?? '';
}

/** Connects, doing the SDK's interactive round when it asks for one (bounded: two rounds at most). */
async function connect(flavour: Flavour, url: string, provider: HeadlessSdkOAuthProvider): Promise<{ client: SdkClient; transport: SdkTransport }> {
  for (let round = 0; round < 2; round += 1) {
    const client = flavour.client();
    const transport = flavour.transport(url, provider);
    try {
      await client.connect(transport as never);
      return { client, transport };
    } catch (error) {
      await transport.close().catch(() => undefined);
      if (!isUnauthorized(error)) throw error;
      await flavour.finishAuth(transport, provider.takeCallback());
    }
  }
  throw new Error('still unauthorized after an authorization round');
}

function isUnauthorized(error: unknown): boolean {
  return error instanceof Sdk1Unauthorized || (error instanceof Error && error.name === 'UnauthorizedError');
}

describe('official SDK clients with OAuth against our protected server', () => {
  let op: OidcProviderHandle;
  let protectedServer: ProtectedRxmcpServer;
  before(async () => {
    // Both SDKs register with the scope of the first challenge (mcp:read); oidc-provider would then refuse them
    // mcp:write for good, so the registration's scope is not enforced here.
    op = await startOidcProvider({ ignoreRegisteredScope: true });
    // The default response mode (SSE): a call lacking a scope is 403 with the challenge before its stream opens.
    protectedServer = await startProtectedRxmcpServer(op);
  });
  after(async () => {
    await protectedServer.close();
    await op.close();
  });

  for (const flavour of flavours) {
    test(`${flavour.name}: 401, discovery, registration, PKCE login, then ctx.auth in the handler`, async () => {
      op.approval = { accountId: `user-of-${flavour.name.replace(/\W/g, '')}` };
      const provider = new HeadlessSdkOAuthProvider();
      const { client, transport } = await connect(flavour, protectedServer.url, provider);
      try {
        assert.equal(provider.authorizationUrls.length, 1, 'one interactive login');
        const asked = provider.authorizationUrls[0];
        assert.equal(asked?.origin, op.issuer);
        assert.equal(asked?.searchParams.get('resource'), protectedServer.url, 'RFC 8707 resource = our canonical URI');
        assert.equal(asked?.searchParams.get('code_challenge_method'), 'S256');
        assert.match(asked?.searchParams.get('scope') ?? '', /mcp:read/);

        const token = provider.accessToken();
        assert.ok(token !== undefined);
        assert.equal(decodeJwt(token).aud, protectedServer.url);

        const me = JSON.parse(textOf(await client.callTool({ name: 'whoami' }))) as Record<string, unknown>;
        assert.equal(me['subject'], op.approval.accountId);
        assert.equal(me['issuer'], op.issuer);
        assert.equal(me['clientId'], (provider.clientInformation() ?? {})['client_id']);
        assert.deepEqual(me['scopes'], ['mcp:read']);
      } finally {
        await client.close();
        await transport.close();
      }
    });

    test(`${flavour.name}: a tool needing mcp:write is refused 403 insufficient_scope, the step-up gets it`, async () => {
      op.approval = { accountId: 'stepper' };
      // Without refresh tokens: with one, SDK 1.x answers the challenge by refreshing (same scope) and gives up.
      const provider = new HeadlessSdkOAuthProvider({ refreshTokens: false });
      let { client, transport } = await connect(flavour, protectedServer.url, provider);
      try {
        let result: unknown;
        try {
          result = await client.callTool({ name: 'write-note', arguments: { text: `from ${flavour.name}` } });
        } catch (error) {
          // The SDK's step-up: a second authorization asking for the scopes of the challenge, then reconnect.
          if (!isUnauthorized(error)) throw error;
          assert.equal(provider.authorizationUrls.length, 2);
          assert.match(provider.authorizationUrls[1]?.searchParams.get('scope') ?? '', /mcp:write/);
          await client.close();
          await transport.close();
          await flavour.finishAuth(transport, provider.takeCallback());
          ({ client, transport } = await connect(flavour, protectedServer.url, provider));
          result = await client.callTool({ name: 'write-note', arguments: { text: `from ${flavour.name}` } });
        }
        assert.equal(textOf(result), 'noted');
        assert.equal(provider.authorizationUrls.length, 2, 'the login, then the step-up');
        assert.match(String(decodeJwt(provider.accessToken() ?? '').scope), /mcp:write/);
        assert.deepEqual(protectedServer.notes.at(-1), { text: `from ${flavour.name}`, principal: 'stepper' });
      } finally {
        await client.close();
        await transport.close();
      }
    });
  }
});
