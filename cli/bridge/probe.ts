/**
 * What the stdio server program of `rxmcp bridge to-nats` is, learned before the bridge serves: one process of it
 * started for the purpose hears `initialize` (the newest legacy revision), and its answer says the server's name
 * and version and the revision it speaks; the process is then stopped (its stdin ends). The bridge announces that
 * on the NATS services protocol (bridged-description.ts), as serveNats announces an rxmcp server, so discovery
 * and a mesh find a bridged server like any other. The probe never completes the handshake: the process only
 * answers, it serves no session.
 */
import { LocalError } from '../../core/errors.ts';
import type { Subscription } from 'rxjs';
import { type JsonRpcResponse, classify, isErrorResponse, isJsonObject, request } from '../../core/jsonrpc.ts';
import { LATEST_LEGACY_REVISION, type LegacyRevision, isLegacyRevision } from '../../core/protocol/versions.ts';
import type { StdioClientTransport } from '../../transports/stdio/index.ts';
import { type ChildCommand, spawnChild } from './spawn-child.ts';

/** What the probed program said it is. */
export interface ProbedServer {
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** The revision it answered the probe's `initialize` with (the newest it speaks, up to ours). */
  readonly revision: LegacyRevision;
}

export interface ProbeOptions extends ChildCommand {
  /** How long the process may take to start and answer (default 10 s: the bridge serves only after). */
  readonly timeoutMs?: number;
  /** Ends the probe (the bridge was told to stop while it started): its process is stopped, the probe rejects. */
  readonly signal?: AbortSignal;
}

/** The id of the probe's `initialize`. */
export const PROBE_ID = 'rxmcp-bridge:probe';
const PROBE_CLIENT = { name: 'rxmcp-bridge-probe', version: '0.1.0' };
const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * The probe's process serves nobody, so it is not waited for long after its stdin ended, nor after SIGTERM: a
 * program that ignores both delays the bridge's start by twice this, then gets SIGKILL.
 */
const PROBE_STOP_WAIT_MS = 250;
/** Longest name or version kept from the answer (the services protocol's metadata is small). */
const MAX_TEXT = 256;

/** Starts one process of the program, asks it `initialize`, stops it; rejects with why when it did not answer well. */
export async function probeServer(options: ProbeOptions): Promise<ProbedServer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const child = await spawnChild({ ...options, stopWaitMs: options.stopWaitMs ?? PROBE_STOP_WAIT_MS });
  options.report(`server process ${child.pid} started to learn what it serves, for the services protocol`);
  // However the bridge ends meanwhile (an error, process.exit), the probe's process does not outlive it: a program
  // that ignores its stdin's end would otherwise be left running with no parent.
  const pid = child.pid;
  const killOnExit = (): void => {
    if (pid === undefined) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', killOnExit);
  try {
    return await answerOf(child, timeoutMs, options.signal);
  } finally {
    await child.close();
    process.removeListener('exit', killOnExit);
  }
}

function answerOf(child: StdioClientTransport, timeoutMs: number, signal: AbortSignal | undefined): Promise<ProbedServer> {
  return new Promise<ProbedServer>((resolve, reject) => {
    let settled = false;
    // Held here: the subscription may settle the probe before subscribe returns (a transport already ended).
    const held: { subscription?: Subscription } = {};
    const aborted = (): void => settle(new LocalError('RequestAborted', 'the bridge was told to stop before the program answered'));
    const settle = (outcome: ProbedServer | LocalError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      held.subscription?.unsubscribe();
      if (outcome instanceof LocalError) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(() => settle(new LocalError('PeerUnresponsive', `it did not answer initialize within ${timeoutMs} ms`)), timeoutMs);
    if (signal?.aborted === true) return aborted();
    signal?.addEventListener('abort', aborted, { once: true });
    held.subscription = child.incoming$.subscribe({
      next: (frame) => {
        if (frame.type !== 'message') return;
        const classified = classify(frame.payload);
        if (classified.kind === 'response' && classified.message.id === PROBE_ID) settle(readAnswer(classified.message));
      },
      // The transport's error names the exit ("... exited with code 3").
      error: (error: unknown) => settle(error instanceof LocalError ? error : new LocalError('TransportFailed', String(error), { cause: error })),
      complete: () => settle(new LocalError('ConnectionClosed', 'it ended before it answered initialize')),
    });
    if (settled) held.subscription.unsubscribe();
    const params = { protocolVersion: LATEST_LEGACY_REVISION, capabilities: {}, clientInfo: PROBE_CLIENT };
    Promise.resolve(child.send({ payload: request(PROBE_ID, 'initialize', params) })).catch((error: unknown) =>
      settle(new LocalError('TransportFailed', `initialize could not be sent: ${error instanceof Error ? error.message : String(error)}`)),
    );
  });
}

/** The server's answer, checked: a legacy revision we know and a `serverInfo` with a name and a version. */
function readAnswer(answer: JsonRpcResponse): ProbedServer | LocalError {
  if (isErrorResponse(answer)) return new LocalError('ProtocolViolation', `it refused initialize: ${answer.error.message}`);
  const result = answer.result;
  if (!isJsonObject(result)) return new LocalError('ProtocolViolation', 'its initialize answer has no result');
  const revision = result['protocolVersion'];
  if (!isLegacyRevision(revision)) return new LocalError('UnsupportedVersion', `it answered protocol version ${JSON.stringify(revision)}, which this bridge does not know`);
  const info = result['serverInfo'];
  const name = isJsonObject(info) ? info['name'] : undefined;
  const version = isJsonObject(info) ? info['version'] : undefined;
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_TEXT || typeof version !== 'string' || version.length > MAX_TEXT) {
    return new LocalError('ProtocolViolation', 'its initialize answer has no serverInfo with a name and a version');
  }
  return { serverInfo: { name, version }, revision };
}
