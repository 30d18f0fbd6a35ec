/**
 * Server changes across processes: every change this process makes (a tool added, a resource updated) is
 * published on the changes subject, and every change another process publishes is applied here, so modern
 * listeners and legacy sessions hear about it whichever process they are connected to.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { ChangeFeedPort, ServerChange } from '../../../core/server-change.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function isChange(value: unknown): value is ServerChange {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as Record<string, unknown>)['type'];
  if (type === 'tools' || type === 'prompts' || type === 'resources') return true;
  return type === 'resource-updated' && typeof (value as Record<string, unknown>)['uri'] === 'string';
}

export function fanOutChanges(connection: NatsConnection, subject: string, processId: string, feed: ChangeFeedPort): () => void {
  const outgoing = feed.local$.subscribe((change) => {
    try {
      connection.publish(subject, encoder.encode(JSON.stringify({ origin: processId, change })));
    } catch {
      // The NATS connection is closed; nothing more to tell.
    }
  });
  const incoming = connection.subscribe(subject, {
    callback: (error, msg) => {
      if (error !== null) return;
      try {
        const event = JSON.parse(decoder.decode(msg.data)) as { origin?: unknown; change?: unknown };
        if (event.origin !== processId && isChange(event.change)) feed.apply(event.change);
      } catch {
        // Not a change event: ignored.
      }
    },
  });
  return () => {
    outgoing.unsubscribe();
    incoming.unsubscribe();
  };
}
