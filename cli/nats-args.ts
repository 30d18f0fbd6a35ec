/**
 * The NATS connection flags every command that connects to NATS shares (`serve --nats`, `gateway`, `bridge`, and
 * `nats://` targets), one parser for all: the URL, then one way to authenticate and TLS. Each flag has an
 * environment form (flags win), the names the `nats` CLI uses, so secrets need not appear on a command line.
 */
import type { NatsCredentials } from '../transports/nats/connect-options.ts';
import { UsageError } from './args.ts';

export const natsConnectionFlags = {
  nats: { type: 'string' },
  'nats-user': { type: 'string' },
  'nats-password': { type: 'string' },
  'nats-token': { type: 'string' },
  'nats-nkey': { type: 'string' },
  'nats-creds': { type: 'string' },
  'nats-ca': { type: 'string' },
  'nats-cert': { type: 'string' },
  'nats-key': { type: 'string' },
} as const;

/** The credential flags alone, for commands whose NATS URL comes from elsewhere (a `nats://` target). */
export const natsCredentialFlags = (({ nats: _url, ...credentials }) => credentials)(natsConnectionFlags);

export const natsConnectionHelp = `NATS connection (each flag also read from the environment variable named; the flag wins):
  --nats URL[,URL...]   the NATS server ($NATS_URL, then nats://127.0.0.1:4222); a cluster's nodes,
                        comma-separated, to fail over between them
  --nats-user U         user name ($NATS_USER), with --nats-password P ($NATS_PASSWORD)
  --nats-token T        a token ($NATS_TOKEN)
  --nats-nkey FILE      a file holding a user nkey seed, SU... ($NATS_NKEY)
  --nats-creds FILE     a .creds file: user JWT and seed ($NATS_CREDS)
  --nats-ca FILE        TLS: the CA of the server's certificate ($NATS_CA)
  --nats-cert FILE      TLS: this client's certificate ($NATS_CERT), with --nats-key FILE ($NATS_KEY)`;

export interface NatsConnectArgs {
  readonly url: string;
  readonly credentials: NatsCredentials;
}

type FlagValues = { readonly [K in keyof typeof natsConnectionFlags]?: string | undefined };

/** The connection the flags (and the environment) describe; a usage error for combinations that cannot work. */
export function natsConnectionOf(command: string, values: FlagValues, env: NodeJS.ProcessEnv = process.env): NatsConnectArgs {
  const pick = (flag: keyof FlagValues, variable: string): string | undefined => {
    const value = values[flag] ?? env[variable];
    return value === '' ? undefined : value;
  };
  const credentials: NatsCredentials = {
    user: pick('nats-user', 'NATS_USER'),
    password: pick('nats-password', 'NATS_PASSWORD'),
    token: pick('nats-token', 'NATS_TOKEN'),
    nkeySeedFile: pick('nats-nkey', 'NATS_NKEY'),
    credsFile: pick('nats-creds', 'NATS_CREDS'),
    tls: { caFile: pick('nats-ca', 'NATS_CA'), certFile: pick('nats-cert', 'NATS_CERT'), keyFile: pick('nats-key', 'NATS_KEY') },
  };
  const ways = [
    credentials.user !== undefined || credentials.password !== undefined ? '--nats-user/--nats-password' : undefined,
    credentials.token !== undefined ? '--nats-token' : undefined,
    credentials.nkeySeedFile !== undefined ? '--nats-nkey' : undefined,
    credentials.credsFile !== undefined ? '--nats-creds' : undefined,
  ].filter((way) => way !== undefined);
  if (ways.length > 1) throw new UsageError(command, `give one way to authenticate to NATS, not ${ways.join(' and ')} (flags or their environment variables)`);
  if (credentials.password !== undefined && credentials.user === undefined) throw new UsageError(command, '--nats-password needs --nats-user');
  if ((credentials.tls?.certFile === undefined) !== (credentials.tls?.keyFile === undefined)) throw new UsageError(command, '--nats-cert and --nats-key go together');
  return { url: pick('nats', 'NATS_URL') ?? 'nats://127.0.0.1:4222', credentials };
}

/** Copies of the JetStream buckets and streams a command creates (`--js-replicas N`), for a JetStream cluster. */
export const jetstreamReplicasFlag = { 'js-replicas': { type: 'string' } } as const;

export const jetstreamReplicasHelp = `  --js-replicas N       copies of the JetStream buckets and streams it creates, in a JetStream cluster
                        (default 1; 3 survives the loss of a node; docs/nats-binding.md, "Clusters")`;

/** The identity flags of a command that serves on NATS (`serve --nats`, `bridge to-nats`). */
export const natsTrustFlags = {
  'trust-gateway': { type: 'string', multiple: true },
  'require-identity': { type: 'boolean' },
} as const;

export const natsTrustHelp = `identity across NATS (docs/nats-binding.md):
  --trust-gateway FILE  a JSON file with the public JWK (or JWKS) of a gateway whose identity assertions this
                        server believes (repeatable); messages with assertions that do not verify are refused
  --require-identity    refuse messages that carry no identity (default: served as anonymous)`;

export interface NatsTrustArgs {
  /** The files of the gateways' public keys. */
  readonly keyFiles: readonly string[];
  readonly required: boolean;
}

export function natsTrustOf(command: string, values: { readonly 'trust-gateway'?: string[] | undefined; readonly 'require-identity'?: boolean | undefined }): NatsTrustArgs | undefined {
  const keyFiles = values['trust-gateway'] ?? [];
  if (values['require-identity'] === true && keyFiles.length === 0) throw new UsageError(command, '--require-identity needs --trust-gateway FILE (whose identities would it accept?)');
  return keyFiles.length === 0 ? undefined : { keyFiles, required: values['require-identity'] === true };
}
