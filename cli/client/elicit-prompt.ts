/**
 * How the command-line client answers a server's form elicitation: on a terminal it asks the user field by
 * field (node:readline, prompts on stderr so stdout keeps only results); without one it declines and says why.
 */
import { createInterface } from 'node:readline/promises';
import type { ElicitRequestFormParams, ElicitResult, ElicitValue, PrimitiveSchemaDefinition } from '../../core/protocol/elicitation.ts';

type JsonValue = ElicitValue;

/** Attempts per field before the whole form is cancelled (a user who keeps typing what the field refuses). */
const MAX_ATTEMPTS = 5;

export interface ElicitIo {
  readonly input: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly output: NodeJS.WritableStream;
  readonly interactive: boolean;
  /** Called on Ctrl-C at a prompt (readline takes it from the process while it reads the terminal). */
  readonly onInterrupt: () => void;
}

export function elicitationAnswerer(io: ElicitIo, say: (line: string) => void): (params: ElicitRequestFormParams, context: { readonly signal: AbortSignal }) => Promise<ElicitResult> {
  return async (params, context) => {
    if (!io.interactive) {
      say(`the server asks: ${JSON.stringify(params.message)}; declined, as there is no terminal to ask you on (run it in a terminal to answer)`);
      return { action: 'decline' };
    }
    const reader = createInterface({ input: io.input, output: io.output, terminal: true });
    const abandon = new AbortController();
    const cancel = (): void => abandon.abort();
    context.signal.addEventListener('abort', cancel, { once: true });
    reader.once('SIGINT', () => {
      abandon.abort();
      io.onInterrupt();
    });
    reader.once('close', cancel);
    try {
      io.output.write(`\nthe server asks: ${params.message}\n(Enter keeps the default in [brackets]; Ctrl-D declines)\n`);
      const content: Record<string, JsonValue> = {};
      const required = new Set(params.requestedSchema.required ?? []);
      for (const [name, field] of Object.entries(params.requestedSchema.properties)) {
        const value = await askField(reader, name, field, required.has(name), abandon.signal);
        if (value === DECLINED) return { action: 'decline' };
        if (value !== undefined) content[name] = value;
      }
      return { action: 'accept', content };
    } catch (error) {
      if (abandon.signal.aborted) return { action: context.signal.aborted ? 'cancel' : 'decline' };
      throw error;
    } finally {
      context.signal.removeEventListener('abort', cancel);
      reader.close();
    }
  };
}

const DECLINED = Symbol('declined');

async function askField(
  reader: ReturnType<typeof createInterface>,
  name: string,
  field: PrimitiveSchemaDefinition,
  required: boolean,
  signal: AbortSignal,
): Promise<JsonValue | undefined | typeof DECLINED> {
  const label = field.title ?? name;
  const hint = [field.description, choicesOf(field)?.join('|'), field.type === 'boolean' ? 'yes|no' : undefined].filter((part) => part !== undefined).join('; ');
  const fallback = 'default' in field && field.default !== undefined ? (field.default) : undefined;
  const question = `${label}${required ? '' : ' (optional)'}${hint === '' ? '' : ` - ${hint}`}${fallback === undefined ? '' : ` [${String(fallback)}]`}: `;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const answer = (await reader.question(question, { signal })).trim();
    if (answer === '') {
      if (fallback !== undefined) return fallback;
      if (!required) return undefined;
      process.stderr.write(`${label} is required\n`);
      continue;
    }
    const parsed = parseAnswer(answer, field);
    if (parsed.ok) return parsed.value;
    process.stderr.write(`${parsed.problem}\n`);
  }
  return DECLINED;
}

function choicesOf(field: PrimitiveSchemaDefinition): readonly string[] | undefined {
  if ('enum' in field && Array.isArray(field.enum)) return field.enum as readonly string[];
  if ('oneOf' in field) return field.oneOf.map((option) => option.const);
  if (field.type === 'array') return 'enum' in field.items ? field.items.enum : field.items.anyOf.map((option) => option.const);
  return undefined;
}

function parseAnswer(answer: string, field: PrimitiveSchemaDefinition): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  const choices = choicesOf(field);
  if (field.type === 'array') {
    const picked = answer.split(',').map((part) => part.trim()).filter((part) => part !== '');
    const unknown = picked.find((part) => choices?.includes(part) !== true);
    return unknown === undefined ? { ok: true, value: picked } : { ok: false, problem: `${JSON.stringify(unknown)} is not one of ${choices?.join(', ')}` };
  }
  if (field.type === 'boolean') {
    if (/^(y|yes|true|1)$/i.test(answer)) return { ok: true, value: true };
    if (/^(n|no|false|0)$/i.test(answer)) return { ok: true, value: false };
    return { ok: false, problem: `answer yes or no, not ${JSON.stringify(answer)}` };
  }
  if (field.type === 'number' || field.type === 'integer') {
    const value = Number(answer);
    if (!Number.isFinite(value) || (field.type === 'integer' && !Number.isInteger(value))) return { ok: false, problem: `${JSON.stringify(answer)} is not ${field.type === 'integer' ? 'an integer' : 'a number'}` };
    return { ok: true, value };
  }
  if (choices !== undefined && !choices.includes(answer)) return { ok: false, problem: `${JSON.stringify(answer)} is not one of ${choices.join(', ')}` };
  return { ok: true, value: answer };
}
