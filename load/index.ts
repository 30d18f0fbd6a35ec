/**
 * rxmcp/load: a load, soak and chaos tester for any MCP server. See docs/load.md.
 */
export { runLoad } from './run.ts';
export { LoadOptionsError, type EraChoice, type Fault, type LiveStatus, type LoadOptions, type LoadStep, type LoadTarget, type Operation } from './options.ts';
export type { EraResult, LoadResult, SeriesPoint, WindowResult } from './result.ts';
export type { LatencySummary } from './latency.ts';
export type { Counts } from './tally.ts';
export type { FaultRecord } from './faults.ts';
export type { AnswerAnomalies } from './wire-check.ts';
export type { WrongSample } from './lane.ts';
export { renderSummary } from './summary.ts';
export { renderReport } from './report/html.ts';
export { type Bound, type BudgetVerdict, type Budgets, checkBudgets, errorRate, readPreviousResult } from './budgets.ts';
export { type Workload, parseWorkload } from './workload.ts';
