/**
 * `rxmcp/skills`: the server side of the skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a skills
 * directory (in memory or read from a folder) served with `createServer({ extensions: [skills(directory)] })`.
 * See docs/extensions.md.
 */
export { SkillDirectory, type SkillFile, type SkillFiles } from './skill-directory.ts';
export { readSkillsFolder, type SkillsFileSystem, type SkillsFolderEntry, type SkillsFolderOptions } from './skills-folder.ts';
export { skills, type SkillsOptions } from './serve-skills.ts';
export {
  SKILLS_EXTENSION,
  SKILLS_META_PREFIX,
  SKILL_LIMITS,
  DIRECTORY_MIME_TYPE,
  skillsExtension,
  type Skill,
  type SkillFrontmatter,
  type SkillResource,
  type SkillsSettings,
} from '../../core/protocol/skills.ts';
