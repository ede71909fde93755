// A test that reads the local time zone runs under one of its choosing without moving the zone of the
// files run after it in a shared process (decision 660): the zone is set, `fn` runs to its end, and
// the zone is set back, with no await in between, so that no other code (another test, a timer, an
// answer) runs under it. `fn` may not return a promise: what it started would go on after the zone
// was set back. file-worker.mjs fails a file that leaves the zone (or Date) other than it found them.

export function inTimeZone<T>(zone: string, fn: () => T): T {
  const before = process.env.TZ;
  process.env.TZ = zone;
  let result: T;
  try {
    result = fn();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
  if (typeof (result as { then?: unknown } | undefined)?.then === 'function')
    throw new Error('inTimeZone runs a function to its end: it may not return a promise');
  return result;
}
