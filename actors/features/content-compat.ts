/**
 * Content blocks an older revision cannot carry, rewritten so that revision's clients still receive valid
 * messages and the information: a `resource_link` (2025-06-18) becomes a text block naming the resource,
 * `audio` (2025-03-26) becomes a text block saying what was left out.
 */
import type { ContentBlock } from '../../core/protocol/content.ts';
import type { Revision } from '../../core/protocol/versions.ts';

/** Whether blocks may need rewriting for `revision` (cheap check for the hot path). */
export function needsContentCompat(revision: Revision | undefined): boolean {
  return revision !== undefined && revision < '2025-06-18';
}

export function compatBlock(block: ContentBlock, revision: Revision): ContentBlock {
  if (block.type === 'resource_link') {
    const label = block.title ?? block.name;
    const description = block.description === undefined ? '' : ` (${block.description})`;
    return { type: 'text', text: `Resource ${label}${description}: ${block.uri}` };
  }
  if (block.type === 'audio' && revision < '2025-03-26') {
    return { type: 'text', text: `[${block.mimeType} audio left out: protocol revision ${revision} cannot carry audio]` };
  }
  return block;
}

export function compatBlocks(blocks: readonly ContentBlock[], revision: Revision | undefined): readonly ContentBlock[] {
  if (!needsContentCompat(revision) || revision === undefined) return blocks;
  return blocks.map((block) => compatBlock(block, revision));
}
