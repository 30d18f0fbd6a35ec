/**
 * `rxmcp load`: runs runLoad (rxmcp/load) on the target of the command line, with the live status on stderr
 * (one line rewritten on a terminal, a line per interval when piped), the summary on stdout, the result and
 * report files written, and the budgets judged. Ctrl-C stops the run and still writes what it measured; a
 * second Ctrl-C exits at once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { NatsConnection } from '@nats-io/transport-node';
import { type Budgets, checkBudgets, readPreviousResult } from '../../load/budgets.ts';
import { type LoadOptions, type LoadTarget, resolveOptions } from '../../load/options.ts';
import { renderReport } from '../../load/report/html.ts';
import type { LoadResult } from '../../load/result.ts';
import { runLoad } from '../../load/run.ts';
import { renderSummary, statusLine } from '../../load/summary.ts';
import { EXIT_FAILURE, EXIT_OK, UsageError } from '../args.ts';
import { EXIT_INTERRUPTED } from '../client/call.ts';
import { withNats } from '../optional-peer.ts';
import { type LoadCommand, checkedOptions, parseLoadArgs } from './args.ts';

export { loadUsage } from './args.ts';

interface Output {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** Runs `rxmcp load <argv>`: the exit code, or undefined when the user asked for help. */
export async function runLoadCommand(argv: readonly string[], output: Output): Promise<number | undefined> {
  const command = parseLoadArgs(argv);
  if (command === undefined) return undefined;
  const previous = command.compare === undefined ? undefined : readCompare(command.compare);
  const nats = command.target.kind === 'nats' ? await openNats(command) : undefined;
  try {
    return await execute(command, previous, nats, output);
  } finally {
    if (nats !== undefined && !nats.isClosed()) await nats.drain().catch(() => nats.close());
  }
}

function readCompare(file: string): LoadResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError('rxmcp load', `cannot read --compare ${JSON.stringify(file)}: ${(error as { code?: string }).code ?? String(error)}`);
  }
  try {
    return readPreviousResult(text, file);
  } catch (error) {
    throw new UsageError('rxmcp load', error instanceof Error ? error.message : String(error));
  }
}

async function openNats(command: LoadCommand): Promise<NatsConnection> {
  const target = command.target;
  if (target.kind !== 'nats') throw new Error('not a NATS target');
  const { connectNats } = await withNats(() => import('../bridge/connect.ts'));
  return connectNats(target.servers, 'rxmcp load', target.credentials);
}

function loadTargetOf(command: LoadCommand, nats: NatsConnection | undefined): LoadTarget {
  const target = command.target;
  switch (target.kind) {
    case 'http':
      return { url: target.url, ...(command.headers === undefined ? {} : { headers: command.headers }) };
    case 'stdio':
      return { command: target.command, args: target.args, stderr: command.serverStderr ? 'inherit' : 'ignore' };
    case 'nats':
      if (nats === undefined) throw new Error('the NATS connection is not open');
      return { nats, name: target.name, ...(command.prefix === undefined ? {} : { prefix: command.prefix }) };
  }
}

async function execute(command: LoadCommand, previous: LoadResult | undefined, nats: NatsConnection | undefined, { out, err }: Output): Promise<number> {
  const tty = process.stderr.isTTY === true && !command.quiet;
  const jsonToStdout = command.json === '-';
  const say = jsonToStdout ? err : out;
  let live = false;
  const clearLive = (): void => {
    if (live) process.stderr.write('\r\x1b[K');
    live = false;
  };
  const aborter = new AbortController();
  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(EXIT_INTERRUPTED);
    clearLive();
    err('rxmcp load: stopping (Ctrl-C again to quit at once); the result so far follows');
    aborter.abort();
  };
  process.on('SIGINT', onInterrupt);
  const options: LoadOptions = checkedOptions(
    {
      ...command.workload,
      target: loadTargetOf(command, nats),
      signal: aborter.signal,
      onEvent: (line) => {
        clearLive();
        err(`rxmcp load: ${line}`);
      },
      ...(command.quiet
        ? {}
        : {
            onStatus: (status) => {
              if (tty) {
                process.stderr.write(`\r\x1b[K${statusLine(status)}`);
                live = true;
              } else {
                err(statusLine(status));
              }
            },
          }),
    },
    resolveOptions,
  );
  let result: LoadResult;
  try {
    result = await runLoad(options);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError('rxmcp load', error.message);
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
    clearLive();
  }
  return finish(command, result, previous, say, err, jsonToStdout ? out : undefined);
}

function finish(command: LoadCommand, result: LoadResult, previous: LoadResult | undefined, say: (text: string) => void, err: (text: string) => void, json: ((text: string) => void) | undefined): number {
  say(renderSummary(result));
  if (json !== undefined) json(JSON.stringify(result, null, 2));
  else if (command.json !== undefined) writeOrSay(command.json, `${JSON.stringify(result, null, 2)}\n`, 'the result', say);
  if (command.report !== undefined) writeOrSay(command.report, renderReport(result), 'the report', say);
  let verdict;
  try {
    verdict = checkBudgets(result, command.budgets satisfies Budgets, previous);
  } catch (error) {
    throw new UsageError('rxmcp load', error instanceof Error ? error.message : String(error));
  }
  for (const line of verdict.comparison) say(line);
  for (const line of verdict.broken) err(`rxmcp load: BROKEN: ${line}`);
  if (result.interrupted) return EXIT_INTERRUPTED;
  return verdict.ok ? EXIT_OK : EXIT_FAILURE;
}

function writeOrSay(file: string, text: string, what: string, say: (text: string) => void): void {
  writeFileSync(file, text);
  say(`${what} is in ${file}`);
}
