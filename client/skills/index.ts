/**
 * `rxmcp/skills/client`: the host side of the skills extension (`io.modelcontextprotocol/skills`, SEP-2640). See
 * docs/extensions.md.
 */
export { SkillVerificationError, createSkillsClient, type LoadedSkill, type SkillsClient } from './skills-client.ts';
export {
  SKILLS_EXTENSION,
  SKILL_LIMITS,
  skillsExtension,
  isSkill,
  type Skill,
  type SkillFrontmatter,
  type SkillResource,
  type ListSkillsResult,
  type GetSkillResult,
  type ReadDirectoryResult,
  type SkillsSettings,
} from '../../core/protocol/skills.ts';
export { readFrontmatter } from '../../core/skills/frontmatter.ts';
export { skillDigest, verifySkillFile } from '../../core/skills/manifest.ts';
