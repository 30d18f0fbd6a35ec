/**
 * One contender's client in a process of its own, forked by bench/contender-hosts.ts with an IPC channel:
 *
 *   node --import tsx bench/contender-host.ts --suite=stdio|modern --contender=<name> --loader=tsx|strip [--server-prof]
 *
 * It builds the contender with the suite's own factory (bench/stdio-calls.ts `stdioSuite`, bench/modern-calls.ts
 * `modernSuite`: the same code the in-process harness runs, server child and checks included), replies `ready`, then
 * answers one request at a time: `measure` (calls at a level, timed here: wall clock, this process's
 * `process.cpuUsage()`, the server child's CPU from /proc), `rate` (calls/s over about a time: warm-up,
 * calibration) and `close` (the contender closed, its failed calls and listener warnings reported, then exit).
 * The parent going away closes the contender too.
 */
import { type Closed, type HostReply, type HostRequest, type HostSuite, type HostSuiteName, type SuiteContender, inProcess } from './contender-hosts.ts';
import { argLoader, argValue } from './lib.ts';
import { quietListenerWarnings } from './transport-lib.ts';

const suites: Record<HostSuiteName, () => Promise<HostSuite>> = {
  stdio: async () => (await import('./stdio-calls.ts')).stdioSuite,
  modern: async () => (await import('./modern-calls.ts')).modernSuite,
};

const send = (reply: HostReply): Promise<void> =>
  new Promise((resolve, reject) => {
    if (process.send === undefined) reject(new Error('bench/contender-host.ts runs only as a forked child, with an IPC channel'));
    else process.send(reply, undefined, {}, (error) => (error === null ? resolve() : reject(error)));
  });

const message = (error: unknown): string => (error instanceof Error ? (error.stack ?? error.message) : String(error));

async function build(): Promise<{ suite: HostSuite; contender: SuiteContender }> {
  const suiteName = argValue('suite');
  const name = argValue('contender');
  if (suiteName !== 'stdio' && suiteName !== 'modern') throw new RangeError(`--suite must be stdio or modern, got ${String(suiteName)}`);
  if (name === undefined) throw new RangeError('--contender=<name> is required');
  const suite = await suites[suiteName]();
  return { suite, contender: await suite.make(name, argLoader()) };
}

async function host(): Promise<void> {
  const listenerWarnings = quietListenerWarnings();
  let built: Awaited<ReturnType<typeof build>>;
  try {
    built = await build();
  } catch (error) {
    await send({ kind: 'error', message: message(error) });
    process.exit(1);
  }
  const { suite, contender } = built;
  const driven = inProcess(contender);
  const close = async (): Promise<Closed> => {
    const failure = suite.failure?.(contender.name);
    await driven.close();
    return { ...(failure === undefined ? {} : { failure }), listenerWarnings: listenerWarnings() };
  };
  const answer = async (request: HostRequest): Promise<HostReply> => {
    if (request.kind === 'measure') return { kind: 'sample', sample: await driven.measure(request.count, request.width) };
    if (request.kind === 'rate') return { kind: 'rate', callsPerSecond: await driven.rate(request.width, request.ms) };
    return { kind: 'closed', closed: await close() };
  };
  // One request at a time: the parent waits for each reply before it sends the next.
  process.on('message', (request) => {
    answer(request as HostRequest).then(
      async (reply) => {
        await send(reply);
        if (reply.kind === 'closed') process.exit(0);
      },
      async (error: unknown) => send({ kind: 'error', message: message(error) }),
    ).catch(() => process.exit(1));
  });
  process.once('disconnect', () => void close().finally(() => process.exit(0)));
  await send({ kind: 'ready', label: contender.label, ...(contender.era === undefined ? {} : { era: contender.era }) });
}

await host();
