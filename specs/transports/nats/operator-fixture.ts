/**
 * An operator-mode NATS setup for the credentials specs: an operator, an account and a user, their JWTs signed
 * with nkeys (nats' own `nkeys`; NATS JWTs use the `ed25519-nkey` algorithm, which JWT libraries do not offer),
 * the server configuration that trusts them (memory resolver), and the user's `.creds` file text.
 */
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { nkeys } from '@nats-io/transport-node';

type KeyPair = ReturnType<typeof nkeys.createOperator>;

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function natsJwt(signer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const head = encode({ typ: 'JWT', alg: 'ed25519-nkey' });
  const body = encode({ jti: `${name}-${Date.now()}`.toUpperCase(), iat: Math.floor(Date.now() / 1000), iss: signer.getPublicKey(), sub: subject, name, nats: { version: 2, ...nats } });
  const signature = Buffer.from(signer.sign(new TextEncoder().encode(`${head}.${body}`))).toString('base64url');
  return `${head}.${body}.${signature}`;
}

export interface OperatorSetup {
  /** Server configuration lines (writes the operator JWT into `dir`). */
  config(dir: string): Promise<string>;
  /** A `.creds` file's text for a user of the account (a fresh one each call when `stranger`: signed by another account). */
  creds(stranger?: boolean): string;
}

export function operatorSetup(): OperatorSetup {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const accountJwt = natsJwt(operator, account.getPublicKey(), 'acc', { type: 'account', limits: { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 } });
  return {
    async config(dir) {
      const operatorFile = join(dir, 'operator.jwt');
      await writeFile(operatorFile, natsJwt(operator, operator.getPublicKey(), 'op', { type: 'operator' }));
      return `operator: ${JSON.stringify(operatorFile)}\nresolver: MEMORY\nresolver_preload: { ${account.getPublicKey()}: ${JSON.stringify(accountJwt)} }`;
    },
    creds(stranger = false) {
      const user = nkeys.createUser();
      const issuer = stranger ? nkeys.createAccount() : account;
      const userJwt = natsJwt(issuer, user.getPublicKey(), 'usr', { type: 'user', pub: {}, sub: {}, subs: -1, data: -1, payload: -1 });
      return `-----BEGIN NATS USER JWT-----\n${userJwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${new TextDecoder().decode(user.getSeed())}\n------END USER NKEY SEED------\n`;
    },
  };
}
