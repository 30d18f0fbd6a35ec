/**
 * The header blocks a server process has read, by their bytes. A client sends the same few header sets again and
 * again (its connection's requests share them, see client/request-headers.ts), so the block of a request is
 * almost always one already read: its reader (and the standard-header check it remembers) is taken as it is,
 * instead of decoding and splitting the block, folding the names and checking the mirrors once more per message.
 */
import type { Msg } from '@nats-io/nats-core';
import { ReceivedHeaders } from './headers.ts';

/** Distinct blocks kept (a few per client connection in practice); emptied when full. */
const MAX_BLOCKS = 512;
/** Blocks longer than this (a long identity assertion, say) are read each time rather than kept. */
const MAX_BLOCK_BYTES = 4096;

/** A received message of nats.js, as far as its header block goes (not in its public types). */
interface RawMsg {
  readonly _msg?: { readonly hdr?: unknown };
  readonly _rdata?: unknown;
}

export class HeaderBlocks {
  private readonly blocks = new Map<string, ReceivedHeaders>();

  /** The headers of `msg`, as {@link ReceivedHeaders.of} reads them. */
  of(msg: Msg): ReceivedHeaders {
    const raw = msg as unknown as RawMsg;
    const length = raw._msg?.hdr;
    const data = raw._rdata;
    if (typeof length !== 'number' || length <= 0 || length > MAX_BLOCK_BYTES || !(data instanceof Uint8Array) || length > data.byteLength) return ReceivedHeaders.of(msg);
    // The bytes themselves are the key (latin1 maps each byte to one character: two blocks share a key only if
    // they are the same bytes), which costs a copy and a hash rather than a UTF-8 decode and a parse.
    const key = (Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)).toString('latin1', 0, length);
    const known = this.blocks.get(key);
    if (known !== undefined) return known;
    const read = ReceivedHeaders.ofBlock(data.subarray(0, length));
    // A block nats.js should read (a status line, an odd name) is not kept: it is rare and read as before.
    if (read === undefined) return ReceivedHeaders.of(msg);
    if (this.blocks.size >= MAX_BLOCKS) this.blocks.clear();
    this.blocks.set(key, read);
    return read;
  }
}
