/**
 * A `SessionAcceptorPort` that serves each session with a stdio MCP server process of its own (a stdio server
 * serves one client), for `rxmcp bridge to-nats`.
 *
 * - A new session spawns the command and pipes the session's frames to it unchanged, both ways (pipe.ts). The
 *   session's first frames (its `initialize`) wait in the pipe while the process starts.
 * - A session taken over from a bridge process that died (`preinitialized`) gets a fresh process too, which
 *   first hears the handshake replayed (replayed-handshake.ts).
 * - The process exiting ends the session; the session ending stops the process (stdin end, SIGTERM, SIGKILL).
 * - At most `maxChildren` processes run. The binding asks `refusal()` before it opens or takes over a session,
 *   so a full bridge neither claims a session it cannot serve nor spawns for it: the client hears the reason,
 *   and a session taken over stays for another bridge. `accept` throws that refusal if asked anyway.
 * - Once the bridge is stopping (`stopping()`), a process still running after its session closed is hurried:
 *   SIGTERM `HURRIED_STEP_MS` after its session's last answers went (its stdin has ended by then), SIGKILL as
 *   long after, so a server that ignores both does not hold the bridge past its stop budget (cli/stopping.ts).
 * - Given a `description` (what a probe learned, bridged-description.ts), it describes itself, so the binding
 *   announces it on the services protocol; the list changes its processes say move the catalog revision.
 */
import { LocalError } from '../../core/errors.ts';
import type { GracefulCloseOptions, SessionAcceptorPort } from '../../core/transport.ts';
import type { StdioClientTransport } from '../../transports/stdio/index.ts';
import type { BridgedDescription } from './bridged-description.ts';
import { pendingTransport } from './pending-transport.ts';
import { type Pipe, pipeTransports } from './pipe.ts';
import { type AgreedHandshake, replayHandshake } from './replayed-handshake.ts';
import { LAST_ANSWERS_MS } from '../stopping.ts';
import { type ChildCommand, spawnChild } from './spawn-child.ts';

export interface ChildAcceptorOptions extends ChildCommand {
  /** Most server processes at once (default 100). */
  readonly maxChildren?: number;
  /** How long a new child may take to answer a replayed `initialize` (default 30 s). */
  readonly replayTimeoutMs?: number;
  /**
   * What the bridged server is, for media that announce it (the acceptor's `describe()`); its processes' list
   * changes are counted into it. Absent: the acceptor has no `describe()`, and the bridge is not announced.
   */
  readonly description?: BridgedDescription;
}

export interface ChildAcceptor extends SessionAcceptorPort {
  /** Sessions (and so server processes) open now. */
  readonly size: number;
  /** The bridge is stopping: new sessions are refused, and processes that outlive their session are hurried. */
  stopping(): void;
  /** Ends every session and stops every process (the bridge stopping). */
  closeAll(): Promise<void>;
}

interface Bridged {
  readonly pipe: Pipe;
  /** Its server process, once started, and whether it has exited. */
  readonly child: { readonly transport: StdioClientTransport; exited: boolean } | undefined;
  state: 'open' | 'closed';
}

export const DEFAULT_MAX_CHILDREN = 100;
/** While the bridge stops: the wait before SIGTERM for a process whose session closed, and again before SIGKILL. */
const HURRIED_STEP_MS = 150;

export function childAcceptor(options: ChildAcceptorOptions): ChildAcceptor {
  const maxChildren = options.maxChildren ?? DEFAULT_MAX_CHILDREN;
  const open = new Set<Bridged>();
  const label = [options.command, ...options.args].join(' ');

  let stopping = false;
  /**
   * Closes a session's pipe gracefully (the process answers what it runs first, for up to `drainMs`; the pipe
   * answers whatever is left), and so its process (its stdin ends). While the bridge stops, a process still
   * running HURRIED_STEP_MS after the drain and the last answers' time gets SIGTERM, and SIGKILL as long after.
   */
  const closeBridged = async (bridged: Bridged, closeOptions: GracefulCloseOptions = {}): Promise<void> => {
    const closing = bridged.pipe.close(closeOptions);
    if (!stopping) return closing;
    await Promise.race([bridged.pipe.answered(closeOptions.drainMs ?? 0), closing]);
    if (await settlesWithin(closing, (closeOptions.flushMs ?? LAST_ANSWERS_MS) + HURRIED_STEP_MS)) return;
    signal(bridged, 'SIGTERM');
    if (await settlesWithin(closing, HURRIED_STEP_MS)) return;
    signal(bridged, 'SIGKILL');
    await closing;
  };
  // By its pid, only while it has not exited (its exit is seen before any timer of ours runs again).
  const signal = (bridged: Bridged, name: NodeJS.Signals): void => {
    const child = bridged.child;
    if (child === undefined || child.exited) return;
    options.report(`server process ${child.transport.pid} still runs while the bridge stops: ${name}`);
    try {
      process.kill(child.transport.pid, name);
    } catch {
      // Gone meanwhile.
    }
  };
  const refusal = (): LocalError | undefined => {
    if (stopping) return new LocalError('SessionLimit', 'This bridge is stopping and takes no new sessions');
    if (open.size < maxChildren) return undefined;
    return new LocalError('SessionLimit', `This bridge already runs ${maxChildren} server processes, its limit (rxmcp bridge --max-children); try again later`);
  };

  const reported = (refused: LocalError | undefined): LocalError | undefined => {
    if (refused !== undefined) options.report(`refused a session: ${stopping ? 'stopping' : `${open.size} server processes run already (--max-children ${maxChildren})`}`);
    return refused;
  };

  const description = options.description;
  return {
    eras: 'legacy',
    // Only when there is something to say: serveNats announces an acceptor that has describe().
    ...(description === undefined ? {} : { describe: () => description.describe() }),
    get size() {
      return open.size;
    },
    // The binding asks once per session it would open or take over, so each refusal is reported once.
    refusal: () => reported(refusal()),
    accept(transport, acceptOptions) {
      const refused = reported(refusal());
      if (refused !== undefined) throw refused;
      const agreed: AgreedHandshake | undefined = acceptOptions?.preinitialized;
      const started: { child?: Bridged['child'] } = {};
      const making = spawnChild(options).then(
        (child) => {
          const known = { transport: child, exited: false };
          started.child = known;
          void child.exited.then(() => (known.exited = true));
          options.report(`server process ${child.pid} started for ${agreed === undefined ? 'a new session' : `a session taken over (replaying its ${agreed.revision} handshake)`} (${open.size} of at most ${maxChildren} running)`);
          const watched = options.description === undefined ? child : options.description.watch(child);
          return agreed === undefined ? watched : replayHandshake(watched, agreed, options.replayTimeoutMs === undefined ? {} : { timeoutMs: options.replayTimeoutMs });
        },
        (error: unknown) => {
          options.report(`could not start ${label}: ${error instanceof Error ? error.message : String(error)}`);
          throw error;
        },
      );
      // Subscribed at once: the binding hands the session its first frame as soon as accept returns.
      const pipe = pipeTransports(transport, pendingTransport(making, 'stdio'), { names: ['the NATS session', 'the server process'], report: options.report });
      const bridged: Bridged = {
        pipe,
        get child() {
          return started.child;
        },
        state: 'open',
      };
      open.add(bridged);
      void pipe.done.then(() => {
        bridged.state = 'closed';
        open.delete(bridged);
      });
      return {
        get state() {
          return bridged.state;
        },
        close: (closeOptions?: GracefulCloseOptions) => closeBridged(bridged, closeOptions),
      };
    },
    stopping() {
      stopping = true;
    },
    async closeAll() {
      stopping = true;
      await Promise.all(Array.from(open, (bridged) => closeBridged(bridged, { flushMs: LAST_ANSWERS_MS })));
    },
  };
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return settled;
}
