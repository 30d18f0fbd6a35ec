/** Text for people: aligned tables, a schema's parameters in one line, content blocks as text or summaries. */

/** Rows under a header, columns padded to their widest cell; the last column is never padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], indent = '  '): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    indent + cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Keeps a cell to one line of at most `max` characters. */
export function oneLine(text: string | undefined, max = 72): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

type Schema = { readonly [key: string]: unknown };

/** `n?: integer = 5, numbers: number[]`: a tool's input schema as the parameters a user types. */
export function parametersOf(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return '';
  const properties = ((schema as Schema)['properties'] ?? {}) as Record<string, Schema>;
  const required = new Set(((schema as Schema)['required'] as string[] | undefined) ?? []);
  return Object.entries(properties)
    .map(([name, property]) => {
      const fallback = property['default'] === undefined ? '' : ` = ${JSON.stringify(property['default'])}`;
      return `${name}${required.has(name) ? '' : '?'}: ${typeName(property)}${fallback}`;
    })
    .join(', ');
}

export function typeName(property: Schema): string {
  const enumeration = property['enum'];
  if (Array.isArray(enumeration)) return enumeration.map((value) => JSON.stringify(value)).join('|');
  const type = property['type'];
  if (type === 'array') {
    const items = property['items'];
    return `${typeof items === 'object' && items !== null ? typeName(items as Schema) : 'any'}[]`;
  }
  if (Array.isArray(type)) return type.join('|');
  return typeof type === 'string' ? type : 'any';
}

/** A content block as text: text as it is, anything else summarised on one line. */
export function contentText(block: unknown): string {
  const item = (block ?? {}) as Schema;
  const type = item['type'];
  if (type === 'text') return String(item['text'] ?? '');
  if (type === 'image' || type === 'audio') {
    const data = typeof item['data'] === 'string' ? item['data'] : '';
    return `[${type} ${String(item['mimeType'] ?? '')}, ${Math.floor((data.length * 3) / 4)} bytes]`;
  }
  if (type === 'resource_link') return `[resource link ${String(item['uri'] ?? '')}${item['name'] === undefined ? '' : ` (${String(item['name'])})`}]`;
  if (type === 'resource') return resourceText((item['resource'] ?? {}) as Schema);
  return `[${String(type ?? 'unknown')} content]`;
}

/** One resource's contents: its text, or a summary of its blob. */
export function resourceText(contents: Schema): string {
  if (typeof contents['text'] === 'string') return contents['text'];
  const blob = typeof contents['blob'] === 'string' ? contents['blob'] : '';
  return `[${String(contents['uri'] ?? 'resource')}: ${String(contents['mimeType'] ?? 'binary')}, ${Math.floor((blob.length * 3) / 4)} bytes]`;
}
