/**
 * The skills the conformance server serves (SUITE-0.2.0-alpha.12.md §3.3, sep-2640-skills-*): two skills, the first
 * (by URI) with a subfolder so `resources/directory/read` has an `inode/directory` child to show, one with extra
 * frontmatter fields, one under an organizational prefix.
 */
import { SkillDirectory } from '../../server/skills/skill-directory.ts';
import { type SkillsOptions, skills } from '../../server/skills/serve-skills.ts';
import type { ServerExtension } from '../../server/server-api.ts';

export const CONFORMANCE_SKILL_FILES: Readonly<Record<string, string>> = {
  'pdf-processing/SKILL.md': [
    '---',
    'name: pdf-processing',
    'description: Extract, fill, and assemble PDF documents',
    'license: Apache-2.0',
    'metadata:',
    '  version: "2.1.0"',
    '---',
    '',
    '# PDF processing',
    '',
    'Fill forms with the field list in `references/FORMS.md`; pick a template from `templates/`.',
    '',
  ].join('\n'),
  'pdf-processing/references/FORMS.md': '# Form fields\n\nEvery AcroForm field, by name.\n',
  'pdf-processing/templates/invoice.md': '# Invoice\n\nNumber, date, lines, total.\n',
  'pdf-processing/templates/regional/eu-invoice.md': '# EU invoice\n\nAdds the VAT number.\n',
  'team/git-workflow/SKILL.md': [
    '---',
    'name: git-workflow',
    'description: Follow this team\'s Git conventions for branching and commits',
    '---',
    '',
    '# Git workflow',
    '',
    'Branch from main, one topic per branch, squash on merge.',
    '',
  ].join('\n'),
};

/** The skills extension over those files, with `directoryRead`. */
export function conformanceSkills(options: SkillsOptions = { directoryRead: true }): ServerExtension {
  return skills(new SkillDirectory(CONFORMANCE_SKILL_FILES), options);
}
