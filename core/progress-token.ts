/**
 * Progress tokens (MCP: `ProgressToken = string | number`), one rule for every reader: the session's routers,
 * the outbound writer's progress merging and the transports that route reports to their exchange.
 */
export type ProgressToken = string | number;

export function isProgressToken(value: unknown): value is ProgressToken {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * The progress token a request asks its reports under (`params._meta.progressToken`), as sent: undefined when
 * there is none. Not checked: a receiver refuses a request whose token fails {@link isProgressToken}.
 */
export function progressTokenOf(params: unknown): unknown {
  const meta = isRecord(params) ? params['_meta'] : undefined;
  return isRecord(meta) ? meta['progressToken'] : undefined;
}

/** The token a `notifications/progress` reports under (`params.progressToken`), or undefined when it has none. */
export function reportedProgressTokenOf(params: unknown): ProgressToken | undefined {
  const token = isRecord(params) ? params['progressToken'] : undefined;
  return isProgressToken(token) ? token : undefined;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}
