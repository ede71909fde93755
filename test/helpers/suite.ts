// node:test's describe/it/hooks, except that a suite skipped for a missing service (Redis, a real
// PostgreSQL, a browser) still lists each of its tests as skipped. node:test does not run a skipped
// suite's body, so its tests would count as nothing in the run's summary and a run without Redis
// would look as complete as one with it. Here the body runs, every test in it is registered with
// the suite's skip reason, and its hooks (which would need the missing service) are left out.
import * as nodeTest from 'node:test';

type Options = { skip?: string | boolean; concurrency?: number | boolean; timeout?: number };
type Body = () => void;

let skipping: string | undefined;

function split<F>(optionsOrFn: Options | F, fn?: F): [Options, F] {
  return typeof optionsOrFn === 'function' ? [{}, optionsOrFn as F] : [optionsOrFn as Options, fn!];
}

const reasonOf = (skip: Options['skip']) => (skip === true ? 'skipped' : skip || undefined);

export function describe(name: string, optionsOrFn: Options | Body, maybeFn?: Body): void {
  const [{ skip, ...options }, fn] = split(optionsOrFn, maybeFn);
  const reason = reasonOf(skip);
  nodeTest.describe(name, options, () => {
    const outer = skipping;
    skipping = reason ?? outer;
    try {
      const result: unknown = fn();
      if (result instanceof Promise) throw new Error(`describe('${name}') must register its tests synchronously`);
    } finally {
      skipping = outer;
    }
  });
}

type TestFn = (context: nodeTest.TestContext) => unknown;

export function it(name: string, optionsOrFn: Options | TestFn, maybeFn?: TestFn): void {
  const [options, fn] = split(optionsOrFn, maybeFn);
  const skip = skipping ?? reasonOf(options.skip);
  nodeTest.it(name, { ...options, skip }, fn as nodeTest.TestFn);
}

type Hook = typeof nodeTest.before;
const hook =
  (register: Hook): Hook =>
  (fn, options) => {
    if (!skipping) register(fn, options);
  };

export const before = hook(nodeTest.before);
export const after = hook(nodeTest.after);
export const beforeEach = hook(nodeTest.beforeEach);
export const afterEach = hook(nodeTest.afterEach);
