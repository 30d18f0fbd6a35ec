/**
 * The MCP protocol vocabulary: revisions, capabilities, the method table, lifecycle tags, and the legacy-era
 * (2024-11-05 .. 2025-11-25) feature message shapes with their runtime guards.
 */
export * from './capabilities.ts';
export * from './completion.ts';
export * from './content.ts';
export * from './elicitation.ts';
// The public guards; guards.ts also holds ones only the library uses.
export {
  isCallToolResult,
  isContentBlock,
  isCreateMessageResult,
  isElicitResult,
  isResourceContents,
  isRoot,
  isSamplingMessageContentBlock,
  isTool,
} from './guards.ts';
export * from './lifecycle-tags.ts';
export * from './logging.ts';
export * from './methods.ts';
export * from './pagination.ts';
export * from './prompts.ts';
export * from './resources.ts';
export * from './roots.ts';
export * from './sampling.ts';
export * from './tasks.ts';
export * from './tools.ts';
export * from './versions.ts';
