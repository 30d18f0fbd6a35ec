/**
 * The catalog's revision as a server describes itself (`ServerDescription.catalogRevision`): a 64-bit FNV-1a
 * digest of the lists clients see (tools, prompts, resources, resource templates, in order), in hex. A digest
 * rather than a counter, so that every process serving the same catalog reports the same revision and a directory
 * of many processes can tell one catalog from two. Computed when asked, once per change of any list: the
 * registries count their changes, and the digest is kept until one of those counts moves.
 */
import type { ServerCatalog } from '../actors/features/catalog.ts';

/** FNV-1a, 64 bits, over UTF-16 code units, in two 32-bit halves (no BigInt on the way). */
function fnv1a64(text: string): string {
  // The offset basis 0xcbf29ce484222325, split.
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (let index = 0; index < text.length; index++) {
    low = (low ^ text.charCodeAt(index)) >>> 0;
    // Times the prime 0x100000001b3 = 2^40 + 0x1b3, modulo 2^64: the low half times 0x1b3 carries into the
    // high half, and 2^40 moves the low half 8 bits up into the high half. Every product stays below 2^53.
    const lowProduct = low * 0x1b3;
    const carry = Math.floor(lowProduct / 0x1_0000_0000);
    high = (high * 0x1b3 + carry + (low % 0x100_0000) * 0x100) % 0x1_0000_0000;
    low = lowProduct % 0x1_0000_0000;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

/** A function that answers the catalog's revision now. */
export function catalogRevisionOf(catalog: ServerCatalog): () => string {
  let seen = '';
  let digest = '';
  return () => {
    const counts = `${catalog.tools.revision}/${catalog.prompts.revision}/${catalog.resources.revision}/${catalog.templates.revision}`;
    if (counts !== seen || digest === '') {
      digest = fnv1a64(JSON.stringify([catalog.tools.list(), catalog.prompts.list(), catalog.resources.list(), catalog.templates.list()]));
      seen = counts;
    }
    return digest;
  };
}
