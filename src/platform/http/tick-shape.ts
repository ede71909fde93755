// Every answer Node writes schedules about seven `process.nextTick` callbacks, and each is an object
// literal whose keys are symbols (Node's task_queues.js). Its shape (V8 map) hangs off the shape of `{}`
// by weak links, and no tick object outlives the turn of the event loop that made it, so a full garbage
// collection that finds none alive drops the shape; the next tick makes a new one. After a few
// collections the optimised `nextTick` has seen too many shapes and defines each of the object's keys
// through V8's runtime: in about half of the server's starts, about a tenth of the CPU of a cached answer
// (decision 425). Holding one tick object for the life of the process keeps its shape, so every later
// tick object has that one shape. The hook that hands it over is on for one call only. It has to be
// held before the start's own work (loading the database makes many ticks and collections), so this
// module holds it when it is loaded, and src/main.ts loads it first.
import { createHook } from 'node:async_hooks';

let held: object | undefined;

/** Keeps one `process.nextTick` object alive for good; once per process. */
export function keepTickObjectShape(): void {
  if (held) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') held ??= resource as object;
    },
  }).enable();
  try {
    process.nextTick(() => undefined);
  } finally {
    hook.disable();
  }
}

/** The tick object kept, if any (for tests). */
export function heldTickObject(): object | undefined {
  return held;
}

keepTickObjectShape();
