/**
 * The credentials of a NATS connection as one plain object (user and password, a token, an nkey seed, a creds
 * file, TLS with a CA and a client certificate), turned into the `nats` client's connection options. The rxmcp
 * commands build every NATS connection with it (their `--nats-*` flags), and programs that connect themselves
 * may too. Files are read here, so a missing or unreadable one is named at once, not deep inside a handshake.
 */
import { readFileSync } from 'node:fs';
import { type ConnectionOptions, credsAuthenticator, nkeyAuthenticator } from '@nats-io/nats-core';

export interface NatsCredentials {
  /** User and password (`authorization { users = [...] }`). */
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  /** A token (`authorization { token: ... }`). */
  readonly token?: string | undefined;
  /** An nkey seed (`SU...`), or `nkeySeedFile`: the file holding it. */
  readonly nkeySeed?: string | undefined;
  readonly nkeySeedFile?: string | undefined;
  /** A `.creds` file (a user JWT and its nkey seed, from an operator/account setup such as `nsc`). */
  readonly credsFile?: string | undefined;
  /** TLS: the CA that signed the server's certificate, and this client's certificate and key (mutual TLS). */
  readonly tls?: {
    readonly caFile?: string | undefined;
    readonly certFile?: string | undefined;
    readonly keyFile?: string | undefined;
  } | undefined;
}

/**
 * `credentials` as `nats` connection options, on top of `base` (servers, name, reconnection). Throws a TypeError
 * naming the problem for combinations that cannot work (two ways to authenticate, a password without a user, a
 * certificate without its key) and for files that cannot be read.
 */
export function natsConnectionOptions(credentials: NatsCredentials, base: ConnectionOptions = {}): ConnectionOptions {
  const ways = [
    credentials.user !== undefined || credentials.password !== undefined ? 'user/password' : undefined,
    credentials.token !== undefined ? 'token' : undefined,
    credentials.nkeySeed !== undefined || credentials.nkeySeedFile !== undefined ? 'nkey' : undefined,
    credentials.credsFile !== undefined ? 'creds file' : undefined,
  ].filter((way) => way !== undefined);
  if (ways.length > 1) throw new TypeError(`NATS credentials: give one way to authenticate, not ${ways.join(' and ')}`);
  if (credentials.password !== undefined && credentials.user === undefined) throw new TypeError('NATS credentials: a password needs its user');
  if (credentials.nkeySeed !== undefined && credentials.nkeySeedFile !== undefined) throw new TypeError('NATS credentials: give the nkey seed or its file, not both');
  const options: { -readonly [K in keyof ConnectionOptions]: ConnectionOptions[K] } = { ...base };
  if (credentials.user !== undefined) {
    options.user = credentials.user;
    if (credentials.password !== undefined) options.pass = credentials.password;
  }
  if (credentials.token !== undefined) options.token = credentials.token;
  const seed = credentials.nkeySeed ?? (credentials.nkeySeedFile === undefined ? undefined : readText(credentials.nkeySeedFile, 'nkey seed').trim());
  if (seed !== undefined) {
    if (!/^SU[A-Z2-7]+$/.test(seed)) throw new TypeError('NATS credentials: the nkey seed must be a user seed (it starts with "SU")');
    options.authenticator = nkeyAuthenticator(new TextEncoder().encode(seed));
  }
  if (credentials.credsFile !== undefined) options.authenticator = credsAuthenticator(readBytes(credentials.credsFile, 'creds'));
  const tls = credentials.tls;
  if (tls !== undefined && (tls.caFile !== undefined || tls.certFile !== undefined || tls.keyFile !== undefined)) {
    if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) throw new TypeError('NATS credentials: a TLS client certificate needs its key, and a key its certificate');
    options.tls = {
      ...(tls.caFile === undefined ? {} : { ca: readText(tls.caFile, 'TLS CA') }),
      ...(tls.certFile === undefined ? {} : { cert: readText(tls.certFile, 'TLS certificate') }),
      ...(tls.keyFile === undefined ? {} : { key: readText(tls.keyFile, 'TLS key') }),
    };
  }
  return options;
}

function readBytes(path: string, what: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new TypeError(`NATS credentials: cannot read the ${what} file ${JSON.stringify(path)}: ${(error as Error).message}`, { cause: error });
  }
}

function readText(path: string, what: string): string {
  return new TextDecoder().decode(readBytes(path, what));
}
