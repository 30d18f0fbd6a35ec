/**
 * Runs one page as a newcomer follows it: from an empty directory holding the release tarball (as downloaded),
 * block by block (blocks.ts says what each marker means), in one shell, with plain node and the TypeScript
 * compilers given. The page's fixed ports are mapped to free ones (in what runs, and back in what is compared), so
 * CI can run beside anything else; `PORT` is the mapped 3000, the default of `rxmcp serve` and of the servers the
 * pages write. Credentials of logins stay in the page's directory, and the browser the commands open is `true`:
 * the runner itself signs in where a block says `login`. The first failure ends the page with its file and line.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { REPO } from '../packed.ts';
import { type DocBlock, commandLines, docBlocks, transcript } from './blocks.ts';
import { AUTHORIZATION_URL, ReaderBrowser } from './browser-login.ts';
import { type Compiler, checkDeclaredImports, checkJson, checkRepoScripts, checkRxmcpFlags, compileProject, typeCheck } from './checks.ts';
import { outputMismatch } from './output.ts';
import { type Finished, ReaderShell } from './shell.ts';

export interface Toolchain {
  readonly compilers: readonly Compiler[];
  /** Where `@types/node` is found for the pages that never install it. */
  readonly typeRoots: string;
  /** The packed package's `rxmcp`, for the `--help` of skipped commands. */
  readonly rxmcp: string;
  readonly tarball: string;
}

export interface PageReport {
  readonly blocks: number;
  readonly ran: number;
  readonly typeChecked: number;
  /** The page's own TypeScript projects (a tsconfig.json it wrote), compiled by every compiler. */
  readonly projects: number;
  /** Each block's line and how long it took (the type-check at the end as line 0), for the CI log. */
  readonly timings: readonly { readonly line: number; readonly ms: number }[];
}

const DEFAULT_PORT = 3000;
const ADDRESS_PORT = /\b(?:127\.0\.0\.1|localhost):(\d{4,5})\b|--port[ =](\d{4,5})\b/g;

export async function runPage(page: string, work: string, toolchain: Toolchain): Promise<PageReport> {
  const markdown = readFileSync(join(REPO, page), 'utf8');
  const blocks = docBlocks(markdown, page);
  mkdirSync(work, { recursive: true });
  copyFileSync(toolchain.tarball, join(work, basename(toolchain.tarball)));
  const ports = await portMap(markdown);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: '',
    PORT: String(ports.get(DEFAULT_PORT)),
    XDG_CONFIG_HOME: join(work, '.config'),
    BROWSER: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const shell = new ReaderShell(work, env);
  const browser = new ReaderBrowser();
  const state = new PageState(page, ports, shell, browser, toolchain);
  const timings: { line: number; ms: number }[] = [];
  try {
    for (const block of blocks) {
      const started = Date.now();
      await state.take(block);
      timings.push({ line: block.line, ms: Date.now() - started });
    }
    const started = Date.now();
    await state.typeCheckAll();
    timings.push({ line: 0, ms: Date.now() - started });
  } finally {
    await shell.close();
    await browser.close();
  }
  return { blocks: blocks.length, ran: state.ran, typeChecked: state.typeSources.length, projects: state.projects.size, timings };
}

class PageState {
  ran = 0;
  readonly typeSources: string[] = [];
  /** Every file of code the page wrote or copied, for the check of what it imports. */
  readonly #code: string[] = [];
  readonly #fragments: DocBlock[] = [];
  readonly projects = new Set<string>();
  readonly #help = new Map<string, string>();
  /** What the last block that ran printed, for an `output` block after it. */
  #last: Finished | undefined;

  constructor(
    readonly page: string,
    readonly ports: ReadonlyMap<number, number>,
    readonly shell: ReaderShell,
    readonly browser: ReaderBrowser,
    readonly toolchain: Toolchain,
  ) {}

  async take(block: DocBlock): Promise<void> {
    const where = `${this.page}:${block.line}`;
    const { attrs } = block;
    const previous = this.#last;
    this.#last = undefined;
    if (block.lang === 'json') checkJson(block.body, where, this.shell.env);
    if (attrs.has('output')) return this.#compare(previous, block.body.split('\n'), where);
    if (attrs.has('skip')) return this.#checkSkipped(block, where);
    if (attrs.has('check')) {
      this.#fragments.push(block);
      return;
    }
    if (attrs.has('copy')) this.#copy(attrs.get('copy') ?? '');
    const file = attrs.get('file');
    if (file !== undefined) return this.#write(block, file, where);
    if (attrs.has('start')) return this.#start(block, attrs.get('start') ?? '', where);
    if (attrs.has('run')) return this.#run(block, where);
    throw new Error(`${where}: nothing to do with this block`);
  }

  async typeCheckAll(): Promise<void> {
    // The page's own projects first, before the fragments are written where they would see them.
    for (const project of this.projects) {
      try {
        await compileProject(project, this.toolchain.compilers);
      } catch (error) {
        throw new Error(`${this.page}: the project its tsconfig.json makes does not compile:\n${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const dir = this.shell.cwd;
    const fragmentDir = join(dir, '.doc-run', 'fragments');
    mkdirSync(fragmentDir, { recursive: true });
    for (const [index, block] of this.#fragments.entries()) {
      const path = join(fragmentDir, `line-${block.line}-${index}.ts`);
      writeFileSync(path, `${block.prelude === undefined ? '' : `${block.prelude}\n`}${this.#mapPorts(block.body)}\nexport {};\n`);
      this.typeSources.push(path);
    }
    checkDeclaredImports([...this.#code, ...this.typeSources], dir, this.page);
    try {
      await typeCheck(this.typeSources, dir, this.toolchain.typeRoots, this.toolchain.compilers);
    } catch (error) {
      const lines = this.#fragments.map((block) => block.line).join(', ');
      throw new Error(`${this.page}: the TypeScript of the page (files and the fragments at lines ${lines}) does not compile:\n${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async #run(block: DocBlock, where: string): Promise<void> {
    const tty = block.attrs.has('tty');
    if (block.lang === 'console') {
      for (const step of transcript(block.body)) {
        const output = await this.#command(step.command, tty, block.attrs.has('login'), `${where} (\`${step.command}\`)`);
        if (step.expected.some((line) => line.trim() !== '')) this.#compare(output, step.expected, `${where} (\`${step.command}\`)`);
      }
      return;
    }
    const output = await this.#command(commandLines(block.body).join('\n'), tty, block.attrs.has('login'), where);
    this.#last = output;
  }

  async #command(script: string, tty: boolean, login: boolean, where: string): Promise<Finished> {
    this.ran += 1;
    const signIns: Promise<void>[] = [];
    const seen = new Set<string>();
    let failure: unknown;
    const finished = await this.shell.run(withPackedTarball(this.#mapPorts(script), this.toolchain.tarball), {
      tty,
      ...(login
        ? {
            onOutput: (text: string) => {
              for (const match of text.matchAll(new RegExp(AUTHORIZATION_URL, 'g'))) {
                if (seen.has(match[0])) continue;
                seen.add(match[0]);
                signIns.push(this.browser.signIn(match[0]).catch((error: unknown) => void (failure ??= error)));
              }
            },
          }
        : {}),
    });
    await Promise.all(signIns);
    if (failure !== undefined) throw new Error(`${where}: signing in at the printed URL failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    if (login && seen.size === 0) throw new Error(`${where}: marked login, but printed no authorization URL:\n${finished.lines.join('\n')}`);
    if (finished.code !== 0) throw new Error(`${where}: exited ${finished.code ?? 'by a signal'}:\n${finished.lines.join('\n')}`);
    return { code: finished.code, lines: finished.lines.map((line) => this.#unmapPorts(line)) };
  }

  async #start(block: DocBlock, ready: string, where: string): Promise<void> {
    const steps = block.lang === 'console' ? transcript(block.body) : commandLines(block.body).map((command) => ({ command, expected: [] }));
    const [step, extra] = steps;
    if (step === undefined || extra !== undefined) throw new Error(`${where}: start="..." takes exactly one command`);
    this.ran += 1;
    let output: Finished;
    try {
      output = await this.shell.start(this.#mapPorts(step.command), ready);
    } catch (error) {
      throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
    output = { code: null, lines: output.lines.map((line) => this.#unmapPorts(line)) };
    if (step.expected.some((line) => line.trim() !== '')) this.#compare(output, step.expected, where);
    this.#last = output;
  }

  #write(block: DocBlock, file: string, where: string): Promise<void> | void {
    const path = resolve(this.shell.cwd, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${this.#mapPorts(block.body)}\n`);
    if (basename(path) === 'tsconfig.json') this.projects.add(dirname(path));
    if (/\.[mc]?ts$/.test(path)) this.typeSources.push(path);
    else if (/\.[mc]?js$/.test(path)) this.#code.push(path);
    if (block.attrs.has('run')) return this.#runFile(path, where);
  }

  /** A TypeScript file is compiled (first compiler) and its JavaScript run; a JavaScript file is run as it is. */
  async #runFile(path: string, where: string): Promise<void> {
    let script = `node ${JSON.stringify(path)}`;
    if (/\.[mc]?ts$/.test(path)) {
      const out = join(this.shell.cwd, '.doc-run', 'out');
      const compiler = this.toolchain.compilers[0];
      if (compiler === undefined) throw new Error('no TypeScript compiler');
      const options = `--target ES2022 --module NodeNext --moduleResolution NodeNext --strict --skipLibCheck --types node --typeRoots ${JSON.stringify(this.toolchain.typeRoots)} --outDir ${JSON.stringify(out)} --rootDir ${JSON.stringify(dirname(path))}`;
      script = `node ${JSON.stringify(compiler.tsc)} ${options} ${JSON.stringify(path)}\nnode ${JSON.stringify(join(out, basename(path).replace(/\.([mc]?)ts$/, '.$1js')))}`;
    }
    this.#last = await this.#command(script, false, false, where);
  }

  async #checkSkipped(block: DocBlock, where: string): Promise<void> {
    if (block.lang !== 'sh' && block.lang !== 'console') return;
    const lines = block.lang === 'console' ? transcript(block.body).map((step) => step.command) : commandLines(block.body);
    if (block.attrs.get('in') === 'repo') checkRepoScripts(lines, where);
    await checkRxmcpFlags(lines, this.toolchain.rxmcp, where, this.#help);
  }

  #compare(previous: Finished | undefined, expected: readonly string[], where: string): void {
    if (previous === undefined) throw new Error(`${where}: an output block follows no block that ran`);
    const mismatch = outputMismatch(expected, previous.lines);
    if (mismatch !== undefined) throw new Error(`${where}: the output differs from what the page shows\n${mismatch}`);
  }

  /** The repository files a block names (`copy="examples/*.ts"`: one folder, `*` in the name), copied into the shell's directory. */
  #copy(pattern: string): void {
    const folder = dirname(pattern);
    const name = new RegExp(`^${basename(pattern).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    const files = readdirSync(join(REPO, folder)).filter((file) => name.test(file));
    if (files.length === 0) throw new Error(`${this.page}: copy="${pattern}" names no file of the repository`);
    for (const file of files) {
      copyFileSync(join(REPO, folder, file), join(this.shell.cwd, file));
      this.#code.push(join(this.shell.cwd, file));
    }
  }

  #mapPorts(text: string): string {
    return text.replace(ADDRESS_PORT, (match, address?: string, flag?: string) => {
      const port = Number(address ?? flag);
      const mapped = this.ports.get(port);
      return mapped === undefined ? match : match.replace(String(port), String(mapped));
    });
  }

  #unmapPorts(text: string): string {
    let result = text;
    // After `:` or `=` or a space, or `%3A` (a URL inside a query string).
    for (const [port, mapped] of this.ports) result = result.replace(new RegExp(`(?<=[:= ]|%3A)${mapped}\\b`, 'g'), String(port));
    return result;
  }
}

/**
 * `npm install rxmcp` (once the package is on the registry, the pages say so) installs the packed tarball
 * instead: the pages are checked against this commit, not against the last release.
 */
export function withPackedTarball(script: string, tarball: string): string {
  return script
    .split('\n')
    .map((line) => (/^\s*npm (install|i|add)\b/.test(line) ? line.replace(/(?<=\s)rxmcp(@\S+)?(?=\s|$)/g, tarball) : line))
    .join('\n');
}

/** A free port for each fixed port the page names (and for 3000, the default one), taken from the system. */
async function portMap(markdown: string): Promise<Map<number, number>> {
  const fixed = new Set([DEFAULT_PORT]);
  for (const match of markdown.matchAll(ADDRESS_PORT)) fixed.add(Number(match[1] ?? match[2]));
  const map = new Map<number, number>();
  for (const port of fixed) map.set(port, await freePort());
  return map;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}
