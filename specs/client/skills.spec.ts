/**
 * The skills extension end to end, both eras, over the memory transport: a `createServer` server serving a skills
 * directory with `skills(...)`, a client using `createSkillsClient(...)`. Server: declaration (with `directoryRead`),
 * pages of whole entries, `skills/get`, `resources/directory/read`, files as resources (text and binary). Client:
 * nothing read before `load`, lazy paging, verification of size, digest and frontmatter before use (a tampering
 * server is refused and nothing further is read), held-entry reads. Every message through the schema oracle, the
 * extension's with its own schema.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstValueFrom, take, toArray } from 'rxjs';
import { createClient } from '../../client/create-client.ts';
import { SkillVerificationError, createSkillsClient } from '../../client/skills/skills-client.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { createServer, type McpServer } from '../../server/create-server.ts';
import type { ServerExtension } from '../../server/server-api.ts';
import { SkillDirectory, type SkillFiles } from '../../server/skills/skill-directory.ts';
import { skills } from '../../server/skills/serve-skills.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { SKILLS_SCHEMAS, assertCleanWithExtensions } from '../support/extension-oracle.ts';
import { type SchemaOracle, withSchemaOracle } from '../support/schema-oracle.ts';

const PDF_MD = '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: "2.1.0"\n---\n\n# PDF\n\nSee references/FORMS.md.\n';
const BINARY = new Uint8Array([0, 1, 2, 250, 251, 255]);
const FILES: SkillFiles = {
  'pdf-processing/SKILL.md': PDF_MD,
  'pdf-processing/references/FORMS.md': '# Forms\n',
  'pdf-processing/assets/logo.png': BINARY,
  'git-workflow/SKILL.md': '---\nname: git-workflow\ndescription: Branch and commit conventions\n---\n\nBranch from main.\n',
  'reports/daily/SKILL.md': '---\nname: daily\ndescription: The daily report\n---\n\nCollect the numbers.\n',
};

interface Setup {
  readonly server: McpServer;
  readonly reads: string[];
  readonly methods: string[];
}

function serverWith(extension: ServerExtension): Setup {
  const server = createServer({ name: 's', version: '1', extensions: [extension] });
  const reads: string[] = [];
  const methods: string[] = [];
  server.use((request, next) => {
    methods.push(request.method);
    if (request.method === 'resources/read') reads.push(String(request.params?.['uri']));
    return next(request);
  });
  return { server, reads, methods };
}

async function connect(server: McpServer, era: 'legacy' | 'modern') {
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSide = withSchemaOracle(serverEnd, { role: 'server' });
  const clientSide = withSchemaOracle(clientEnd, { role: 'client' });
  server.accept(serverSide.transport);
  const session = await createClient({ name: 'c', version: '1', era }).connect(clientSide.transport);
  return { session, oracles: [serverSide.oracle, clientSide.oracle] as SchemaOracle[] };
}

async function wireError(promise: Promise<unknown>): Promise<WireError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  assert.ok(error instanceof WireError, `expected a WireError, got ${String(error)}`);
  return error;
}

for (const era of ['legacy', 'modern'] as const) {
  describe(`skills, ${era} era`, () => {
    test('the server declares, lists in whole entries, gets, reads directories and files', async () => {
      const { server } = serverWith(skills(new SkillDirectory(FILES), { directoryRead: true, pageSize: 1 }));
      const { session, oracles } = await connect(server, era);
      assert.deepEqual(session.serverCapabilities?.extensions, { 'io.modelcontextprotocol/skills': { directoryRead: true } });
      assert.ok(session.serverCapabilities?.resources !== undefined);
      const raw = (method: string, params: JsonObject) => session.session.request<JsonObject>(method, params);
      const first = await raw('skills/list', {});
      assert.equal((first['skills'] as unknown[]).length, 1);
      assert.equal(era === 'modern', 'ttlMs' in first);
      const client = createSkillsClient(session);
      const all = await client.listSkills();
      assert.deepEqual(all.map((skill) => skill.uri), ['skill://git-workflow/SKILL.md', 'skill://pdf-processing/SKILL.md', 'skill://reports/daily/SKILL.md']);
      const pdf = all[1];
      assert.ok(pdf !== undefined && pdf.resources !== 'dynamic');
      assert.equal(pdf.resources.length, 3);
      assert.deepEqual(pdf.frontmatter, { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', metadata: { version: '2.1.0' } });
      assert.deepEqual(await client.getSkill('skill://pdf-processing/SKILL.md'), pdf);
      const unknown = await wireError(client.getSkill('skill://nope/SKILL.md'));
      assert.equal(unknown.code, ErrorCode.InvalidParams);
      assert.equal((await wireError(raw('skills/list', { cursor: 'forged' }))).code, ErrorCode.InvalidParams);
      // Directories: direct children a page at a time; a file is not a directory.
      const page1 = await client.readDirectory('skill://pdf-processing');
      assert.equal(page1.resources.length, 1);
      assert.ok(page1.nextCursor !== undefined);
      const children = [...page1.resources];
      for (let cursor: string | undefined = page1.nextCursor; cursor !== undefined;) {
        const next = await client.readDirectory('skill://pdf-processing', cursor);
        children.push(...next.resources);
        cursor = next.nextCursor;
      }
      assert.deepEqual(children.map((child) => [child.uri, child.mimeType]), [
        ['skill://pdf-processing/SKILL.md', 'text/markdown'],
        ['skill://pdf-processing/assets', 'inode/directory'],
        ['skill://pdf-processing/references', 'inode/directory'],
      ]);
      assert.equal((await wireError(client.readDirectory('skill://pdf-processing/SKILL.md'))).code, ErrorCode.InvalidParams);
      // Files are resources: SKILL.md as markdown named by its frontmatter, a binary file as a blob.
      const listed = await session.listResources();
      assert.deepEqual(listed.find((resource) => resource.uri === 'skill://pdf-processing/SKILL.md')?.name, 'pdf-processing');
      const read = await session.readResource('skill://pdf-processing/SKILL.md');
      assert.deepEqual(read.contents, [{ uri: 'skill://pdf-processing/SKILL.md', mimeType: 'text/markdown', text: PDF_MD }]);
      const loaded = await client.load(pdf);
      assert.deepEqual([...(await loaded.readFile('assets/logo.png'))], [...BINARY]);
      await session.close();
      await server.close();
      for (const oracle of oracles) assert.ok(assertCleanWithExtensions(oracle, SKILLS_SCHEMAS) > 5);
    });

    test('params that are not the method\'s are -32602 (a client the oracle does not watch: it would flag them)', async () => {
      const { server } = serverWith(skills(new SkillDirectory(FILES), { directoryRead: true }));
      const [clientEnd, serverEnd] = createMemoryPair();
      server.accept(serverEnd);
      const session = await createClient({ name: 'c', version: '1', era }).connect(clientEnd);
      for (const method of ['skills/get', 'resources/directory/read']) {
        assert.equal((await wireError(session.session.request(method, { uri: 7 }))).code, ErrorCode.InvalidParams, method);
      }
      await session.close();
      await server.close();
    });

    test('the client reads nothing before load, pages lazily, and reads only listed files', async () => {
      const { server, reads, methods } = serverWith(skills(new SkillDirectory(FILES), { pageSize: 1 }));
      const { session, oracles } = await connect(server, era);
      const client = createSkillsClient(session);
      assert.equal(client.available, true);
      assert.equal(client.directoryRead, false);
      const firstOnly = await firstValueFrom(client.skills$().pipe(take(1), toArray()));
      assert.equal(firstOnly.length, 1);
      assert.equal(methods.filter((method) => method === 'skills/list').length, 1);
      const all = await client.listSkills();
      assert.deepEqual(reads, []);
      const pdf = all.find((skill) => skill.frontmatter.name === 'pdf-processing');
      assert.ok(pdf !== undefined);
      const loaded = await client.load(pdf);
      assert.equal(loaded.markdown, PDF_MD);
      assert.equal(await loaded.readText('references/FORMS.md'), '# Forms\n');
      await assert.rejects(loaded.readText('references/MISSING.md'), (error: unknown) => error instanceof SkillVerificationError && /not listed/.test(error.reason));
      await assert.rejects(loaded.readText('skill://git-workflow/SKILL.md'), (error: unknown) => error instanceof SkillVerificationError && /not a file of the skill/.test(error.reason));
      assert.deepEqual(reads, ['skill://pdf-processing/SKILL.md', 'skill://pdf-processing/references/FORMS.md']);
      // Without directoryRead the client refuses to call resources/directory/read.
      await assert.rejects(client.readDirectory('skill://pdf-processing'), /did not declare directoryRead/);
      await session.close();
      await server.close();
      for (const oracle of oracles) assertCleanWithExtensions(oracle, SKILLS_SCHEMAS);
    });

    for (const [tamper, served, reason] of [
      // Same length, other bytes: only the digest tells.
      ['digest', PDF_MD.replace('See references', 'Use references'), /hashes to sha256:/],
      ['size', `${PDF_MD}extra\n`, /bytes, but its entry says/],
      ['frontmatter', PDF_MD.replace('description: Extract, fill, and assemble PDF documents', 'description: Exfiltrate credentials'), /differs from its entry in "description"/],
    ] as const) {
      test(`a SKILL.md whose ${tamper} does not match its entry is refused and nothing further is read`, async () => {
        // Listed from the true files; served from tampered ones (for the frontmatter case, listed with the
        // tampered file's digest and size, so only the frontmatter comparison can catch it).
        const truth = new SkillDirectory(FILES);
        const tampered = new SkillDirectory({ ...FILES, 'pdf-processing/SKILL.md': served });
        const listedFrom = tamper === 'frontmatter'
          ? new SkillDirectory(FILES).skills.map((skill) => (skill.uri === 'skill://pdf-processing/SKILL.md'
            ? { ...skill, resources: tampered.skill(skill.uri)?.resources ?? [] }
            : skill))
          : truth.skills;
        const base = skills(truth);
        const lying: ServerExtension = {
          ...base,
          handlers: { ...base.handlers, 'skills/list': () => ({ skills: listedFrom }) },
          attach: (server) => skills(tampered).attach?.(server),
        };
        const { server, reads } = serverWith(lying);
        const { session } = await connect(server, era);
        const client = createSkillsClient(session);
        const pdf = (await client.listSkills()).find((skill) => skill.uri === 'skill://pdf-processing/SKILL.md');
        assert.ok(pdf !== undefined);
        await assert.rejects(client.load(pdf), (error: unknown) => error instanceof SkillVerificationError && reason.test(error.reason) && error.uri === pdf.uri);
        assert.deepEqual(reads, ['skill://pdf-processing/SKILL.md']);
        await session.close();
        await server.close();
      });
    }

    test('an entry over the limits is refused before any read', async () => {
      const { server, reads } = serverWith(skills(new SkillDirectory(FILES)));
      const { session } = await connect(server, era);
      const client = createSkillsClient(session);
      const pdf = (await client.listSkills())[1];
      assert.ok(pdf !== undefined && pdf.resources !== 'dynamic');
      const huge = { ...pdf, resources: [...pdf.resources, { uri: 'skill://pdf-processing/big.bin', digest: `sha256:${'0'.repeat(64)}`, size: 16 * 1024 * 1024 }] };
      await assert.rejects(client.load(huge), (error: unknown) => error instanceof SkillVerificationError && /over the extension's limit/.test(error.reason));
      assert.deepEqual(reads, []);
      await session.close();
      await server.close();
    });
  });
}
