/**
 * Interop of the skills extension with the official TypeScript SDK 2.x, which implements it
 * (`@modelcontextprotocol/server/ext/skills`, `@modelcontextprotocol/client/ext/skills`), over Streamable HTTP on
 * 127.0.0.1, legacy era (2025-11-25; the SDK client also in the 2026-07-28 era, negotiated with `auto`):
 *   - the SDK's `SkillsClient` against our server (`skills(directory)`): its strict listing accepts every entry, and
 *     its verifying `read` accepts our SKILL.md and files (size, digest, frontmatter);
 *   - our `createSkillsClient` against the SDK's `SkillCatalog`: listing, loading with verification, a supporting file and
 *     a directory read.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/server';
import { SkillCatalog, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';
import { createClient } from '../../client/create-client.ts';
import { createSkillsClient } from '../../client/skills/skills-client.ts';
import { createServer } from '../../server/create-server.ts';
import { SkillDirectory } from '../../server/skills/skill-directory.ts';
import { skills } from '../../server/skills/serve-skills.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/client/index.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { CONFORMANCE_SKILL_FILES } from '../conformance/skills-catalog.ts';
import { serveSdk2Http } from '../support/interop-sdk-http.ts';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

describe('skills interop with the official SDK 2.x', () => {
  for (const mode of ['legacy', 'auto'] as const) {
    test(`the SDK SkillsClient (${mode === 'legacy' ? '2025-11-25' : 'auto: 2026-07-28'}) lists, gets and reads (verified) from our server`, async () => {
      const server = createServer({ name: 'rxmcp-skills', version: '1.0.0', extensions: [skills(new SkillDirectory(CONFORMANCE_SKILL_FILES), { directoryRead: true })] });
      const http = createStreamableHttpServer({ server, path: '/mcp' });
      const { url } = await http.listen(0, '127.0.0.1');
      closers.push(() => http.close());
      const client = new Client(
        { name: 'sdk2-skills', version: '2.0.0' },
        mode === 'legacy' ? { supportedProtocolVersions: ['2025-11-25'], versionNegotiation: { mode } } : { versionNegotiation: { mode } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      closers.push(() => client.close());
      const host = new SkillsClient(client);
      assert.equal(host.supported, true);
      assert.equal(host.directoryRead, true);
      const { skills: entries, invalid } = await host.list();
      assert.deepEqual(invalid, []);
      assert.deepEqual(entries.map((entry) => entry.uri), ['skill://pdf-processing/SKILL.md', 'skill://team/git-workflow/SKILL.md']);
      const pdf = entries[0];
      assert.ok(pdf !== undefined);
      assert.deepEqual((await host.get(pdf.uri)).skill, pdf);
      const manifest = await host.read(pdf);
      assert.equal(manifest.verified, true);
      assert.deepEqual(manifest.frontmatter, pdf.frontmatter);
      assert.equal(manifest.text, CONFORMANCE_SKILL_FILES['pdf-processing/SKILL.md']);
      const forms = await host.read(pdf, 'references/FORMS.md');
      assert.equal(forms.verified, true);
      assert.equal(forms.text, CONFORMANCE_SKILL_FILES['pdf-processing/references/FORMS.md']);
      assert.equal(client.getNegotiatedProtocolVersion(), mode === 'legacy' ? '2025-11-25' : '2026-07-28');
    });
  }

  test('our createSkillsClient lists, loads (verified) and reads from the SDK SkillCatalog', async () => {
    const catalog = await SkillCatalog.load(memorySkillFiles({ ...CONFORMANCE_SKILL_FILES }));
    const sdk = await serveSdk2Http(() => {
      const server = new SdkMcpServer({ name: 'sdk2-skills-server', version: '2.0.0' }, { supportedProtocolVersions: ['2025-11-25'] });
      catalog.attach(server);
      return server;
    });
    closers.push(() => sdk.close());
    const session = await createClient({ name: 'rxmcp-skills-host', version: '1.0.0', era: 'legacy' }).connect(createStreamableHttpClientTransport(sdk.url));
    closers.push(() => session.close());
    const host = createSkillsClient(session);
    assert.equal(host.available, true);
    const entries = await host.listSkills();
    const pdf = entries.find((entry) => entry.frontmatter.name === 'pdf-processing');
    assert.ok(pdf !== undefined, JSON.stringify(entries.map((entry) => entry.uri)));
    const loaded = await host.load(pdf);
    assert.equal(loaded.markdown, CONFORMANCE_SKILL_FILES['pdf-processing/SKILL.md']);
    assert.equal(await loaded.readText('references/FORMS.md'), CONFORMANCE_SKILL_FILES['pdf-processing/references/FORMS.md']);
    // The catalog serves resources/directory/read, and our client reads it.
    assert.equal(host.directoryRead, true);
    const children = await host.readDirectory(pdf.uri.slice(0, -'/SKILL.md'.length));
    assert.ok(children.resources.some((child) => child.mimeType === 'inode/directory'), JSON.stringify(children));
  });
});
