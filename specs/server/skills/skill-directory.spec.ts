/**
 * The skills directory: entries computed from files (frontmatter as JSON, every file with its digest and size,
 * nested skills' files in the enclosing entry), folders and their children, and the refusals of what the extension
 * forbids. Also `readSkillsFolder` over Node's real file system.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createHash } from 'node:crypto';
import { SkillDirectory } from '../../../server/skills/skill-directory.ts';
import { readSkillsFolder } from '../../../server/skills/skills-folder.ts';

const skillMd = (name: string, extra = ''): string => `---\nname: ${name}\ndescription: The ${name} skill\n${extra}---\n\n# ${name}\n`;
const digest = (text: string | Uint8Array): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('SkillDirectory', () => {
  test('entries: frontmatter verbatim, every file once with digest and size, nested skills inside the enclosing one', () => {
    const binary = new Uint8Array([0, 255, 1, 254]);
    const refundsMd = skillMd('refunds', 'license: MIT\nmetadata:\n  version: "1.0"\n  tags: [a, b]\n');
    const directory = new SkillDirectory({
      'acme/billing/refunds/SKILL.md': refundsMd,
      'acme/billing/refunds/examples/email.md': 'Dear customer\n',
      'acme/billing/refunds/data.bin': binary,
      'acme/billing/refunds/partial/SKILL.md': skillMd('partial'),
      'git-workflow/SKILL.md': skillMd('git-workflow'),
    });
    assert.deepEqual(directory.skills.map((skill) => skill.uri), [
      'skill://acme/billing/refunds/SKILL.md',
      'skill://acme/billing/refunds/partial/SKILL.md',
      'skill://git-workflow/SKILL.md',
    ]);
    const refunds = directory.skill('skill://acme/billing/refunds/SKILL.md');
    assert.ok(refunds !== undefined);
    assert.deepEqual(refunds.frontmatter, { name: 'refunds', description: 'The refunds skill', license: 'MIT', metadata: { version: '1.0', tags: ['a', 'b'] } });
    assert.deepEqual(refunds.resources, [
      { uri: 'skill://acme/billing/refunds/SKILL.md', digest: digest(refundsMd), size: Buffer.byteLength(refundsMd) },
      { uri: 'skill://acme/billing/refunds/data.bin', digest: digest(binary), size: 4 },
      { uri: 'skill://acme/billing/refunds/examples/email.md', digest: digest('Dear customer\n'), size: 14 },
      { uri: 'skill://acme/billing/refunds/partial/SKILL.md', digest: digest(skillMd('partial')), size: Buffer.byteLength(skillMd('partial')) },
    ]);
    assert.equal(directory.skill('skill://acme/billing/refunds'), undefined);
    // The SKILL.md resource: named and described by its frontmatter, other fields under the extension's _meta prefix.
    assert.deepEqual(directory.file('skill://acme/billing/refunds/SKILL.md')?.resource, {
      uri: 'skill://acme/billing/refunds/SKILL.md', name: 'refunds', description: 'The refunds skill', mimeType: 'text/markdown', size: Buffer.byteLength(refundsMd),
      _meta: { 'io.modelcontextprotocol.skills/license': 'MIT', 'io.modelcontextprotocol.skills/metadata': { version: '1.0', tags: ['a', 'b'] } },
    });
    assert.equal(directory.file('skill://acme/billing/refunds/data.bin')?.resource.mimeType, 'application/octet-stream');
    // Folders list their direct children; subfolders as inode/directory; files are not folders.
    assert.deepEqual(directory.folder('skill://acme/billing/refunds')?.map((child) => [child.name, child.mimeType]), [
      // A file carries its ordinary resource metadata: SKILL.md is named by its frontmatter.
      ['refunds', 'text/markdown'], ['data.bin', 'application/octet-stream'], ['examples', 'inode/directory'], ['partial', 'inode/directory'],
    ]);
    assert.deepEqual(directory.folder('skill://acme')?.map((child) => child.uri), ['skill://acme/billing']);
    assert.equal(directory.folder('skill://acme/billing/refunds/SKILL.md'), undefined);
    assert.equal(directory.folder('skill://acme/billing/refunds/'), undefined);
  });

  test('refuses what the extension forbids, naming the reason', () => {
    const refused = (files: Record<string, string>, reason: RegExp) => assert.throws(() => new SkillDirectory(files), reason);
    refused({ 'a/SKILL.md': '# no frontmatter\n' }, /does not begin with a --- delimited YAML frontmatter/);
    refused({ 'a/SKILL.md': '---\nname: a\n---\n' }, /has no description/);
    refused({ 'a/SKILL.md': skillMd('b') }, /name "b" is not its folder's name "a"/);
    refused({ 'Bad--Name/SKILL.md': skillMd('Bad--Name') }, /naming rules/);
    refused({ 'a/SKILL.md': '---\nname: [a\n---\n' }, /not valid YAML/);
    refused({ 'a/../b/SKILL.md': skillMd('b') }, /not a plain relative path/);
    refused({ 'a//SKILL.md': skillMd('a') }, /not a plain relative path/);
    refused({ 'SKILL.md': skillMd('a') }, /outside any skill folder/);
    const many: Record<string, string> = { 'big/SKILL.md': skillMd('big') };
    for (let i = 0; i < 512; i++) many[`big/f${i}.txt`] = 'x';
    refused(many, /513 files, over the extension's limit of 512/);
    refused({ 'huge/SKILL.md': skillMd('huge'), 'huge/blob.txt': 'x'.repeat(16 * 1024 * 1024) }, /over the extension's limit of 16777216/);
  });
});

describe('readSkillsFolder', () => {
  test('reads regular files from a folder on disk, skips links, bounds the walk', async () => {
    const root = await fs.mkdtemp(join(tmpdir(), 'rxmcp-skills-'));
    try {
      await fs.mkdir(join(root, 'pdf-processing', 'references'), { recursive: true });
      await fs.writeFile(join(root, 'pdf-processing', 'SKILL.md'), skillMd('pdf-processing'));
      await fs.writeFile(join(root, 'pdf-processing', 'references', 'FORMS.md'), '# Forms\n');
      const outside = join(root, '..', `outside-${Date.now()}.txt`);
      await fs.writeFile(outside, 'secret');
      await fs.symlink(outside, join(root, 'pdf-processing', 'link.txt'));
      try {
        const directory = await readSkillsFolder(`${root}/`, fs);
        assert.deepEqual(directory.skill('skill://pdf-processing/SKILL.md')?.resources, [
          { uri: 'skill://pdf-processing/SKILL.md', digest: digest(skillMd('pdf-processing')), size: Buffer.byteLength(skillMd('pdf-processing')) },
          { uri: 'skill://pdf-processing/references/FORMS.md', digest: digest('# Forms\n'), size: 8 },
        ]);
        await assert.rejects(readSkillsFolder(root, fs, { maxFiles: 1 }), /more than 1 files/);
        await assert.rejects(readSkillsFolder(root, fs, { maxDepth: 1 }), /deeper than 1 levels/);
      } finally {
        await fs.rm(outside);
      }
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });
});
