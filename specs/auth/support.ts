/**
 * A small authorization server for the auth specs: RFC 8414 metadata and a JWKS served by node:http on 127.0.0.1,
 * an introspection endpoint answering from what the spec registered, and tokens minted with jose.
 */
import { type Server, createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, type JWK, type JWTPayload, SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export async function signingKey(alg: string, kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface TestAuthorizationServer extends AsyncDisposable {
  readonly issuer: string;
  /** Requests served, by path. */
  readonly hits: Map<string, number>;
  /** Tokens the introspection endpoint calls active, with their answer. */
  readonly introspected: Map<string, Record<string, unknown>>;
  /** The Authorization headers the introspection and revocation endpoints received, in order. */
  readonly authorizations: string[];
  /** Members that replace the metadata's own (an endpoint elsewhere). */
  readonly metadata: Record<string, unknown>;
  /** `typ` null: a JWT without a `typ` header (default `at+jwt`). */
  mint(claims: JWTPayload, options?: { key?: SigningKey; alg?: string; typ?: string | null }): Promise<string>;
}

export async function startAuthorizationServer(keys: readonly SigningKey[], introspectionClient = { id: 'rs', secret: 'rs-secret' }): Promise<TestAuthorizationServer> {
  const hits = new Map<string, number>();
  const introspected = new Map<string, Record<string, unknown>>();
  const authorizations: string[] = [];
  const metadata: Record<string, unknown> = {};
  let issuer = '';
  const http: Server = createHttpServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/.well-known/oauth-authorization-server') {
      return json(200, { issuer, jwks_uri: `${issuer}/jwks`, introspection_endpoint: `${issuer}/introspect`, revocation_endpoint: `${issuer}/revoke`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'], ...metadata });
    }
    if ((path === '/introspect' || path === '/revoke') && req.method === 'POST') authorizations.push(req.headers.authorization ?? '');
    if (path === '/revoke' && req.method === 'POST') {
      req.resume();
      return json(200, {});
    }
    if (path === '/jwks') return json(200, { keys: keys.map((key) => key.publicJwk) });
    if (path === '/introspect' && req.method === 'POST') {
      // client_secret_basic: each part form-urlencoded, then base64 (RFC 6749 section 2.3.1).
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const [id, secret] = Buffer.from(basic, 'base64').toString().split(':').map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
      if (id !== introspectionClient.id || secret !== introspectionClient.secret) return json(401, { error: 'invalid_client' });
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const token = new URLSearchParams(body).get('token') ?? '';
        json(200, introspected.get(token) ?? { active: false });
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const first = keys[0] as SigningKey;
  return {
    issuer,
    hits,
    introspected,
    authorizations,
    metadata,
    async mint(claims, options = {}) {
      const key = options.key ?? first;
      const typ = options.typ === undefined ? 'at+jwt' : options.typ;
      return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? key.alg, kid: key.kid, ...(typ === null ? {} : { typ }) }).sign(key.privateKey);
    },
    async [Symbol.asyncDispose]() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A DPoP key pair and proofs for it (RFC 9449). */
export async function dpopKey(alg = 'ES256'): Promise<{ jkt: string; proof(claims: { htm: string; htu: string; ath?: string; iat?: number; jti?: string }): Promise<string> }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return {
    jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    proof: ({ iat, jti, ...claims }) =>
      new SignJWT({ ...claims, jti: jti ?? crypto.randomUUID() })
        .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk })
        .setIssuedAt(iat ?? Math.floor(Date.now() / 1000))
        .sign(privateKey),
  };
}

/** `ath`: the base64url SHA-256 of the access token. */
export async function athOf(token: string): Promise<string> {
  return Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))).toString('base64url');
}
