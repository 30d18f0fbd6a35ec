/**
 * The wire traffic users reported breaking the answer promise (issue 13), as fixed scenarios every medium's spec
 * runs besides its random ones, so they stay checked whatever the random runs draw.
 */
import type { Scenario } from './traffic.ts';

/**
 * `burst`: 10,000 as reported, for media with one connection per session; a medium that carries each request on
 * its own exchange (an HTTP POST) takes fewer, still far past the in-flight cap, to stay within a test's time.
 */
export const knownCases = (burst = 10_000): ReadonlyArray<{ readonly name: string; readonly scenario: Scenario }> => [
  {
    // Only where the client can close its input and read on (stdio): the others skip it.
    name: 'stdin closes while five slow calls run: each is answered before the server exits',
    scenario: {
      era: 'legacy',
      revision: '2025-11-25',
      prelude: [],
      steps: Array.from({ length: 5 }, () => ({ kind: 'call', tool: 'slow', ms: 300 }) as const),
      stopReadingAtEnd: false,
      endInput: true,
    },
  },
  {
    // The client reads all along; the burst is far past the in-flight cap (256) and the outbound queue (1024).
    name: `a burst of ${burst.toLocaleString('en')} tools/call on one connection, the client reading all along`,
    scenario: { era: 'legacy', revision: '2025-11-25', prelude: [], steps: [{ kind: 'burst', count: burst, tool: 'slow' }], stopReadingAtEnd: false },
  },
  {
    name: 'a request neither era serves first, then initialize: the connection stays legacy',
    scenario: { era: 'legacy', revision: '2025-11-25', prelude: [{ kind: 'premature', method: 'tools/list' }], steps: [{ kind: 'list' }, { kind: 'call', tool: 'fast', ms: 0 }], stopReadingAtEnd: false },
  },
  {
    name: 'a request neither era serves first, then modern requests: they are served in 2026-07-28',
    scenario: { era: 'modern', revision: '2025-11-25', prelude: [{ kind: 'premature', method: 'tools/call' }], steps: [{ kind: 'list' }, { kind: 'call', tool: 'fast', ms: 0 }], stopReadingAtEnd: false },
  },
];
