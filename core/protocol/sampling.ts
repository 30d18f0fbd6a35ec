/**
 * Sampling: `sampling/createMessage` (server to client). Union of 2024-11-05 through 2025-11-25. Up to
 * 2025-06-18 a message's content is one text, image or (2025-03-26+) audio block; 2025-11-25 adds `tool_use` /
 * `tool_result` blocks, allows an array of blocks, and adds `tools`, `toolChoice`, `task` and message `_meta`.
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { MessageRole, SamplingMessageContentBlock } from './content.ts';
import type { TaskMetadata } from './tasks.ts';
import type { Tool } from './tools.ts';

/** One block, or (2025-11-25+) several. */
export type SamplingContent = SamplingMessageContentBlock | readonly SamplingMessageContentBlock[];

export type SamplingMessage = {
  readonly role: MessageRole;
  readonly content: SamplingContent;
  readonly _meta?: JsonObject;
};

/** A model name hint; clients may map it to an equivalent model of another provider. */
export type ModelHint = {
  readonly name?: string;
};

/** Priorities are 0 (unimportant) to 1 (most important). */
export type ModelPreferences = {
  readonly hints?: readonly ModelHint[];
  readonly costPriority?: number;
  readonly speedPriority?: number;
  readonly intelligencePriority?: number;
};

/** `thisServer` / `allServers` are soft-deprecated in 2025-11-25 (only with `sampling.context`). */
export type IncludeContext = 'none' | 'thisServer' | 'allServers';

/** 2025-11-25+; the client treats an absent mode as `auto`. */
export type ToolChoice = {
  readonly mode?: 'auto' | 'required' | 'none';
};

/** Params of `sampling/createMessage`. */
export type CreateMessageParams = {
  readonly messages: readonly SamplingMessage[];
  readonly modelPreferences?: ModelPreferences;
  readonly systemPrompt?: string;
  readonly includeContext?: IncludeContext;
  readonly temperature?: number;
  /** Integer; the client must respect it. */
  readonly maxTokens: number;
  readonly stopSequences?: readonly string[];
  /** Provider-specific pass-through. */
  readonly metadata?: JsonObject;
  /** Only when the client declared `sampling.tools` (2025-11-25+). */
  readonly tools?: readonly Tool[];
  readonly toolChoice?: ToolChoice;
  readonly task?: TaskMetadata;
  readonly _meta?: JsonObject;
};

/** The standard stop reasons; the field is an open string. */
export type StandardStopReason = 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse';

export type StopReason = StandardStopReason | (string & Record<never, never>);

export type CreateMessageResult = {
  readonly role: MessageRole;
  readonly content: SamplingContent;
  /** The model that produced the message. */
  readonly model: string;
  readonly stopReason?: StopReason;
  readonly _meta?: JsonObject;
};
