/** The options of `rxmcp gateway`, as cli/gateway/command.ts parses them: the named gateway's, and the mesh's. */
import type { AuthArgs } from '../auth-args.ts';
import type { NatsConnectArgs } from '../nats-args.ts';
import type { MeshFaceArgs } from './mesh-args.ts';

/** What the named gateway and the mesh share: where to connect and listen, who may call, how to stop. */
export interface GatewayFrontArgs {
  readonly nats: NatsConnectArgs;
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /**
   * Copies of the JetStream buckets and streams it creates in a JetStream cluster (`--js-replicas`): the named
   * gateway's session bucket and event stream, the session records of the mesh's `--serve-nats`.
   */
  readonly replicas: number | undefined;
  /** The file of the private JWK the gateway signs its callers' identity assertions with. */
  readonly identityKey: string | undefined;
  readonly identityIssuer: string | undefined;
  /** Callers need an access token (`--auth-issuer` ...), with this resource URI. */
  readonly auth: { readonly args: AuthArgs; readonly resource: string } | undefined;
  /** Once told to stop, how long requests in flight may still be answered (`--drain-ms`, default 10 s). */
  readonly drainMs: number;
}

/** `rxmcp gateway --name S`: one NATS-hosted server on HTTP. */
export interface GatewayArgs extends GatewayFrontArgs {
  readonly mesh?: undefined;
  readonly name: string;
  readonly prefix: string;
}

/** `rxmcp gateway --mesh`: the union of the servers on NATS, on HTTP (and NATS with `--serve-nats`). */
export interface MeshGatewayArgs extends GatewayFrontArgs {
  readonly mesh: MeshFaceArgs;
}
