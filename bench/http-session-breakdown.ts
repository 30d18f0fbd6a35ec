/**
 * Where an idle rxmcp Streamable HTTP session's heap goes, on the server. The companion of
 * session-heap-breakdown.ts for HTTP, with the method of http-idle-sessions.ts: a fresh server child
 * (`bench/transport-programs.ts --transport=http --impl=rxmcp`), this process the raw node:http client.
 *
 *   npx tsx bench/http-session-breakdown.ts [--n=2000] [--warmup=200] [--mode=sse|json] [--loader=tsx|strip] [--keep]
 *
 * After the warm-up sessions the child writes a heap snapshot (after gc twice), then after `--n` more sessions
 * another; the two are grouped by node type and constructor/closure name, and the groups that grew are shown
 * per session, largest first. The snapshots are deleted unless `--keep`.
 */
import { readFile, rm } from 'node:fs/promises';
import { openSessions } from './http-idle-sessions.ts';
import { argInt, argLoader, argValue, emitResult, fmt, hasFlag, isMain } from './lib.ts';
import { diffGroups, groupSnapshotText } from './session-heap-breakdown.ts';
import { Program } from './transport-lib.ts';

interface Snapshot {
  readonly path: string;
  readonly sessions: number;
}

if (isMain(import.meta.url)) {
  const n = argInt('n', 2000);
  const warmup = argInt('warmup', 200);
  const mode = argValue('mode') === 'json' ? 'json' : 'sse';
  const loader = argLoader();
  const program = Program.start(loader, ['--transport=http', '--impl=rxmcp', `--mode=${mode}`, `--max-sessions=${n + warmup + 100}`], ['--expose-gc']);
  const url = new URL(String((await program.ready)['url']));
  await openSessions(url, warmup);
  const before = (await program.command('snapshot')) as unknown as Snapshot;
  await openSessions(url, n);
  const after = (await program.command('snapshot')) as unknown as Snapshot;
  await program.stop();
  if (after.sessions !== n + warmup) throw new Error(`the server holds ${after.sessions} sessions, expected ${n + warmup}`);
  const rows = diffGroups(groupSnapshotText(await readFile(before.path, 'utf8')), groupSnapshotText(await readFile(after.path, 'utf8')), n);
  if (!hasFlag('keep')) await Promise.all([rm(before.path), rm(after.path)]);
  console.log(`rxmcp idle Streamable HTTP session (responseMode '${mode}'), heap snapshot diff (n=${n}, loader ${loader}), groups of >= 4 B per session:`);
  let total = 0;
  for (const row of rows) {
    total += row.bytesPerSession;
    console.log(`  ${fmt(row.bytesPerSession, 0).padStart(6)} B  ${fmt(row.perSession, 2).padStart(6)} per session  ${row.key}`);
  }
  console.log(`  ${fmt(total, 0).padStart(6)} B  total of the groups shown`);
  emitResult({ n, warmup, mode, loader, snapshot: rows });
}
