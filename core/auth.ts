/**
 * Who is calling, as a server's transport established it (a verified bearer token over HTTP, an identity vouched
 * for across NATS, or whatever an embedding program's own `authenticate` decided). Handlers read it as
 * `ctx.auth`; interceptors, `sessions$` and the request log see its `principal`.
 *
 * Plain data on purpose: it crosses process boundaries (the gateway carries it over NATS) and is shared by every
 * request of a session, so it holds no token and no functions.
 */
export interface AuthInfo {
  /**
   * The key sessions and tasks are bound to: a session opened by one principal is not found by another. The
   * resource-server kit sets it to the token's subject, qualified by its issuer when a server trusts several.
   */
  readonly principal: string;
  /** The token's subject (`sub`), when it has one (a client-credentials token may not). */
  readonly subject?: string | undefined;
  /** The OAuth client the token was issued to (`client_id` / `azp`). */
  readonly clientId?: string | undefined;
  /** The issuer that vouched for the caller (`iss`). */
  readonly issuer?: string | undefined;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** When the credentials stop being valid, in milliseconds since the epoch. */
  readonly expiresAt?: number | undefined;
  /** The verified claims (or the introspection answer), for decisions the fields above do not cover. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Whether `auth` grants every scope in `required`. */
export function hasScopes(auth: AuthInfo | undefined, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  if (auth === undefined) return false;
  for (const scope of required) if (!auth.scopes.includes(scope)) return false;
  return true;
}
