/**
 * Elicitation: `elicitation/create` (server to client, 2025-06-18+) and `notifications/elicitation/complete`
 * (2025-11-25). In 2025-06-18 the params are form-only without `mode`; 2025-11-25 adds URL mode, the optional
 * `mode: 'form'`, `task`, string defaults, the titled / multi-select enum schemas and array answers.
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { TaskMetadata } from './tasks.ts';

export type StringSchema = {
  readonly type: 'string';
  readonly title?: string;
  readonly description?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: 'email' | 'uri' | 'date' | 'date-time';
  readonly default?: string;
};

export type NumberSchema = {
  readonly type: 'number' | 'integer';
  readonly title?: string;
  readonly description?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: number;
};

export type BooleanSchema = {
  readonly type: 'boolean';
  readonly title?: string;
  readonly description?: string;
  readonly default?: boolean;
};

/** A `const` value with its display title. */
export type TitledOption = {
  readonly const: string;
  readonly title: string;
};

export type UntitledSingleSelectEnumSchema = {
  readonly type: 'string';
  readonly title?: string;
  readonly description?: string;
  readonly enum: readonly string[];
  readonly default?: string;
};

export type TitledSingleSelectEnumSchema = {
  readonly type: 'string';
  readonly title?: string;
  readonly description?: string;
  readonly oneOf: readonly TitledOption[];
  readonly default?: string;
};

export type UntitledMultiSelectEnumSchema = {
  readonly type: 'array';
  readonly title?: string;
  readonly description?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly items: { readonly type: 'string'; readonly enum: readonly string[] };
  readonly default?: readonly string[];
};

export type TitledMultiSelectEnumSchema = {
  readonly type: 'array';
  readonly title?: string;
  readonly description?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly items: { readonly anyOf: readonly TitledOption[] };
  readonly default?: readonly string[];
};

/** The 2025-06-18 `EnumSchema` (titles via the non-standard `enumNames`); deprecated in 2025-11-25. */
export type LegacyTitledEnumSchema = {
  readonly type: 'string';
  readonly title?: string;
  readonly description?: string;
  readonly enum: readonly string[];
  readonly enumNames?: readonly string[];
  readonly default?: string;
};

export type SingleSelectEnumSchema = UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema;
export type MultiSelectEnumSchema = UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema;
export type EnumSchema = SingleSelectEnumSchema | MultiSelectEnumSchema | LegacyTitledEnumSchema;

/** One property of a form's requested schema: flat, primitive, no nesting. */
export type PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema;

/** The restricted object schema a form asks for. */
export type ElicitRequestedSchema = {
  readonly type: 'object';
  readonly properties: { readonly [name: string]: PrimitiveSchemaDefinition };
  readonly required?: readonly string[];
  readonly $schema?: string;
};

/** Form mode; `mode` may be omitted (2025-06-18 has no `mode`). */
export type ElicitRequestFormParams = {
  readonly mode?: 'form';
  readonly message: string;
  readonly requestedSchema: ElicitRequestedSchema;
  readonly task?: TaskMetadata;
  readonly _meta?: JsonObject;
};

/** URL mode (2025-11-25+): the user completes the flow out of band. */
export type ElicitRequestURLParams = {
  readonly mode: 'url';
  readonly message: string;
  /** Correlates `notifications/elicitation/complete`. */
  readonly elicitationId: string;
  readonly url: string;
  readonly task?: TaskMetadata;
  readonly _meta?: JsonObject;
};

/** Params of `elicitation/create`. */
export type ElicitParams = ElicitRequestFormParams | ElicitRequestURLParams;

export type ElicitAction = 'accept' | 'decline' | 'cancel';

/** A submitted form value; string arrays answer multi-select enums (2025-11-25+). */
export type ElicitValue = string | number | boolean | readonly string[];

export type ElicitResult = {
  readonly action: ElicitAction;
  /** Form mode with `accept` only. */
  readonly content?: { readonly [name: string]: ElicitValue };
  readonly _meta?: JsonObject;
};

/** Params of `notifications/elicitation/complete` (2025-11-25). */
export type ElicitationCompleteParams = {
  readonly elicitationId: string;
};

/** `error.data` of the `-32042` URL-elicitation-required error (2025-11-25). */
export type URLElicitationRequiredData = {
  readonly elicitations: readonly ElicitRequestURLParams[];
};
