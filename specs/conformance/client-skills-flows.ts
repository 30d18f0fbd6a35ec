/**
 * The conformance client's flows for the skills extension (SUITE-0.2.0-alpha.12.md §4.2, sep-2640-client-*), on the
 * public host API (`createSkillsClient`). The mock declares the extension and lists `pdf-processing` with its SKILL.md and
 * `references/FORMS.md`.
 * - no-prefetch: list only; a host reads no skill file before it loads the skill.
 * - verify-digest / -size / -frontmatter: list, load the first skill (reads SKILL.md, which the mock tampered with),
 *   and, were it accepted, go on to its supporting file as a host acting on it would. The load must refuse the
 *   skill, so FORMS.md is never read; the refusal is the expected outcome and ends the flow normally.
 */
import { SkillVerificationError, createSkillsClient } from '../../client/skills/skills-client.ts';
import type { ClientSession } from '../../client/session-api.ts';

type Flow = (session: ClientSession) => Promise<void>;

async function listed(session: ClientSession) {
  const skills = createSkillsClient(session);
  if (!skills.available) throw new Error('the server did not declare io.modelcontextprotocol/skills');
  return { skills, entries: await skills.listSkills() };
}

const verify: Flow = async (session) => {
  const { skills, entries } = await listed(session);
  const entry = entries[0];
  if (entry === undefined) throw new Error('skills/list listed no skill');
  try {
    const loaded = await skills.load(entry);
    await loaded.readText('references/FORMS.md');
  } catch (error) {
    if (!(error instanceof SkillVerificationError)) throw error;
    process.stderr.write(`refused ${entry.uri}: ${error.reason}\n`);
    return;
  }
  throw new Error(`${entry.uri} was accepted although the mock tampered with it`);
};

export const skillsFlows: Readonly<Record<string, Flow>> = {
  'sep-2640-client-no-prefetch': async (session) => {
    await listed(session);
  },
  'sep-2640-client-verify-digest': verify,
  'sep-2640-client-verify-size': verify,
  'sep-2640-client-verify-frontmatter': verify,
};
