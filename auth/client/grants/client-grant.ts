/**
 * A grant that brings its own client identity (client credentials, workload identity, enterprise-managed): the
 * client was registered with the authorization server beforehand, so the flow that runs the grant registers
 * nothing and reads `clientId` to key its token store. The grant authenticates itself and ignores the context's
 * `client` and `clientAuth`.
 */
import * as oauth from 'oauth4webapi';
import type { Grant } from '../grant.ts';
import type { SettledClient } from '../registration.ts';

export interface ClientGrant extends Grant {
  /** The `client_id` this grant authenticates as at the authorization server. */
  readonly clientId: string;
  /** The grant type it sends (`client_credentials`, `urn:ietf:params:oauth:grant-type:jwt-bearer`). */
  readonly grantType: string;
  /**
   * True when a refused token request is final: the flow must surface the error, neither retrying the grant
   * nor falling back to another one (SEP-1933 for workload identity).
   */
  readonly final: boolean;
}

/** Attaches the identity to a grant function. */
export function clientGrant(grant: Grant, identity: Pick<ClientGrant, 'clientId' | 'grantType' | 'final'>): ClientGrant {
  return Object.assign(grant, identity);
}

/** Whether a grant brings its own client identity. */
export function isClientGrant(grant: Grant): grant is ClientGrant {
  const candidate = grant as Partial<ClientGrant>;
  return typeof candidate.clientId === 'string' && typeof candidate.grantType === 'string';
}

/** The provider's record of such a grant's client: nothing registered, and no client auth of the provider's (the grant authenticates). */
export function ownClient(grant: ClientGrant): SettledClient {
  return { registration: { clientId: grant.clientId }, client: { client_id: grant.clientId }, clientAuth: oauth.None(), source: 'pre-registered' };
}
