// What the work in progress asks of the venue budget, carried through its async calls: the share of the
// minute it may use (background syncs, caller-keyed market loads) and the caller it is charged to when its
// fetch names no user (decision 1190).
import { AsyncLocalStorage } from 'node:async_hooks';

const shareScope = new AsyncLocalStorage<number>();
const callerScope = new AsyncLocalStorage<string>();

/**
 * Runs `work` with calls admitted only while the minute's weight stays within `share` of the cap,
 * e.g. background syncs that must leave room for users' own requests.
 */
export function withBudgetShare<T>(share: number, work: () => Promise<T>): Promise<T> {
  const outer = shareScope.getStore() ?? 1;
  return shareScope.run(Math.min(outer, share), work);
}

/**
 * Runs `work` with the calls it makes charged to `caller`'s share of the minute (as a user's are, decision
 * 200) when the fetch names no user: an anonymous caller's loads under keys it chooses (decision 1190).
 */
export function withBudgetCaller<T>(caller: string, work: () => Promise<T>): Promise<T> {
  return callerScope.run(caller, work);
}

/** The share of the cap the current work may use (1 outside any `withBudgetShare`). */
export const scopedShare = (): number => shareScope.getStore() ?? 1;

/** The caller the current work is charged to, if any. */
export const scopedCaller = (): string | undefined => callerScope.getStore();
