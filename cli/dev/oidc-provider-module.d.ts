/**
 * The part of `oidc-provider` (v9, ships no types) that `rxmcp dev auth-server` (cli/dev/) and the specs'
 * authorization server (specs/support/oidc-provider.ts) use. Deliberately narrow: configuration objects are passed
 * through as plain records. Only types: the command loads the package itself when it runs (an optional peer).
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface InteractionDetails {
    readonly uid: string;
    readonly prompt: {
      readonly name: string;
      readonly details: {
        readonly missingOIDCScope?: string[];
        readonly missingOIDCClaims?: string[];
        readonly missingResourceScopes?: Record<string, string[]>;
      };
    };
    readonly params: Record<string, unknown>;
    readonly session?: { readonly accountId: string };
    readonly grantId?: string;
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface GrantConstructor {
    new (properties: { accountId: string; clientId: string }): GrantInstance;
    find(id: string): Promise<GrantInstance | undefined>;
  }

  export interface ResourceServerInfo {
    readonly scope: string;
    readonly audience?: string;
    readonly accessTokenTTL?: number;
    readonly accessTokenFormat?: 'jwt' | 'opaque';
    readonly jwt?: { readonly sign?: { readonly alg: string } };
  }

  export interface ClientInstance {
    readonly clientId: string;
    readonly clientName?: string;
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
  };

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    readonly Grant: GrantConstructor;
    readonly Client: { find(id: string): Promise<ClientInstance | undefined> };
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
