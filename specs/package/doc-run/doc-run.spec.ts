/**
 * The doc runner's reading of pages, without running them (docs.pack-test.ts runs them): markers and preludes,
 * console transcripts, what a terminal shows of a redrawn progress bar, output compared with elisions, the rxmcp
 * commands a line runs, and every block of the newcomer pages carrying a marker it understands.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../packed.ts';
import { commandLines, docBlocks, transcript } from './blocks.ts';
import { rxmcpInvocations } from './checks.ts';
import { outputMismatch, renderTerminal } from './output.ts';
import { withPackedTarball } from './runner.ts';

const fence = '```';

test('doc-run - markers, reasons and the prelude comment above a fence', () => {
  const page = [
    `${fence}sh run tty`,
    'npm install zod',
    fence,
    '<!-- doc-run prelude',
    'declare const server: unknown;',
    '-->',
    `${fence}ts check="a fragment: server is above"`,
    'server;',
    fence,
    `${fence}js file=server.js`,
    'console.log(1);',
    fence,
  ].join('\n');
  const [sh, ts, js] = docBlocks(page, 'page.md');
  assert.equal(sh?.lang, 'sh');
  assert.deepEqual([...(sh?.attrs ?? [])], [['run', ''], ['tty', '']]);
  assert.equal(sh?.prelude, undefined);
  assert.equal(ts?.attrs.get('check'), 'a fragment: server is above');
  assert.equal(ts?.prelude, 'declare const server: unknown;');
  assert.equal(ts?.line, 7);
  assert.equal(js?.attrs.get('file'), 'server.js');
  assert.equal(js?.body, 'console.log(1);');
});

test('doc-run - a block without a marker, with an unknown one, without its reason or with two actions is refused by line', () => {
  assert.throws(() => docBlocks(`text\n\n${fence}sh\nnpm test\n${fence}\n`, 'a.md'), /a\.md:3: a ```sh block without a doc-run marker/);
  assert.throws(() => docBlocks(`${fence}sh rnu\nx\n${fence}`, 'a.md'), /a\.md:1: unknown doc-run marker "rnu"/);
  assert.throws(() => docBlocks(`${fence}sh skip\nx\n${fence}`, 'a.md'), /skip needs its text/);
  assert.throws(() => docBlocks(`${fence}sh run skip="no"\nx\n${fence}`, 'a.md'), /one of run, skip, not several/);
  assert.throws(() => docBlocks(`${fence}sh run\nx\n`, 'a.md'), /never closed/);
});

test('doc-run - a console transcript, and commands continued over lines', () => {
  assert.deepEqual(transcript('$ npx rxmcp call x y   # a comment\nresult\n\n$ ls\n'), [
    { command: 'npx rxmcp call x y   # a comment', expected: ['result', ''] },
    { command: 'ls', expected: [''] },
  ]);
  assert.throws(() => transcript('output first\n$ ls'), /starts with "\$ command"/);
  assert.deepEqual(commandLines('# setup\nrxmcp gateway --name w \\\n  --auth-issuer https://a\n\nnpm test\n'), ['rxmcp gateway --name w    --auth-issuer https://a', 'npm test']);
});

test('doc-run - a terminal shows the last state of a line: a progress bar redrawn and erased leaves nothing', () => {
  const raw = '\x1b7\x1b[?25l\x1b[1Gforecast [██░░] 1/2 \x1b[0K\x1b[1Gforecast [████] 2/2 \x1b[0K\x1b[?25h\x1b8\x1b[1G\x1b[2KOslo: sunny\r\n⠙\x1b[1G\x1b[0K';
  assert.deepEqual(renderTerminal(raw), ['Oslo: sunny', '']);
  assert.deepEqual(renderTerminal('a\x1b[31mred\x1b[0m\nline two\rLINE'), ['ared', 'LINE two']);
});

test('doc-run - output compared line by line; "..." elides lines or part of a line', () => {
  assert.equal(outputMismatch(['server  weather', '...', 'prompts (1)'], ['server  weather', 'a', 'b', 'prompts (1)', '']), undefined);
  assert.equal(outputMismatch(['url: http://x/auth?client_id=...&scope=s'], ['url: http://x/auth?client_id=abc&state=z&scope=s']), undefined);
  assert.equal(outputMismatch(['...', 'last'], ['last']), undefined);
  const mismatch = outputMismatch(['Oslo: sunny for 2 days'], ['Oslo: sunny for 3 days']);
  assert.match(mismatch ?? '', /the page shows:\n {4}\| Oslo: sunny for 2 days\nthe command printed:\n {4}\| Oslo: sunny for 3 days/);
  assert.notEqual(outputMismatch(['a.c'], ['abc']), undefined, 'only "..." is a wildcard');
});

test('doc-run - the rxmcp commands a line runs (not a package named rxmcp being installed)', () => {
  assert.deepEqual(rxmcpInvocations('npx rxmcp serve --port 8080 --auth-issuer=https://a # --not-a-flag'), [{ command: 'serve', flags: ['--port', '--auth-issuer'] }]);
  assert.deepEqual(rxmcpInvocations('npm install rxmcp zod'), []);
  assert.deepEqual(rxmcpInvocations('PORT=1 rxmcp inspect -- node s.js --stdio && npx -y rxmcp demo'), [{ command: 'inspect', flags: [] }, { command: 'demo', flags: [] }]);
  assert.equal(withPackedTarball('npm install rxmcp zod\nnpx rxmcp serve', '/t/rxmcp-1.0.0.tgz'), 'npm install /t/rxmcp-1.0.0.tgz zod\nnpx rxmcp serve');
  assert.equal(withPackedTarball('npm install ../rxmcp-0.1.0.tgz', '/t.tgz'), 'npm install ../rxmcp-0.1.0.tgz');
});

test('doc-run - every block of the newcomer pages carries a marker the runner understands', () => {
  for (const page of ['README.md', 'docs/getting-started.md', 'docs/auth.md', 'examples/README.md']) {
    const blocks = docBlocks(readFileSync(join(REPO, page), 'utf8'), page);
    assert.ok(blocks.length > 0, page);
    for (const block of blocks.filter((candidate) => candidate.attrs.has('check'))) {
      assert.ok(block.lang === 'ts' || block.lang === 'js', `${page}:${block.line}: check is for TypeScript and JavaScript`);
    }
  }
});
