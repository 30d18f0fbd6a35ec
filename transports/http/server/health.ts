/**
 * Liveness and readiness probes beside the MCP endpoint, for orchestrators and load balancers (Kubernetes
 * `livenessProbe`/`readinessProbe`, target-group health checks).
 *
 * - Liveness (`/healthz`): 200 whenever the process answers, shutting down included (restarting a process
 *   while it drains would cut what it is finishing).
 * - Readiness (`/readyz`): 200 while a new session would be taken; 503 with the reason while it would not: the
 *   endpoint is shutting down, it or the server's session host holds its maximum of sessions, the host is
 *   closed, or the operator's own check (`health.readiness`: a database, the gateway's NATS connection) names
 *   a reason.
 *
 * On by default: they answer only requests that reach the handler on their paths, never a path of the MCP
 * endpoint (the MCP paths are matched first, and a probe configured on one is refused at construction), say no
 * more than a status and a reason, and go through the Host and Origin checks like everything else. GET and
 * HEAD only; no authentication unless `health.authenticate` asks for it.
 */
import type { HeaderMap, HttpRequest, HttpResponder } from './http-exchange.ts';
import { methodNotAllowed } from './replies.ts';

export interface HealthOptions {
  /** The liveness probe's path (default `/healthz`); false: none. */
  readonly livenessPath?: string | false;
  /** The readiness probe's path (default `/readyz`); false: none. */
  readonly readinessPath?: string | false;
  /**
   * A further readiness check: the reason this server should get no new sessions now (a dependency it needs is
   * down), or undefined when it is ready. Keep it quick: the probe waits for it. A check that throws counts as
   * not ready (its error is not shown).
   */
  readonly readiness?: () => string | undefined | Promise<string | undefined>;
  /** Probes pass through `authenticate` like MCP requests (default false: anyone the Host and Origin checks let in). */
  readonly authenticate?: boolean;
}

export interface HealthSettings {
  readonly livenessPath: string | undefined;
  readonly readinessPath: string | undefined;
  readonly readiness: HealthOptions['readiness'];
  readonly authenticate: boolean;
}

export type Probe = 'liveness' | 'readiness';

const DEFAULT_LIVENESS_PATH = '/healthz';
const DEFAULT_READINESS_PATH = '/readyz';
const PROBE_HEADERS: HeaderMap = Object.freeze({ 'content-type': 'application/json', 'cache-control': 'no-store' });

/**
 * The probes' settings; undefined when both are off. `mcpPaths` are the endpoint's own paths: a default probe
 * path among them is dropped (the MCP endpoint keeps it), an explicit one is an error.
 */
export function resolveHealth(options: HealthOptions | false | undefined, mcpPaths: readonly string[]): HealthSettings | undefined {
  if (options === false) return undefined;
  const pathOf = (given: string | false | undefined, fallback: string, name: string): string | undefined => {
    if (given === false) return undefined;
    if (given === undefined) return mcpPaths.includes(fallback) ? undefined : fallback;
    if (!given.startsWith('/')) throw new RangeError(`health.${name} must start with "/"; got ${JSON.stringify(given)}`);
    if (mcpPaths.includes(given)) throw new RangeError(`health.${name} ${JSON.stringify(given)} is a path of the MCP endpoint`);
    return given;
  };
  const livenessPath = pathOf(options?.livenessPath, DEFAULT_LIVENESS_PATH, 'livenessPath');
  const readinessPath = pathOf(options?.readinessPath, DEFAULT_READINESS_PATH, 'readinessPath');
  if (livenessPath !== undefined && livenessPath === readinessPath) throw new RangeError(`health.livenessPath and health.readinessPath are both ${JSON.stringify(livenessPath)}`);
  if (livenessPath === undefined && readinessPath === undefined) return undefined;
  return { livenessPath, readinessPath, readiness: options?.readiness, authenticate: options?.authenticate ?? false };
}

/** Which probe `path` is, if any. */
export function probeAt(settings: HealthSettings, path: string): Probe | undefined {
  return path === settings.livenessPath ? 'liveness' : path === settings.readinessPath ? 'readiness' : undefined;
}

/**
 * Answers a probe. `refusal` is the endpoint's own reason to take no new session now (shutting down, full);
 * the operator's check runs only when there is none.
 */
export async function answerProbe(probe: Probe, settings: HealthSettings, req: HttpRequest, res: HttpResponder, refusal: () => string | undefined): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res, 'GET, HEAD', 'a health probe takes GET or HEAD');
  const reason = probe === 'liveness' ? undefined : (refusal() ?? (await operatorReason(settings)));
  const [status, body] = reason === undefined ? [200, { status: probe === 'liveness' ? 'ok' : 'ready' }] : [503, { status: 'unavailable', reason }];
  res.respond(status, PROBE_HEADERS, req.method === 'HEAD' ? undefined : JSON.stringify(body));
}

async function operatorReason(settings: HealthSettings): Promise<string | undefined> {
  if (settings.readiness === undefined) return undefined;
  try {
    const reason = await settings.readiness();
    return reason === undefined ? undefined : String(reason);
  } catch {
    return 'the readiness check failed';
  }
}
