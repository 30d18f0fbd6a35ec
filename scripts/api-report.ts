/**
 * The API report: every name each entry point of the package exports, with its type signature, one Markdown
 * file per entry point in api/ (`rxmcp.api.md`, `rxmcp-http.api.md`, ...). The files are committed, so a
 * change to the public surface shows up in review as a change to them.
 *
 *   npm run api:check    fails, naming the entry points that differ, when the surface no longer matches the files
 *   npm run api:update   rewrites the files
 *
 * It reads the TypeScript sources through the compiler API, so it needs no build: an entry point whose
 * `exports` target is built output (`./dist/x/index.js` with its `types`) is read from the source it is built
 * from (`./x/index.ts`). Members are listed as the checker sees them (inherited ones included), sorted by name.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
const reportDir = join(root, 'api');

interface Manifest {
  readonly name: string;
  readonly exports: Readonly<Record<string, unknown>>;
}

interface EntryPoint {
  /** `rxmcp`, `rxmcp/http`, ... */
  readonly specifier: string;
  /** The source file it is read from, relative to the root. */
  readonly source: string;
  readonly reportFile: string;
}

/** Every string target of an `exports` entry (conditions included). */
function targetsOf(entry: unknown): string[] {
  if (typeof entry === 'string') return [entry];
  if (typeof entry === 'object' && entry !== null) return Object.values(entry).flatMap(targetsOf);
  return [];
}

/** The source behind an `exports` target: itself when it is a .ts file, else the file it is built from. */
function sourceOf(targets: readonly string[]): string | undefined {
  for (const target of targets) {
    const path = target.replace(/^\.\//, '');
    const candidates = /\.ts$/.test(path) && !/\.d\.ts$/.test(path)
      ? [path]
      : [path.replace(/^dist\//, '').replace(/\.d\.ts$|\.js$/, '.ts')];
    const found = candidates.find((candidate) => existsSync(join(root, candidate)));
    if (found !== undefined) return found;
  }
  return undefined;
}

function entryPoints(manifest: Manifest): EntryPoint[] {
  return Object.entries(manifest.exports)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, entry]) => {
      const source = sourceOf(targetsOf(entry));
      if (source === undefined) throw new Error(`no TypeScript source found for the export "${subpath}" (${JSON.stringify(entry)})`);
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`;
      return { specifier, source, reportFile: `${specifier.replace(/\//g, '-')}.api.md` };
    });
}

const TYPE_FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

class Printer {
  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly enclosing: ts.SourceFile,
  ) {}

  private type(type: ts.Type, flags = 0): string {
    return this.checker.typeToString(type, this.enclosing, TYPE_FLAGS | flags);
  }

  private signature(signature: ts.Signature): string {
    return this.checker.signatureToString(signature, this.enclosing, TYPE_FLAGS);
  }

  private typeParameters(declaration: ts.Declaration): string {
    const parameters = (declaration as { typeParameters?: ts.NodeArray<ts.TypeParameterDeclaration> }).typeParameters;
    return parameters === undefined ? '' : `<${parameters.map((parameter) => parameter.getText()).join(', ')}>`;
  }

  private heritage(declaration: ts.Declaration): string {
    const clauses = (declaration as { heritageClauses?: ts.NodeArray<ts.HeritageClause> }).heritageClauses;
    return clauses === undefined ? '' : ` ${clauses.map((clause) => clause.getText()).join(' ')}`;
  }

  /** The members of an object-like type, one per line, sorted by name. */
  private members(type: ts.Type, indent: string): string[] {
    const lines: string[] = [];
    for (const property of [...this.checker.getPropertiesOfType(type)].sort((a, b) => a.name.localeCompare(b.name))) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (declaration !== undefined) {
        const modifiers = ts.getCombinedModifierFlags(declaration);
        if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
        if (ts.isPrivateIdentifier((declaration as ts.NamedDeclaration).name ?? ts.factory.createIdentifier('x'))) continue;
      }
      const optional = property.flags & ts.SymbolFlags.Optional ? '?' : '';
      const readonly = declaration !== undefined && ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly ? 'readonly ' : '';
      const propertyType = this.checker.getTypeOfSymbol(property);
      const isMethod = declaration !== undefined && (ts.isMethodSignature(declaration) || ts.isMethodDeclaration(declaration));
      if (isMethod) {
        // An optional method's type is `F | undefined`, whose union has no call signatures of its own.
        for (const signature of this.checker.getNonNullableType(propertyType).getCallSignatures()) lines.push(`${indent}${property.name}${optional}${this.signature(signature)};`);
      } else {
        lines.push(`${indent}${readonly}${property.name}${optional}: ${this.type(propertyType)};`);
      }
    }
    for (const signature of type.getCallSignatures()) lines.push(`${indent}${this.signature(signature)};`);
    for (const signature of type.getConstructSignatures()) lines.push(`${indent}new ${this.signature(signature)};`);
    const stringIndex = type.getStringIndexType();
    if (stringIndex !== undefined) lines.push(`${indent}[key: string]: ${this.type(stringIndex)};`);
    return lines;
  }

  /** One exported name: its kind, and its signature. */
  declaration(exportedName: string, exported: ts.Symbol): string {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(exported) : exported;
    const blocks: string[] = [];
    const declarations = symbol.declarations ?? [];
    const first = declarations[0];
    if (first === undefined) return `// ${exportedName}: no declaration`;

    if (symbol.flags & ts.SymbolFlags.Class) {
      const classDeclaration = declarations.find(ts.isClassDeclaration) ?? first;
      const instance = this.checker.getDeclaredTypeOfSymbol(symbol);
      const statics = this.checker.getTypeOfSymbol(symbol);
      const staticLines = this.members(statics, '  static ').filter((line) => !/^ {2}static prototype\b/.test(line));
      const constructors = statics.getConstructSignatures().map((signature) => `  new ${this.signature(signature)};`);
      blocks.push(
        [`class ${exportedName}${this.typeParameters(classDeclaration)}${this.heritage(classDeclaration)} {`, ...constructors, ...staticLines.filter((line) => !line.startsWith('  static new ')), ...this.members(instance, '  '), '}'].join('\n'),
      );
    } else if (symbol.flags & ts.SymbolFlags.Enum) {
      const members = (declarations.find(ts.isEnumDeclaration)?.members ?? []).map((member) => {
        const value = this.checker.getConstantValue(member);
        return `  ${member.name.getText()} = ${JSON.stringify(value)},`;
      });
      blocks.push([`enum ${exportedName} {`, ...members, '}'].join('\n'));
    } else {
      if (symbol.flags & ts.SymbolFlags.Function) {
        const type = this.checker.getTypeOfSymbol(symbol);
        for (const signature of type.getCallSignatures()) blocks.push(`function ${exportedName}${this.signature(signature)};`);
      } else if (symbol.flags & ts.SymbolFlags.Variable) {
        const isConst = ts.isVariableDeclaration(first) && (ts.getCombinedNodeFlags(first) & ts.NodeFlags.Const) !== 0;
        blocks.push(`${isConst ? 'const' : 'let'} ${exportedName}: ${this.type(this.checker.getTypeOfSymbol(symbol))};`);
      }
      if (symbol.flags & ts.SymbolFlags.Interface) {
        const interfaceDeclaration = declarations.find(ts.isInterfaceDeclaration) ?? first;
        const type = this.checker.getDeclaredTypeOfSymbol(symbol);
        blocks.push([`interface ${exportedName}${this.typeParameters(interfaceDeclaration)}${this.heritage(interfaceDeclaration)} {`, ...this.members(type, '  '), '}'].join('\n'));
      }
      if (symbol.flags & ts.SymbolFlags.TypeAlias) {
        const aliasDeclaration = declarations.find(ts.isTypeAliasDeclaration) ?? first;
        const type = this.checker.getDeclaredTypeOfSymbol(symbol);
        blocks.push(`type ${exportedName}${this.typeParameters(aliasDeclaration)} = ${this.type(type, ts.TypeFormatFlags.InTypeAlias)};`);
      }
    }
    return blocks.length > 0 ? blocks.join('\n') : `// ${exportedName}: ${ts.SymbolFlags[symbol.flags] ?? symbol.flags}`;
  }
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (config.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

/** An export specifier or declaration written `export type`: what it names is a type at the importer, even a class. */
function isTypeOnlyExport(declaration: ts.Declaration): boolean {
  if (ts.isExportSpecifier(declaration)) return declaration.isTypeOnly || declaration.parent.parent.isTypeOnly;
  if (ts.isExportDeclaration(declaration)) return declaration.isTypeOnly;
  return false;
}

/** Whether an exported name is a value at run time: it resolves to one, and no step of its re-exports is type-only. */
function isValueExport(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  let current = symbol;
  for (let steps = 0; (current.flags & ts.SymbolFlags.Alias) !== 0 && steps < 64; steps++) {
    if ((current.declarations ?? []).some(isTypeOnlyExport)) return false;
    const next = checker.getImmediateAliasedSymbol(current);
    if (next === undefined) break;
    current = next;
  }
  return (current.flags & ts.SymbolFlags.Value) !== 0;
}

/** The report of every entry point: file name -> content. */
function buildReports(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  const entries = entryPoints(manifest);
  const program = ts.createProgram(entries.map((entry) => join(root, entry.source)), compilerOptions());
  const checker = program.getTypeChecker();
  const reports = new Map<string, string>();
  for (const entry of entries) {
    const sourceFile = program.getSourceFile(join(root, entry.source));
    const moduleSymbol = sourceFile === undefined ? undefined : checker.getSymbolAtLocation(sourceFile);
    if (sourceFile === undefined || moduleSymbol === undefined) throw new Error(`cannot read the module ${entry.source}`);
    const printer = new Printer(checker, sourceFile);
    const exported = [...checker.getExportsOfModule(moduleSymbol)].sort((a, b) => a.name.localeCompare(b.name));
    const body = exported.map((symbol) => printer.declaration(symbol.name, symbol)).join('\n\n');
    // What an importer gets at run time (a class exported with `export type` is a type there).
    const values = exported.filter((symbol) => isValueExport(checker, symbol)).length;
    // Paths the checker names (types reachable but not exported) are written relative to the root, so the
    // report does not depend on where the repository is checked out.
    const portable = body.split(root).join('.');
    reports.set(
      entry.reportFile,
      [
        `# API report: \`${entry.specifier}\``,
        '',
        `Generated by \`npm run api:update\` from \`${entry.source}\` (scripts/api-report.ts). Do not edit by hand: a`,
        'change here is a change to the public surface, to be made on purpose.',
        '',
        `${exported.length} exported names: ${values} values, ${exported.length - values} types.`,
        '',
        '```ts',
        portable,
        '```',
        '',
      ].join('\n'),
    );
  }
  return reports;
}

function main(): void {
  const mode = process.argv[2];
  if (mode !== '--check' && mode !== '--update') throw new Error('usage: api-report.ts --check | --update');
  const reports = buildReports();
  if (mode === '--update') {
    mkdirSync(reportDir, { recursive: true });
    for (const file of readdirSync(reportDir)) if (file.endsWith('.api.md') && !reports.has(file)) rmSync(join(reportDir, file));
    for (const [file, content] of reports) writeFileSync(join(reportDir, file), content);
    console.log(`api: wrote ${[...reports.keys()].map((file) => relative(root, join(reportDir, file))).join(', ')}`);
    return;
  }
  const committed = existsSync(reportDir) ? readdirSync(reportDir).filter((file) => file.endsWith('.api.md')) : [];
  const differing = [...reports].filter(([file, content]) => !existsSync(join(reportDir, file)) || readFileSync(join(reportDir, file), 'utf8') !== content).map(([file]) => file);
  const stale = committed.filter((file) => !reports.has(file));
  if (differing.length > 0 || stale.length > 0) {
    console.error(
      `api: the public surface differs from the committed report (${[...differing, ...stale].map((file) => `api/${file}`).join(', ')}).\n` +
        'If the change is intended, run `npm run api:update` and commit the api/ files with it; `git diff api/` shows what changed.',
    );
    process.exitCode = 1;
    return;
  }
  console.log(`api: the public surface matches the report (${reports.size} entry points)`);
}

main();
