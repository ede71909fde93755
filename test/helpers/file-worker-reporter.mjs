// The node:test reporter of file-worker.mjs: it reports each file as that file's own process did
// (node:test's spec output, one level shallower, and its closing counts) and sends the report, with
// the CPU time the file took, to scripts/run-tests.mjs, which prints it under the file's name and
// sends the next file. What belongs to no file (a failure after the last one) goes to stdout.
import { spec } from 'node:test/reporters';
import { childrenCpuSeconds } from './children-cpu.mjs';

/** node:test's failure types of a test cancelled rather than failed (counted as `cancelled`). */
const CANCELLED = new Set(['cancelledByParent', 'testAborted', 'testTimeoutFailure']);

/** CPU seconds of this process and of the processes it started and waited for (as usage.mjs). */
function usageNow() {
  const { user, system } = process.cpuUsage();
  return { cpu: (user + system) / 1e6, children: childrenCpuSeconds() };
}

let current;

/** Called by file-worker.mjs as it starts a file: what it costs is counted from here. */
export function fileStarted(name) {
  current = { name, began: usageNow(), ...newReport() };
}

function newReport() {
  const reporter = new spec();
  const chunks = [];
  reporter.on('data', (chunk) => chunks.push(chunk));
  const counts = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  return { reporter, chunks, counts };
}

/** As node:test counts a finished test in its closing summary. */
function count(counts, type, data) {
  if (data.details?.type === 'suite') counts.suites += 1;
  else if (data.skip !== undefined) counts.skipped += 1;
  else if (data.todo !== undefined) counts.todo += 1;
  else if (CANCELLED.has(data.details?.error?.failureType)) counts.cancelled += 1;
  else if (type === 'test:fail') counts.fail += 1;
  else counts.pass += 1;
  if (data.details?.type !== 'suite') counts.tests += 1;
}

async function finish(file, type, data) {
  const { reporter, chunks, counts, began } = file;
  // The file's suite failed on its own account (its import threw, a top-level hook failed): shown as
  // a failed test, as the file's own process showed it.
  const failure = data.details?.error?.failureType;
  if (type === 'test:fail' && failure !== 'subtestsFailed') {
    reporter.write({ type, data });
    counts.fail += 1;
    counts.tests += 1;
  }
  for (const [key, value] of Object.entries({ ...counts, duration_ms: data.details?.duration_ms ?? 0 }))
    reporter.write({ type: 'test:diagnostic', data: { nesting: 0, message: `${key} ${value}` } });
  reporter.end();
  await new Promise((resolve) => reporter.on('end', resolve));
  const now = usageNow();
  process.send({
    fileDone: file.name,
    ok: type === 'test:pass',
    output: chunks.join(''),
    cpu: now.cpu - began.cpu + (now.children - began.children),
    children: now.children - began.children,
  });
}

export default async function* fileWorkerReporter(source) {
  const leftover = newReport();
  for await (const { type, data } of source) {
    if (current && data?.nesting > 0) {
      if (type === 'test:pass' || type === 'test:fail') count(current.counts, type, data);
      current.reporter.write({ type, data: { ...data, nesting: data.nesting - 1 } });
    } else if (current && (type === 'test:pass' || type === 'test:fail') && data.name === current.name) {
      const file = current;
      current = undefined;
      await finish(file, type, data);
    } else if (type === 'test:fail') {
      // Outside every file (a hook of the process's own, as the database's closing): shown as is.
      leftover.chunks.length = 0;
      leftover.reporter.write({ type, data });
      yield leftover.chunks.join('');
    }
  }
  leftover.chunks.length = 0;
  leftover.reporter.end();
  await new Promise((resolve) => leftover.reporter.on('end', resolve));
  yield leftover.chunks.join('');
}
