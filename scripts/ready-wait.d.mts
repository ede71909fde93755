export interface Schedstat {
  run: number;
  wait: number;
}
export interface RunnableTotals {
  chargedMs: number;
  wallMs: number;
  waitedMs: number;
  ranMs: number;
}
export function threadReadyWaitMs(): number;
export function treeSchedstats(pid: number): Map<string, Schedstat>;
export function runnableClock(
  pid: number,
  options?: { read?: (pid: number) => Map<string, Schedstat>; now?: () => number },
): { tick(): RunnableTotals };
