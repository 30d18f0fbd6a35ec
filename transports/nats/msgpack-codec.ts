/**
 * The msgpack codec for NATS bodies, when its optional peer is installed. msgpackr is an optional peer of rxmcp:
 * an application that installs only `nats` gets a binding that speaks JSON (every body says what it is, and
 * msgpack is used only when both sides announce they read it), instead of one that fails to import.
 *
 * Loading starts when the binding is imported, so it has normally finished before the first message;
 * `serveNats` waits for it. Until it has (or when msgpackr is missing) this process neither announces nor
 * answers msgpack, and a msgpack body it receives fails to decode with the reason.
 */
import type { Codec } from '../../core/codecs/codec.ts';
import { LocalError } from '../../core/errors.ts';
import type { WirePayload } from '../../core/jsonrpc.ts';

let loaded: Codec | undefined;
let missing: string | undefined;

const loading: Promise<Codec | undefined> = import('../../core/codecs/msgpack.ts').then(
  (module) => (loaded = module.msgpackCodec),
  (error: unknown) => {
    missing = `msgpack bodies need the msgpackr package beside rxmcp (npm install msgpackr); it could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
    return undefined;
  },
);

/** The msgpack codec if it has loaded (undefined while loading, or for good when msgpackr is missing). */
export function msgpackCodecIfLoaded(): Codec | undefined {
  return loaded;
}

/** Settles once loading has ended: the codec, or undefined when msgpackr is missing. */
export function msgpackCodecLoaded(): Promise<Codec | undefined> {
  return loading;
}

/** Why msgpack cannot be used, once loading has failed. */
export function msgpackUnavailableReason(): string | undefined {
  return missing;
}

function unavailable(): LocalError {
  return new LocalError('DecodeFailed', missing ?? 'This process cannot read or write msgpack bodies yet (the msgpack codec is still loading)');
}

/** Stands in for msgpack where it is not loaded: a msgpack body this process receives fails with the reason. */
export const msgpackUnavailable: Codec = Object.freeze({
  name: 'msgpack',
  contentType: 'application/msgpack',
  selfDelimiting: false,
  encode(_payload: WirePayload): Uint8Array {
    throw unavailable();
  },
  decode(_bytes: Uint8Array, _maxBytes: number): unknown {
    throw unavailable();
  },
});

/** The msgpack codec, or its stand-in. */
export function msgpackOrUnavailable(): Codec {
  return loaded ?? msgpackUnavailable;
}
