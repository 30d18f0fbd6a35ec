/**
 * What a modern client learns from a tool listing about mirroring arguments into headers: which arguments a
 * tool marks `x-mcp-header`. A tool whose marks are invalid is dropped from the listing (the client cannot
 * call it correctly, and the spec says to drop it rather than guess).
 */
import type { JsonObject } from '../jsonrpc.ts';
import { type HeaderAnnotation, headerAnnotations, paramHeaders } from './header-mirror.ts';
import type { Tool } from './tools.ts';

export class ToolParamHeaders {
  private readonly byTool = new Map<string, readonly HeaderAnnotation[]>();

  /** Remembers a listed tool's header marks; false when they are invalid (the tool must be dropped). */
  learn(tool: Tool): boolean {
    const found = headerAnnotations(tool.inputSchema);
    if (!found.ok) {
      this.byTool.delete(tool.name);
      return false;
    }
    if (found.annotations.length === 0) this.byTool.delete(tool.name);
    else this.byTool.set(tool.name, found.annotations);
    return true;
  }

  clear(): void {
    this.byTool.clear();
  }

  /** The `Mcp-Param-*` headers of a call, or undefined when the tool mirrors nothing. */
  headersFor(name: string, args: JsonObject | undefined): Readonly<Record<string, string>> | undefined {
    // Most servers mark no argument at all: then no call looks its tool up.
    if (this.byTool.size === 0) return undefined;
    const annotations = this.byTool.get(name);
    return annotations === undefined ? undefined : paramHeaders(annotations, args);
  }
}
