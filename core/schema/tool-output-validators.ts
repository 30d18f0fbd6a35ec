/**
 * Client-side checks of tool results against the `outputSchema` the server announced. Validators are
 * compiled once per tool definition seen in a listing, and forgotten when the server says its tools changed.
 * A schema that does not compile (it comes from the peer, so it may be anything) is not enforced.
 */
import { LocalError } from '../errors.ts';
import type { JsonObject } from '../jsonrpc.ts';
import type { CallToolResult, Tool } from '../protocol/index.ts';
import { type CompiledSchema, compileSchema } from './compile.ts';

export class ToolOutputValidators {
  private readonly byTool = new Map<string, { readonly schema: unknown; readonly compiled: CompiledSchema | undefined }>();

  /** Remembers a listed tool's output schema; returns the tool unchanged. */
  learn(tool: Tool): Tool {
    const schema = tool.outputSchema;
    if (schema === undefined) {
      this.byTool.delete(tool.name);
      return tool;
    }
    if (this.byTool.get(tool.name)?.schema === schema) return tool;
    let compiled: CompiledSchema | undefined;
    try {
      compiled = compileSchema(schema as JsonObject, { subject: 'structured content' });
    } catch {
      compiled = undefined;
    }
    this.byTool.set(tool.name, { schema, compiled });
    return tool;
  }

  clear(): void {
    this.byTool.clear();
  }

  /** Returns the result when it conforms; throws a `ProtocolViolation` LocalError when it does not. */
  check(name: string, result: CallToolResult): CallToolResult {
    const compiled = this.byTool.get(name)?.compiled;
    if (compiled === undefined || result.isError === true) return result;
    if (result.structuredContent === undefined) {
      throw new LocalError('ProtocolViolation', `Tool "${name}" declares an outputSchema but its result has no structuredContent`);
    }
    const outcome = compiled.validate(result.structuredContent);
    if (!outcome.ok) throw new LocalError('ProtocolViolation', `Tool "${name}" returned structuredContent that does not match its outputSchema: ${outcome.summary}`);
    return result;
  }
}
