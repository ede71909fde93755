// A process's first load of the venue library on a busy machine (decision 700): one block of the event
// loop of seconds, made for real so that the app's bounds meet it as they would in production.

/** How long the load holds the event loop: longer than the bounds the first-load tests give the venue. */
export const SLOW_CCXT_LOAD_MS = 4_000;

/**
 * ccxt's real import, then the loop held as its evaluation holds it on a busy machine (the module may be
 * loaded already in this test process, shared with other files, and then the import alone costs nothing).
 * For the app's `modules.loadCcxt`.
 */
export async function busyMachineCcxt(): Promise<typeof import('ccxt')> {
  const ccxt = await import('ccxt');
  const until = performance.now() + SLOW_CCXT_LOAD_MS;
  while (performance.now() < until) {
    // One synchronous block, as the module's evaluation is.
  }
  return ccxt;
}
