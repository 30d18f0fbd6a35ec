/**
 * Skills (`io.modelcontextprotocol/skills`): a server publishes a folder of Agent Skills, a host lists them without
 * reading any file, loads one (its SKILL.md verified against the listing: size, digest, frontmatter), reads a
 * supporting file on demand, and refuses a skill whose served content was changed behind its listing.
 *
 * Run: node skills.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, createServer } from 'rxmcp';
import { createMemoryPair } from 'rxmcp/testing';
import { readSkillsFolder, skills } from 'rxmcp/skills';
import { SkillVerificationError, createSkillsClient } from 'rxmcp/skills/client';

// A folder with one skill: SKILL.md (frontmatter name = folder name) and a reference file.
const root = await fs.mkdtemp(join(tmpdir(), 'skills-example-'));
await fs.mkdir(join(root, 'release-notes', 'references'), { recursive: true });
await fs.writeFile(join(root, 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Write release notes from merged changes\n---\n\nGroup changes by area; see references/STYLE.md.\n');
await fs.writeFile(join(root, 'release-notes', 'references', 'STYLE.md'), 'One line per change, past tense.\n');

const server = createServer({ name: 'skills-example', version: '1.0.0', extensions: [skills(await readSkillsFolder(root, fs), { directoryRead: true })] });
const reads: string[] = [];
server.use((request, next) => {
  if (request.method === 'resources/read') reads.push(String(request.params?.['uri']));
  return next(request);
});
const [clientEnd, serverEnd] = createMemoryPair();
server.accept(serverEnd);
const session = await createClient({ name: 'skills-host', version: '1.0.0' }).connect(clientEnd);

const host = createSkillsClient(session);
assert.equal(host.available, true);
const [entry] = await host.listSkills();
assert.ok(entry !== undefined);
assert.equal(entry.frontmatter.description, 'Write release notes from merged changes');
assert.deepEqual(reads, [], 'listing reads no file');

const skill = await host.load(entry);
assert.match(skill.markdown, /Group changes by area/);
assert.equal(await skill.readText('references/STYLE.md'), 'One line per change, past tense.\n');
assert.deepEqual(reads, ['skill://release-notes/SKILL.md', 'skill://release-notes/references/STYLE.md']);

// The same entry against content changed after listing: refused, with the reason.
const changed = { ...entry, resources: entry.resources === 'dynamic' ? entry.resources : entry.resources.map((file) => ({ ...file, size: file.size + 1 })) };
await assert.rejects(host.load(changed), (error: unknown) => error instanceof SkillVerificationError && /bytes, but its entry says/.test(error.reason));

await session.close();
await server.close();
await fs.rm(root, { recursive: true });
console.log('skills: listed lazily, loaded verified, tampering refused');
