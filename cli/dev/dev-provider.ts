/**
 * The authorization server behind `rxmcp dev auth-server`: oidc-provider on 127.0.0.1, set up the way MCP clients
 * need one (open dynamic registration, RFC 7591; resource indicators, RFC 8707, each MCP server getting JWT access
 * tokens whose audience is its URL; PKCE S256 required; refresh tokens; revocation for `rxmcp logout`), with a
 * sign-in page of its own (sign-in-page.ts) that takes any name. Keys, clients, grants and sessions live in memory
 * and end with the process: it is for development on one machine, never for protecting anything.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JWK, exportJWK, generateKeyPair } from 'jose';
import type Provider from 'oidc-provider';
import type { InteractionDetails, ResourceServerInfo } from 'oidc-provider';
import { listenOrExplain } from '../listen.ts';
import { withOidcProvider } from '../optional-peer.ts';
import { ACCOUNT_NAME, SIGN_IN_PAGE_HEADERS, type SignInView, signInPage } from './sign-in-page.ts';

export interface DevAuthServerOptions {
  /** The port on 127.0.0.1 (0: a free one). */
  readonly port: number;
  /** The scopes it grants for MCP servers. */
  readonly scopes: readonly string[];
  /** What happens, for the terminal: registrations, sign-ins, errors. */
  readonly log: (line: string) => void;
}

export interface DevAuthServer {
  /** `http://127.0.0.1:<port>`: the issuer identifier, the value for `--auth-issuer`. */
  readonly issuer: string;
  close(): Promise<void>;
}

const ACCESS_TOKEN_SECONDS = 900;
const REFRESH_TOKEN_SECONDS = 8 * 3600;
const OIDC_SCOPES = ['openid', 'offline_access'];
/** A sign-in form is a name and a button. */
const MAX_FORM_BYTES = 4096;

export async function startDevAuthServer(options: DevAuthServerOptions): Promise<DevAuthServer> {
  const { default: ProviderClass, errors } = await withOidcProvider(() => import('oidc-provider'));
  const state: { provider?: Provider; issuer?: string } = {};
  const server: Server = createServer((req, res) => {
    const provider = state.provider;
    if (provider === undefined || state.issuer === undefined) {
      res.writeHead(503).end();
      return;
    }
    route(provider, state.issuer, options, req, res).catch((error: unknown) => {
      options.log(`error: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('the development authorization server failed on this request (see its terminal)\n');
    });
  });
  await listenOrExplain(
    () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, '127.0.0.1', () => resolve());
      }),
    options.port,
    '127.0.0.1',
  );
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const scopes = [...options.scopes];

  const provider = new ProviderClass(issuer, {
    jwks: { keys: await signingKeys() },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    scopes: [...OIDC_SCOPES, ...scopes],
    pkce: { required: () => true },
    // MCP clients rarely ask for offline_access: a client allowed the grant gets refresh tokens.
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: ACCESS_TOKEN_SECONDS, AuthorizationCode: 60, Grant: REFRESH_TOKEN_SECONDS, IdToken: 3600, Interaction: 600, RefreshToken: REFRESH_TOKEN_SECONDS, Session: REFRESH_TOKEN_SECONDS },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { dPoPSigningAlgValues: ['ES256', 'EdDSA', 'RS256', 'PS256'] },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      introspection: { enabled: true },
      dPoP: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // One resource asked for: tokens for it (with no resource, an opaque token for userinfo only).
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string | string[]) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string): ResourceServerInfo => {
          if (!isHttpUrl(resource)) throw new errors.InvalidTarget('a resource is the http(s) URL of an MCP server');
          return { scope: scopes.join(' '), audience: resource, accessTokenTTL: ACCESS_TOKEN_SECONDS, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    // Browser-based MCP clients (the Inspector's page) call the token endpoint from another origin.
    clientBasedCORS: () => true,
    cookies: { keys: [randomUUID()] },
  });
  provider.on('registration_create.success', (_ctx: unknown, client: unknown) => {
    const { clientId, clientName } = client as { clientId: string; clientName?: string };
    options.log(`registered a client: ${clientName ?? clientId}`);
  });
  provider.on('server_error', (_ctx: unknown, error: unknown) => options.log(`error: ${error instanceof Error ? error.message : String(error)}`));
  state.provider = provider;
  state.issuer = issuer;

  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function route(provider: Provider, issuer: string, options: DevAuthServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Only this machine's names: a web page cannot reach the server through DNS rebinding.
  const port = new URL(issuer).port;
  if (req.headers.host !== `127.0.0.1:${port}` && req.headers.host !== `localhost:${port}`) {
    res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8' }).end(`this server answers as ${issuer} only\n`);
    return;
  }
  const url = new URL(req.url ?? '/', issuer);
  const interaction = /^\/interaction\/([^/]+)$/.exec(url.pathname);
  if (interaction !== null) {
    if (req.method === 'GET') return showSignIn(provider, req, res);
    if (req.method === 'POST') return signIn(provider, options, req, res);
    res.writeHead(405, { allow: 'GET, POST' }).end();
    return;
  }
  if (url.pathname === '/' && req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`rxmcp development authorization server (oidc-provider), issuer ${issuer}: for development on this machine only\n`);
    return;
  }
  // RFC 8414 metadata too (oidc-provider serves the OpenID document only): same content.
  if (url.pathname === '/.well-known/oauth-authorization-server') req.url = `/.well-known/openid-configuration${url.search}`;
  provider.callback()(req, res);
}

async function showSignIn(provider: Provider, req: IncomingMessage, res: ServerResponse, problem?: string): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  res.writeHead(problem === undefined ? 200 : 400, SIGN_IN_PAGE_HEADERS).end(signInPage(await viewOf(provider, details, problem)));
}

async function viewOf(provider: Provider, details: InteractionDetails, problem: string | undefined): Promise<SignInView> {
  const clientId = String(details.params['client_id']);
  const client = await provider.Client.find(clientId);
  return {
    uid: details.uid,
    client: client?.clientName ?? clientId,
    resources: resourcesOf(details),
    scopes: scopesOf(details).filter((scope) => !OIDC_SCOPES.includes(scope)),
    account: details.prompt.name === 'login' ? undefined : details.session?.accountId,
    problem,
  };
}

/** The form's answer: a refusal, or a login (at the login prompt) and the grant of what was asked. */
async function signIn(provider: Provider, options: DevAuthServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const details = await provider.interactionDetails(req, res);
  if (form.get('decision') !== 'allow') {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user did not allow it' }, { mergeWithLastSubmission: false });
    return;
  }
  const login = details.prompt.name === 'login';
  const accountId = login ? (form.get('name') ?? '').trim() : (details.session?.accountId ?? '');
  if (!ACCOUNT_NAME.test(accountId)) return showSignIn(provider, req, res, 'A name is letters, digits and . _ @ -, at most 64 characters.');
  const clientId = String(details.params['client_id']);
  const grant = (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId });
  if (login) {
    // Granted together with the login, so one click answers both prompts: what the request asked for.
    const asked = scopesOf(details);
    for (const scope of asked) grant.addOIDCScope(scope);
    const granted = asked.filter((scope) => options.scopes.includes(scope));
    for (const resource of resourcesOf(details)) grant.addResourceScope(resource, granted.join(' '));
  } else {
    for (const scope of details.prompt.details.missingOIDCScope ?? []) grant.addOIDCScope(scope);
    for (const [resource, scopes] of Object.entries(details.prompt.details.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  const view = await viewOf(provider, details, undefined);
  options.log(`${accountId} signed in and allowed ${view.client}: ${view.scopes.join(' ') || 'no scope'}${view.resources.length === 0 ? '' : ` for ${view.resources.join(', ')}`}`);
  await provider.interactionFinished(req, res, { ...(login ? { login: { accountId } } : {}), consent: { grantId } }, { mergeWithLastSubmission: !login });
}

function scopesOf(details: InteractionDetails): string[] {
  const scope = details.params['scope'];
  return typeof scope === 'string' ? scope.split(' ').filter((value) => value !== '') : [];
}

function resourcesOf(details: InteractionDetails): string[] {
  const resource = details.params['resource'];
  if (typeof resource === 'string') return [resource];
  return Array.isArray(resource) ? resource.filter((value): value is string => typeof value === 'string') : [];
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hash === '';
  } catch {
    return false;
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req as AsyncIterable<Buffer>) {
    body += chunk.toString('utf8');
    if (body.length > MAX_FORM_BYTES) throw new Error('the sign-in form sent more than a name');
  }
  return new URLSearchParams(body);
}

/** An ES256 key for access and ID tokens, and an RS256 one for clients that ask for it. */
async function signingKeys(): Promise<JWK[]> {
  const ec = await generateKeyPair('ES256', { extractable: true });
  const rsa = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  return [
    { ...(await exportJWK(ec.privateKey)), kid: 'dev-es256', alg: 'ES256', use: 'sig' },
    { ...(await exportJWK(rsa.privateKey)), kid: 'dev-rs256', alg: 'RS256', use: 'sig' },
  ];
}
